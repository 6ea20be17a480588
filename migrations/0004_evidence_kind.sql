-- What kind of evidence an event carries, as data (not told apart by a sentence prefix):
--   'observed' — what the page's own traffic showed about an uncertain send: a suggestion
--                for a person, never a decision;
--   'notified' — a person was notified that the send is uncertain.
-- NULL for every other event (transitions, expiries, decisions carry their own evidence).
ALTER TABLE events ADD COLUMN evidence_kind TEXT
  CHECK (evidence_kind IS NULL OR evidence_kind IN ('observed', 'notified'));

-- Events written before this migration are classified once, here, by the sentences the
-- owner wrote then; the append-only rule is lifted for this one statement only.
DROP TRIGGER events_append_only_update;
UPDATE events SET evidence_kind = 'observed'
  WHERE kind = 'note' AND actor = 'owner' AND evidence LIKE 'observed the conversation%';
UPDATE events SET evidence_kind = 'notified'
  WHERE kind = 'note' AND actor = 'owner'
    AND evidence = 'a person was notified that this send is uncertain';
CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'audit events are append-only'); END;
