-- 0011: a send's destination is part of its identity (issue 27). Shipped migrations are
-- never edited; add a new file instead. Both tables keep their rowid: salvage reads every
-- table one rowid at a time.
--
-- send_destinations: where a send goes, resolved once at queue time (the send's own
-- choice, or the profile's default then): a conversation, a new chat in a Project, or a
-- new chat, with the model and effort it asks for. Written in the transaction that
-- admits the send, never changed, never deleted. Sends admitted before this migration
-- have no row (they went to whichever tab was leased).
CREATE TABLE send_destinations (
  op_id TEXT PRIMARY KEY REFERENCES sends(op_id),
  kind TEXT NOT NULL CHECK (kind IN ('conversation', 'project', 'new_chat')),
  conversation_id TEXT CHECK (conversation_id IS NULL OR (length(conversation_id) BETWEEN 1 AND 128 AND conversation_id NOT LIKE 'WEB:%')),
  project_id TEXT CHECK (project_id IS NULL OR (length(project_id) BETWEEN 5 AND 128 AND project_id LIKE 'g-p-%')),
  model TEXT CHECK (model IS NULL OR length(model) BETWEEN 1 AND 64),
  effort TEXT CHECK (effort IS NULL OR length(effort) BETWEEN 1 AND 64),
  chosen_by TEXT NOT NULL CHECK (chosen_by IN ('send', 'default')),
  CHECK ((kind = 'conversation') = (conversation_id IS NOT NULL)),
  CHECK ((kind = 'project') = (project_id IS NOT NULL))
);

-- Written with the send's admission, while it is queued; a conversation destination is
-- the conversation the send row names (the claim matches tabs by it).
CREATE TRIGGER send_destinations_at_admission BEFORE INSERT ON send_destinations
WHEN (SELECT state FROM sends WHERE op_id = NEW.op_id) IS NOT 'queued'
  OR (SELECT conversation_id FROM sends WHERE op_id = NEW.op_id) IS NOT NEW.conversation_id
BEGIN SELECT RAISE(ABORT, 'send payload is immutable: a destination is written with its send'); END;

CREATE TRIGGER send_destinations_immutable BEFORE UPDATE ON send_destinations
BEGIN SELECT RAISE(ABORT, 'send payload is immutable'); END;
CREATE TRIGGER send_destinations_never_deleted BEFORE DELETE ON send_destinations
BEGIN SELECT RAISE(ABORT, 'send payload is immutable'); END;

-- What the page's own conversation request showed after the click: the conversation it
-- named (NULL: a new chat) and the model slug. One row per send, written once, with
-- mismatch set when it is not the send's destination (then a 'destination_mismatch' note
-- is on the send's timeline too).
CREATE TABLE page_destinations (
  op_id TEXT PRIMARY KEY REFERENCES sends(op_id),
  conversation_id TEXT,
  model TEXT,
  mismatch TEXT,
  observed_at INTEGER NOT NULL
);
CREATE TRIGGER page_destinations_immutable BEFORE UPDATE ON page_destinations
BEGIN SELECT RAISE(ABORT, 'page evidence is immutable'); END;
CREATE TRIGGER page_destinations_never_deleted BEFORE DELETE ON page_destinations
BEGIN SELECT RAISE(ABORT, 'page evidence is immutable'); END;
CREATE TRIGGER page_destinations_follow_dispatch BEFORE INSERT ON page_destinations
WHEN (SELECT dispatched_at FROM sends WHERE op_id = NEW.op_id) IS NULL
BEGIN SELECT RAISE(ABORT, 'page evidence precedes durable dispatch'); END;
