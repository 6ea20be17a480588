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

-- Where each send in flight is: the tab of the lease that claimed it, and its
-- conversation — the one it names; else the one the page named since (its receipt, or
-- the page's own request after the click); else the one its tab showed when it leased
-- (a new chat not yet named, typed by a tab that did not leave the conversation it shows,
-- is in that conversation). NULL: a new chat not named yet, in no conversation of its own.
-- Read by the claim (sends::claim_next), the trigger below and the waiting reasons.
CREATE VIEW in_flight_places AS
  SELECT s.seq, s.op_id, l.tab_id,
         COALESCE(s.conversation_id, r.conversation_id, p.conversation_id, l.conversation_id)
           AS conversation_id
  FROM sends_in_flight f
  JOIN sends s ON s.seq = f.seq
  LEFT JOIN leases l ON l.lease_id = s.lease_id
  LEFT JOIN receipts r ON r.op_id = s.op_id
  LEFT JOIN page_destinations p ON p.op_id = s.op_id;

-- A claim is refused while another send in flight is in the same conversation (the one
-- the claimed send names, else the one its lease's tab shows) or in the same tab, or
-- while the cap's number of sends are in flight.
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
