-- 0013: one send in flight per conversation (and per tab), under a profile-wide cap
-- (issue 27, "parallel conversations"). Shipped migrations are never edited.
--
-- in_flight_cap: how many sends may be in flight at once across the profile. The owner
-- writes it at every start from `max_in_flight` in the profile's config.json (default 1,
-- the behaviour before this migration); the claim trigger below reads it. One row.
CREATE TABLE in_flight_cap (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  max_in_flight INTEGER NOT NULL CHECK (max_in_flight BETWEEN 1 AND 8)
);
INSERT INTO in_flight_cap(id, max_in_flight) VALUES (1, 1);

-- Where each send in flight is: the tab of the lease that claimed it, and every
-- conversation it is known in — the one it names, its receipt's, the one the page's own
-- request named after the click, and, for a send naming none, the one its lease's tab
-- showed (a new chat typed by a tab that did not leave the conversation it shows) — one
-- row for each: a send whose page went elsewhere is in flight there too, its answer
-- streams there. (A send naming a conversation is not in the one its tab showed at the
-- claim: the tab goes there first, and the grant checks it arrived.) A row whose
-- conversation is NULL says only its tab (a new chat not named yet).
-- Read by the claim (sends::claim_next), the trigger below and the waiting reasons.
CREATE VIEW in_flight_places AS
  WITH known AS (
    SELECT s.seq, s.op_id, l.tab_id, s.conversation_id AS named, l.conversation_id AS leased,
           r.conversation_id AS received, p.conversation_id AS requested
    FROM sends_in_flight f
    JOIN sends s ON s.seq = f.seq
    LEFT JOIN leases l ON l.lease_id = s.lease_id
    LEFT JOIN receipts r ON r.op_id = s.op_id
    LEFT JOIN page_destinations p ON p.op_id = s.op_id)
  SELECT seq, op_id, tab_id, named AS conversation_id FROM known
  UNION SELECT seq, op_id, tab_id, received FROM known
  UNION SELECT seq, op_id, tab_id, requested FROM known
  UNION SELECT seq, op_id, tab_id, leased FROM known WHERE named IS NULL;

-- A claim is refused while another send in flight is in the same conversation (the one
-- the claimed send names, else the one its lease's tab shows; any conversation the other
-- send is known in) or in the same tab, or while the cap's number of sends are in flight.
DROP TRIGGER sends_one_in_flight;
CREATE TRIGGER sends_one_in_flight_per_conversation BEFORE UPDATE OF state ON sends
WHEN NEW.state = 'claimed' AND EXISTS (
  SELECT 1 FROM in_flight_places p WHERE p.seq <> NEW.seq AND (
    p.tab_id = (SELECT tab_id FROM leases WHERE lease_id = NEW.lease_id)
    OR p.conversation_id = COALESCE(NEW.conversation_id,
         (SELECT conversation_id FROM leases WHERE lease_id = NEW.lease_id))))
BEGIN SELECT RAISE(ABORT, 'one_in_flight: one browser send at a time in a conversation and in a tab'); END;

CREATE TRIGGER sends_in_flight_capped BEFORE UPDATE OF state ON sends
WHEN NEW.state = 'claimed'
  AND (SELECT count(*) FROM sends_in_flight WHERE seq <> NEW.seq)
      >= (SELECT max_in_flight FROM in_flight_cap WHERE id = 1)
BEGIN SELECT RAISE(ABORT, 'one_in_flight: max_in_flight sends are in flight already'); END;
