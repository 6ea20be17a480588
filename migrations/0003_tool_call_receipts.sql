-- 0003: at-most-once tool-call receipts, one per native call id.
-- Rows of 0002 become legacy receipts: call_id NULL, so no new call ever matches them.
CREATE TABLE tool_calls (
  seq INTEGER PRIMARY KEY,
  call_id TEXT UNIQUE CHECK (call_id IS NULL OR length(call_id) BETWEEN 1 AND 256),
  legacy_generation INTEGER,
  state TEXT NOT NULL CHECK (state IN ('admitted', 'started', 'settled', 'uncertain')),
  outcome TEXT,
  admitted_at INTEGER NOT NULL,
  started_at INTEGER,
  settled_at INTEGER,
  archived_at INTEGER,
  archived_by TEXT,
  CHECK ((call_id IS NULL) <> (legacy_generation IS NULL))
);

INSERT INTO tool_calls(call_id, legacy_generation, state, outcome, admitted_at, settled_at)
SELECT NULL, generation,
       CASE WHEN outcome IS NULL THEN 'uncertain' ELSE 'settled' END,
       outcome, admitted_at, CASE WHEN outcome IS NULL THEN NULL ELSE admitted_at END
FROM tool_admissions;
DROP TABLE tool_admissions;

-- The retained set (what the cap counts) stays small however many rows are archived.
CREATE INDEX tool_calls_retained ON tool_calls(seq) WHERE archived_at IS NULL;

CREATE TRIGGER tool_calls_retention_cap BEFORE INSERT ON tool_calls
WHEN (SELECT count(*) FROM tool_calls WHERE archived_at IS NULL) >= 1000
BEGIN SELECT RAISE(ABORT, 'tool receipts full'); END;

CREATE TRIGGER tool_calls_legal_edges BEFORE UPDATE OF state ON tool_calls
WHEN NEW.state <> OLD.state AND NOT (
  (OLD.state = 'admitted' AND NEW.state = 'started')
  OR (OLD.state = 'started' AND NEW.state IN ('settled', 'uncertain')))
BEGIN SELECT RAISE(ABORT, 'illegal tool call edge'); END;

CREATE TRIGGER tool_calls_identity_immutable BEFORE UPDATE OF call_id, legacy_generation, admitted_at ON tool_calls
BEGIN SELECT RAISE(ABORT, 'tool receipt identity is immutable'); END;

CREATE TRIGGER tool_calls_outcome_written_once BEFORE UPDATE OF outcome, settled_at ON tool_calls
WHEN OLD.state IN ('settled', 'uncertain')
BEGIN SELECT RAISE(ABORT, 'tool receipt outcome is immutable'); END;

CREATE TRIGGER tool_calls_archive_settled_only BEFORE UPDATE OF archived_at ON tool_calls
WHEN OLD.archived_at IS NOT NULL OR OLD.state <> 'settled' OR NEW.archived_by IS NULL
BEGIN SELECT RAISE(ABORT, 'only settled tool receipts can be archived, once'); END;

CREATE TRIGGER tool_calls_never_deleted BEFORE DELETE ON tool_calls
BEGIN SELECT RAISE(ABORT, 'tool receipts are archived, never deleted'); END;
