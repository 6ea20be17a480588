-- The one browser-send slot, defined once: the sends that hold it. A claim is refused while
-- any other send is in this view (trigger below); the owner's queries read the same view
-- (read::in_flight, remote_stop::request_for_clicked, expiry). Rust's mirror of this rule
-- is `Send::holds_slot` (src/ledger/record.rs), used where a row is already in hand.
CREATE VIEW sends_in_flight AS
  SELECT seq, op_id, state, epoch FROM sends
  WHERE state IN ('claimed', 'dispatched')
     OR (state = 'accepted' AND answered_at IS NULL AND answer_not_observed_at IS NULL);

DROP TRIGGER sends_one_in_flight;
CREATE TRIGGER sends_one_in_flight BEFORE UPDATE OF state ON sends
WHEN NEW.state = 'claimed' AND EXISTS (SELECT 1 FROM sends_in_flight WHERE seq <> NEW.seq)
BEGIN SELECT RAISE(ABORT, 'one browser send at a time'); END;
