-- 0001: the send ledger. Shipped migrations are never edited; add a new file instead.
-- Every custody rule SQL can express lives here as a trigger, so a raw UPDATE from
-- the sqlite3 shell is refused just like a buggy code path would be.

CREATE TABLE send_states (name TEXT PRIMARY KEY) WITHOUT ROWID;
INSERT INTO send_states(name) VALUES
  ('queued'), ('claimed'), ('dispatched'), ('accepted'), ('completed'),
  ('rejected'), ('uncertain'), ('stopped'), ('confirmed'), ('abandoned');

-- The legal edges of DESIGN.md's state diagram; nothing else may change a state.
CREATE TABLE send_edges (
  from_state TEXT NOT NULL REFERENCES send_states(name),
  to_state   TEXT NOT NULL REFERENCES send_states(name),
  PRIMARY KEY (from_state, to_state)
) WITHOUT ROWID;
INSERT INTO send_edges(from_state, to_state) VALUES
  ('queued', 'claimed'), ('queued', 'rejected'), ('queued', 'stopped'),
  ('claimed', 'dispatched'), ('claimed', 'rejected'), ('claimed', 'uncertain'), ('claimed', 'stopped'),
  ('dispatched', 'accepted'), ('dispatched', 'uncertain'),
  ('accepted', 'completed'),
  ('uncertain', 'accepted'), ('uncertain', 'confirmed'), ('uncertain', 'abandoned');

-- The stop gate: one row. generation counts resumes; it is part of every epoch.
CREATE TABLE gate (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  closed INTEGER NOT NULL CHECK (closed IN (0, 1)),
  generation INTEGER NOT NULL,
  changed_at INTEGER NOT NULL,
  changed_by TEXT NOT NULL
);
INSERT INTO gate(id, closed, generation, changed_at, changed_by) VALUES (1, 0, 0, 0, 'ledger created');

-- Stop and resume decisions, with who and when.
CREATE TABLE gate_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  action TEXT NOT NULL CHECK (action IN ('stop', 'resume')),
  at INTEGER NOT NULL,
  by TEXT NOT NULL CHECK (length(by) > 0),
  generation INTEGER NOT NULL
);

-- A lease binds the extension to one tab; its epoch is the SHA-256 of the binding.
CREATE TABLE leases (
  lease_id TEXT PRIMARY KEY,
  tab_id TEXT NOT NULL,
  conversation_id TEXT,
  thread_id TEXT,
  workspace_id TEXT,
  generation INTEGER NOT NULL,
  epoch TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  ended_at INTEGER,
  ended_reason TEXT
);

-- Fenced epochs. Pruned (newest 1,000 kept) only once nothing can be admitted under them.
CREATE TABLE stopped_epochs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  epoch TEXT NOT NULL UNIQUE,
  lease_id TEXT REFERENCES leases(lease_id),
  generation INTEGER NOT NULL,
  stopped_at INTEGER NOT NULL,
  stopped_by TEXT NOT NULL
);

-- seq and events.id need no AUTOINCREMENT: rows are never deleted (triggers), so the
-- rowid is already monotonic, and AUTOINCREMENT costs a sqlite_sequence write per insert.
CREATE TABLE sends (
  seq INTEGER PRIMARY KEY,
  -- payload: fixed at admission, never changed
  op_id TEXT NOT NULL UNIQUE CHECK (length(op_id) BETWEEN 1 AND 128),
  text TEXT NOT NULL CHECK (length(text) > 0),
  conversation_id TEXT,
  epoch TEXT NOT NULL,
  resend_of TEXT REFERENCES sends(op_id),
  created_at INTEGER NOT NULL,
  -- lifecycle
  state TEXT NOT NULL REFERENCES send_states(name),
  updated_at INTEGER NOT NULL,
  actor TEXT NOT NULL CHECK (length(actor) > 0),
  evidence TEXT,
  lease_id TEXT REFERENCES leases(lease_id),
  claimed_at INTEGER,
  dispatched_at INTEGER,
  answer_message_id TEXT,
  answer_text TEXT,
  answered_at INTEGER,
  answer_not_observed_at INTEGER,
  notified_at INTEGER
);
CREATE INDEX sends_by_state ON sends(state, seq);
CREATE INDEX sends_by_resend ON sends(resend_of) WHERE resend_of IS NOT NULL;

