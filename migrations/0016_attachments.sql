-- 0016: attachments ("files in", issue 29). Shipped migrations are never edited; add a
-- new file instead. Every table keeps its rowid: salvage reads one rowid at a time.
--
-- attachments: every file uploaded to the store (`attachments/<sha256>` in the profile),
-- by its SHA-256. The row is the file's record and stays for good; `bytes_deleted_at` is
-- set when the owner's upkeep deleted its bytes (no unfinished send needs them). An upload
-- of the same bytes again takes the latest name and MIME type and clears that mark.
CREATE TABLE attachments (
  sha256 TEXT PRIMARY KEY CHECK (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),
  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  mime TEXT NOT NULL CHECK (length(mime) BETWEEN 1 AND 255),
  size INTEGER NOT NULL CHECK (size BETWEEN 1 AND 33554432),
  stored_at INTEGER NOT NULL,
  bytes_deleted_at INTEGER
);
CREATE TRIGGER attachments_never_deleted BEFORE DELETE ON attachments
BEGIN SELECT RAISE(ABORT, 'append_only: an attachment''s record is kept'); END;
CREATE TRIGGER attachments_size_immutable BEFORE UPDATE OF sha256, size ON attachments
WHEN NEW.sha256 IS NOT OLD.sha256 OR NEW.size IS NOT OLD.size
BEGIN SELECT RAISE(ABORT, 'immutable: an attachment''s address and size are its bytes'''); END;

-- send_attachments: the files a send carries, in its order (position 0..9), with the
-- name, MIME type and size they had at admission. Part of the send's identity: written in
-- the transaction that admits it, while it is queued, never changed — but for `file_id`,
-- the page's id for the uploaded file, written once, in the grant's transaction (the send
-- still claimed).
CREATE TABLE send_attachments (
  op_id TEXT NOT NULL REFERENCES sends(op_id),
  position INTEGER NOT NULL CHECK (position BETWEEN 0 AND 9),
  sha256 TEXT NOT NULL REFERENCES attachments(sha256),
  name TEXT NOT NULL,
  mime TEXT NOT NULL,
  size INTEGER NOT NULL,
  file_id TEXT CHECK (file_id IS NULL OR length(file_id) BETWEEN 1 AND 128),
  PRIMARY KEY (op_id, position)
);
CREATE INDEX send_attachments_by_sha ON send_attachments(sha256);

CREATE TRIGGER send_attachments_at_admission BEFORE INSERT ON send_attachments
WHEN (SELECT state FROM sends WHERE op_id = NEW.op_id) IS NOT 'queued'
BEGIN SELECT RAISE(ABORT, 'immutable: a send''s attachments are written with its send'); END;
CREATE TRIGGER send_attachments_immutable BEFORE UPDATE ON send_attachments
WHEN NEW.op_id IS NOT OLD.op_id OR NEW.position IS NOT OLD.position
  OR NEW.sha256 IS NOT OLD.sha256 OR NEW.name IS NOT OLD.name OR NEW.mime IS NOT OLD.mime
  OR NEW.size IS NOT OLD.size OR OLD.file_id IS NOT NULL
  OR (SELECT state FROM sends WHERE op_id = NEW.op_id) IS NOT 'claimed'
BEGIN SELECT RAISE(ABORT, 'immutable: a send''s attachments never change; the page''s file id is written once, at the grant'); END;
CREATE TRIGGER send_attachments_never_deleted BEFORE DELETE ON send_attachments
BEGIN SELECT RAISE(ABORT, 'append_only: a send''s attachments are kept'); END;

-- page_attachments: what the page's own conversation request carried after the click
-- (its attachment parts and metadata, as JSON), recorded once, with `mismatch` set when
-- they are not the send's files (then an `attachment_mismatch` note is on the timeline).
CREATE TABLE page_attachments (
  op_id TEXT PRIMARY KEY REFERENCES sends(op_id),
  seen TEXT NOT NULL,
  mismatch TEXT,
  observed_at INTEGER NOT NULL
);
CREATE TRIGGER page_attachments_immutable BEFORE UPDATE ON page_attachments
BEGIN SELECT RAISE(ABORT, 'immutable: page evidence is written once'); END;
CREATE TRIGGER page_attachments_never_deleted BEFORE DELETE ON page_attachments
BEGIN SELECT RAISE(ABORT, 'append_only: page evidence is kept'); END;
CREATE TRIGGER page_attachments_follow_dispatch BEFORE INSERT ON page_attachments
WHEN (SELECT dispatched_at FROM sends WHERE op_id = NEW.op_id) IS NULL
BEGIN SELECT RAISE(ABORT, 'before_dispatch: page evidence precedes durable dispatch'); END;
