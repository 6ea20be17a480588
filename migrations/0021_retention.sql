-- Retention (issue 39): a person may choose that settled sends older than N days are
-- pruned, with what only they use (their events, receipt, destinations, page evidence,
-- attachments' and artifacts' records no kept send shares). Off until a person sets it.
--
-- The append-only triggers stay; each now lets a delete through only inside the prune's
-- own transaction, while `retention.pruning` is 1 (src/ledger/retention.rs sets it, deletes
-- one bounded batch, and sets it back before the commit, so no committed state ever has it
-- at 1 and a crash mid-prune rolls the whole batch back). An open send (queued, claimed,
-- dispatched, accepted, uncertain) is refused even then.

CREATE TABLE retention (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  days INTEGER CHECK (days IS NULL OR days BETWEEN 1 AND 36500),
  set_at INTEGER,
  set_by TEXT CHECK (set_by IS NULL OR length(set_by) BETWEEN 1 AND 128),
  pruning INTEGER NOT NULL DEFAULT 0 CHECK (pruning IN (0, 1))
);
INSERT INTO retention(id, days, pruning) VALUES (1, NULL, 0);

CREATE TRIGGER retention_never_deleted BEFORE DELETE ON retention
BEGIN SELECT RAISE(ABORT, 'append_only: the retention setting is kept'); END;

DROP TRIGGER sends_never_deleted;
CREATE TRIGGER sends_never_deleted BEFORE DELETE ON sends
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'append_only: sends are never deleted'); END;

CREATE TRIGGER sends_open_never_pruned BEFORE DELETE ON sends
WHEN OLD.state IN ('queued', 'claimed', 'dispatched', 'accepted', 'uncertain')
BEGIN SELECT RAISE(ABORT, 'append_only: an open send is never pruned'); END;

DROP TRIGGER events_append_only_delete;
CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'append_only: audit events are append-only'); END;

DROP TRIGGER receipts_never_deleted;
CREATE TRIGGER receipts_never_deleted BEFORE DELETE ON receipts
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'immutable: receipt is immutable'); END;

DROP TRIGGER door_requests_never_deleted;
CREATE TRIGGER door_requests_never_deleted BEFORE DELETE ON door_requests
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'append_only: door requests are never deleted'); END;

DROP TRIGGER send_destinations_never_deleted;
CREATE TRIGGER send_destinations_never_deleted BEFORE DELETE ON send_destinations
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'immutable: send payload is immutable'); END;

DROP TRIGGER page_destinations_never_deleted;
CREATE TRIGGER page_destinations_never_deleted BEFORE DELETE ON page_destinations
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'immutable: page evidence is immutable'); END;

DROP TRIGGER attachments_never_deleted;
CREATE TRIGGER attachments_never_deleted BEFORE DELETE ON attachments
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'append_only: an attachment''s record is kept'); END;

DROP TRIGGER send_attachments_never_deleted;
CREATE TRIGGER send_attachments_never_deleted BEFORE DELETE ON send_attachments
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'append_only: a send''s attachments are kept'); END;

DROP TRIGGER page_attachments_never_deleted;
CREATE TRIGGER page_attachments_never_deleted BEFORE DELETE ON page_attachments
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'append_only: page evidence is kept'); END;

DROP TRIGGER answer_artifacts_never_deleted;
CREATE TRIGGER answer_artifacts_never_deleted BEFORE DELETE ON answer_artifacts
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'append_only: an answer''s artifacts are kept'); END;