-- One native receipt per send, one send per receipt; written once.
CREATE TABLE receipts (
  op_id TEXT PRIMARY KEY REFERENCES sends(op_id),
  conversation_id TEXT NOT NULL,
  user_message_id TEXT NOT NULL,
  turn_id TEXT NOT NULL,
  observed_at INTEGER NOT NULL,
  UNIQUE (conversation_id, user_message_id)
);

-- The audit trail: every transition of every send, and notes (same state) such as expiries.
CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  op_id TEXT NOT NULL REFERENCES sends(op_id),
  kind TEXT NOT NULL CHECK (kind IN ('transition', 'note')),
  from_state TEXT,
  to_state TEXT NOT NULL,
  at INTEGER NOT NULL,
  actor TEXT NOT NULL,
  evidence TEXT
);
CREATE INDEX events_by_op ON events(op_id, id);

-- Remote Stop of a send already clicked: pending -> dispatched -> confirmed | uncertain.
CREATE TABLE remote_stops (
  op_id TEXT PRIMARY KEY REFERENCES sends(op_id),
  epoch TEXT NOT NULL,
  phase TEXT NOT NULL CHECK (phase IN ('pending', 'dispatched', 'confirmed', 'uncertain')),
  requested_at INTEGER NOT NULL,
  requested_by TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  evidence TEXT
);

-- ---- triggers: sends ----
CREATE TRIGGER sends_admitted_as_queued BEFORE INSERT ON sends
WHEN NEW.state <> 'queued' OR NEW.dispatched_at IS NOT NULL OR NEW.claimed_at IS NOT NULL
BEGIN SELECT RAISE(ABORT, 'illegal state edge: a send is admitted as queued'); END;

CREATE TRIGGER sends_admitted_only_while_gate_open BEFORE INSERT ON sends
WHEN (SELECT closed FROM gate WHERE id = 1) = 1
  OR EXISTS (SELECT 1 FROM stopped_epochs WHERE epoch = NEW.epoch)
BEGIN SELECT RAISE(ABORT, 'epoch stopped: resume first'); END;

CREATE TRIGGER sends_legal_edges_only BEFORE UPDATE OF state ON sends
WHEN NEW.state <> OLD.state
  AND NOT EXISTS (SELECT 1 FROM send_edges WHERE from_state = OLD.state AND to_state = NEW.state)
BEGIN SELECT RAISE(ABORT, 'illegal state edge'); END;

CREATE TRIGGER sends_payload_immutable BEFORE UPDATE OF seq, op_id, text, conversation_id, epoch, resend_of, created_at ON sends
WHEN NEW.seq IS NOT OLD.seq OR NEW.op_id IS NOT OLD.op_id OR NEW.text IS NOT OLD.text
  OR NEW.conversation_id IS NOT OLD.conversation_id OR NEW.epoch IS NOT OLD.epoch
  OR NEW.resend_of IS NOT OLD.resend_of OR NEW.created_at IS NOT OLD.created_at
BEGIN SELECT RAISE(ABORT, 'send payload is immutable'); END;

CREATE TRIGGER sends_dispatch_recorded_once BEFORE UPDATE OF dispatched_at ON sends
WHEN OLD.dispatched_at IS NOT NULL AND NEW.dispatched_at IS NOT OLD.dispatched_at
BEGIN SELECT RAISE(ABORT, 'dispatch is recorded once'); END;

-- The Stop fence, re-checked by the database in the transaction that writes dispatched.
CREATE TRIGGER sends_dispatch_fenced BEFORE UPDATE OF state ON sends
WHEN NEW.state = 'dispatched' AND OLD.state <> 'dispatched' AND (
  (SELECT closed FROM gate WHERE id = 1) = 1
  OR EXISTS (SELECT 1 FROM stopped_epochs WHERE epoch = NEW.epoch)
  OR EXISTS (SELECT 1 FROM leases l JOIN stopped_epochs s ON s.epoch = l.epoch WHERE l.lease_id = NEW.lease_id)
  OR NOT EXISTS (SELECT 1 FROM leases WHERE lease_id = NEW.lease_id AND ended_at IS NULL))
