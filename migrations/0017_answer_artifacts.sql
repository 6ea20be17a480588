-- 0017: an answer's generated files ("files out", issue 29). Shipped migrations are never
-- edited; add a new file instead. Every table keeps its rowid: salvage reads one rowid at a
-- time.
--
-- answer_artifacts: the files the answer that completed a send pointed at (its turn's
-- asset pointers, in order, at most 10: n 0..9), written in the transaction that completes
-- the send. Each is `wanted` until the tab hands its bytes over (`stored`: the bytes are in
-- the attachment store at `sha256`, with the name, MIME type and size they came with) or
-- it cannot be fetched (`unavailable`, with the page's or the owner's words). Settled once;
-- never deleted (the bytes may be, by the upkeep, 30 days after: `attachments.bytes_deleted_at`).
CREATE TABLE answer_artifacts (
  op_id TEXT NOT NULL REFERENCES sends(op_id),
  n INTEGER NOT NULL CHECK (n BETWEEN 0 AND 9),
  file_id TEXT NOT NULL CHECK (length(file_id) BETWEEN 1 AND 128),
  pointer TEXT NOT NULL CHECK (length(pointer) BETWEEN 1 AND 160),
  size_bytes INTEGER,
  width INTEGER,
  height INTEGER,
  state TEXT NOT NULL DEFAULT 'wanted' CHECK (state IN ('wanted', 'stored', 'unavailable')),
  sha256 TEXT REFERENCES attachments(sha256),
  name TEXT CHECK (name IS NULL OR length(name) BETWEEN 1 AND 255),
  mime TEXT CHECK (mime IS NULL OR length(mime) BETWEEN 1 AND 255),
  size INTEGER CHECK (size IS NULL OR size BETWEEN 1 AND 33554432),
  words TEXT CHECK (words IS NULL OR length(words) BETWEEN 1 AND 500),
  recorded_at INTEGER NOT NULL,
  settled_at INTEGER,
  PRIMARY KEY (op_id, n),
  CHECK ((state = 'wanted' AND sha256 IS NULL AND words IS NULL AND settled_at IS NULL)
      OR (state = 'stored' AND sha256 IS NOT NULL AND name IS NOT NULL AND mime IS NOT NULL
          AND size IS NOT NULL AND words IS NULL AND settled_at IS NOT NULL)
      OR (state = 'unavailable' AND sha256 IS NULL AND words IS NOT NULL AND settled_at IS NOT NULL))
);
CREATE INDEX answer_artifacts_by_state ON answer_artifacts(state, recorded_at);
CREATE INDEX answer_artifacts_by_sha ON answer_artifacts(sha256);

CREATE TRIGGER answer_artifacts_with_the_answer BEFORE INSERT ON answer_artifacts
WHEN (SELECT state FROM sends WHERE op_id = NEW.op_id) IS NOT 'completed'
  OR NEW.state IS NOT 'wanted'
BEGIN SELECT RAISE(ABORT, 'immutable: an answer''s artifacts are written, wanted, with the answer that carried them'); END;
CREATE TRIGGER answer_artifacts_settled_once BEFORE UPDATE ON answer_artifacts
WHEN OLD.state IS NOT 'wanted' OR NEW.state IS 'wanted'
  OR NEW.op_id IS NOT OLD.op_id OR NEW.n IS NOT OLD.n OR NEW.file_id IS NOT OLD.file_id
  OR NEW.pointer IS NOT OLD.pointer OR NEW.size_bytes IS NOT OLD.size_bytes
  OR NEW.width IS NOT OLD.width OR NEW.height IS NOT OLD.height
  OR NEW.recorded_at IS NOT OLD.recorded_at
BEGIN SELECT RAISE(ABORT, 'immutable: an artifact is settled once, from wanted'); END;
CREATE TRIGGER answer_artifacts_never_deleted BEFORE DELETE ON answer_artifacts
BEGIN SELECT RAISE(ABORT, 'append_only: an answer''s artifacts are kept'); END;
