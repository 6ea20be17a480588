-- 0024: what a note says, as data (issue 37). Shipped migrations are never edited; add a
-- new file instead. Readers tell these notes apart by this column, never by their words.
--   'destination_mismatch'  the page's request (or its answer's model) was not the send's
--                           destination: sent once, never resent;
--   'attachment_mismatch'   the page's request did not carry the send's files;
--   'frames_not_understood' the page's hand-off frames for the turn could not be read, so
--                           no receipt can be seen (the expiry says so first).
-- NULL for every other event.
ALTER TABLE events ADD COLUMN note_kind TEXT
  CHECK (note_kind IS NULL OR note_kind IN
    ('destination_mismatch', 'attachment_mismatch', 'frames_not_understood'));

-- Notes written before this migration are classified once, here, by the prefixes the
-- owner wrote then; the append-only rule is lifted for these statements only.
DROP TRIGGER events_append_only_update;
UPDATE events SET note_kind = 'destination_mismatch'
  WHERE kind = 'note' AND actor = 'owner' AND evidence LIKE 'destination\_mismatch:%' ESCAPE '\';
UPDATE events SET note_kind = 'attachment_mismatch'
  WHERE kind = 'note' AND actor = 'owner' AND evidence LIKE 'attachment\_mismatch:%' ESCAPE '\';
UPDATE events SET note_kind = 'frames_not_understood'
  WHERE kind = 'note' AND actor = 'owner' AND evidence LIKE 'hand-off frames not understood%';
CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'append_only: audit events are append-only'); END;