BEGIN SELECT RAISE(ABORT, 'epoch stopped: dispatch refused'); END;

-- One browser send at a time across the profile.
CREATE TRIGGER sends_one_in_flight BEFORE UPDATE OF state ON sends
WHEN NEW.state = 'claimed' AND EXISTS (
  SELECT 1 FROM sends WHERE seq <> NEW.seq AND (state IN ('claimed', 'dispatched')
    OR (state = 'accepted' AND answered_at IS NULL AND answer_not_observed_at IS NULL)))
BEGIN SELECT RAISE(ABORT, 'one browser send at a time'); END;

CREATE TRIGGER sends_never_deleted BEFORE DELETE ON sends
BEGIN SELECT RAISE(ABORT, 'sends are never deleted'); END;

CREATE TRIGGER sends_audit_admission AFTER INSERT ON sends
BEGIN
  INSERT INTO events(op_id, kind, from_state, to_state, at, actor, evidence)
  VALUES (NEW.op_id, 'transition', NULL, NEW.state, NEW.updated_at, NEW.actor, NEW.evidence);
END;

CREATE TRIGGER sends_audit_transition AFTER UPDATE OF state ON sends
WHEN NEW.state <> OLD.state
BEGIN
  INSERT INTO events(op_id, kind, from_state, to_state, at, actor, evidence)
  VALUES (NEW.op_id, 'transition', OLD.state, NEW.state, NEW.updated_at, NEW.actor, NEW.evidence);
END;

-- ---- triggers: receipts, events, epochs, remote stops ----
CREATE TRIGGER receipts_immutable BEFORE UPDATE ON receipts
BEGIN SELECT RAISE(ABORT, 'receipt is immutable'); END;
CREATE TRIGGER receipts_never_deleted BEFORE DELETE ON receipts
BEGIN SELECT RAISE(ABORT, 'receipt is immutable'); END;
CREATE TRIGGER receipts_follow_dispatch BEFORE INSERT ON receipts
WHEN (SELECT dispatched_at FROM sends WHERE op_id = NEW.op_id) IS NULL
BEGIN SELECT RAISE(ABORT, 'receipt precedes durable dispatch'); END;

CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'audit events are append-only'); END;
CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'audit events are append-only'); END;

CREATE TRIGGER stopped_epochs_never_unfenced BEFORE UPDATE ON stopped_epochs
BEGIN SELECT RAISE(ABORT, 'a stopped epoch stays stopped'); END;
CREATE TRIGGER stopped_epochs_pruned_only_when_dead BEFORE DELETE ON stopped_epochs
WHEN (OLD.lease_id IS NOT NULL AND (SELECT ended_at FROM leases WHERE lease_id = OLD.lease_id) IS NULL)
  OR (OLD.lease_id IS NULL AND OLD.generation >= (SELECT generation FROM gate WHERE id = 1))
BEGIN SELECT RAISE(ABORT, 'a stopped epoch is pruned only after its lease ended'); END;

CREATE TRIGGER leases_only_while_gate_open BEFORE INSERT ON leases
WHEN (SELECT closed FROM gate WHERE id = 1) = 1
BEGIN SELECT RAISE(ABORT, 'epoch stopped: resume first'); END;
CREATE TRIGGER leases_binding_immutable BEFORE UPDATE OF lease_id, tab_id, conversation_id, thread_id, workspace_id, generation, epoch ON leases
BEGIN SELECT RAISE(ABORT, 'a lease binding is immutable'); END;

CREATE TRIGGER remote_stops_legal_phases BEFORE UPDATE OF phase ON remote_stops
WHEN NEW.phase <> OLD.phase AND NOT (
  (OLD.phase = 'pending' AND NEW.phase = 'dispatched')
  OR (OLD.phase = 'dispatched' AND NEW.phase IN ('confirmed', 'uncertain')))
BEGIN SELECT RAISE(ABORT, 'illegal remote stop phase'); END;
