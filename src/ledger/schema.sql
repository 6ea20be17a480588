-- The ledger's schema at version 26: what migrations/ make of an empty file, in one script.
-- Generated, never edited: SENDLEDGER_WRITE_SCHEMA=1 cargo test --test ledger a_new_ledger
-- (src/ledger/schema.rs says how it is used and checked).

CREATE TABLE send_states (name TEXT PRIMARY KEY) WITHOUT ROWID;

CREATE TABLE send_edges (
  from_state TEXT NOT NULL REFERENCES send_states(name),
  to_state   TEXT NOT NULL REFERENCES send_states(name),
  PRIMARY KEY (from_state, to_state)
) WITHOUT ROWID;

CREATE TABLE gate (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  closed INTEGER NOT NULL CHECK (closed IN (0, 1)),
  generation INTEGER NOT NULL,
  changed_at INTEGER NOT NULL,
  changed_by TEXT NOT NULL
);

CREATE TABLE gate_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  action TEXT NOT NULL CHECK (action IN ('stop', 'resume')),
  at INTEGER NOT NULL,
  by TEXT NOT NULL CHECK (length(by) > 0),
  generation INTEGER NOT NULL
);

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
, site TEXT NOT NULL DEFAULT 'chatgpt'
  CHECK (length(site) BETWEEN 1 AND 32), new_chat_id TEXT);

CREATE TABLE stopped_epochs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  epoch TEXT NOT NULL UNIQUE,
  lease_id TEXT REFERENCES leases(lease_id),
  generation INTEGER NOT NULL,
  stopped_at INTEGER NOT NULL,
  stopped_by TEXT NOT NULL
);

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
, site TEXT NOT NULL DEFAULT 'chatgpt'
  CHECK (length(site) BETWEEN 1 AND 32));

CREATE TABLE receipts (
  op_id TEXT PRIMARY KEY REFERENCES sends(op_id),
  conversation_id TEXT NOT NULL,
  user_message_id TEXT NOT NULL,
  turn_id TEXT NOT NULL,
  observed_at INTEGER NOT NULL,
  UNIQUE (conversation_id, user_message_id)
);

CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  op_id TEXT NOT NULL REFERENCES sends(op_id),
  kind TEXT NOT NULL CHECK (kind IN ('transition', 'note')),
  from_state TEXT,
  to_state TEXT NOT NULL,
  at INTEGER NOT NULL,
  actor TEXT NOT NULL,
  evidence TEXT
, evidence_kind TEXT
  CHECK (evidence_kind IS NULL OR evidence_kind IN ('observed', 'notified')), note_kind TEXT
  CHECK (note_kind IS NULL OR note_kind IN
    ('destination_mismatch', 'attachment_mismatch', 'frames_not_understood')));

CREATE TABLE remote_stops (
  op_id TEXT PRIMARY KEY REFERENCES sends(op_id),
  epoch TEXT NOT NULL,
  phase TEXT NOT NULL CHECK (phase IN ('pending', 'dispatched', 'confirmed', 'uncertain')),
  requested_at INTEGER NOT NULL,
  requested_by TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  evidence TEXT
);

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

CREATE TABLE api_keys (
  seq INTEGER PRIMARY KEY,
  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
  key_sha256 TEXT NOT NULL UNIQUE CHECK (length(key_sha256) = 64),
  created_at INTEGER NOT NULL,
  created_by TEXT NOT NULL CHECK (length(created_by) > 0),
  last_used_at INTEGER,
  revoked_at INTEGER,
  revoked_by TEXT
, scope TEXT NOT NULL DEFAULT 'openai'
  CHECK (scope IN ('openai', 'send', 'all')));

CREATE TABLE door_requests (
  op_id TEXT PRIMARY KEY REFERENCES sends(op_id),
  -- who asked: 'client-token' or 'key:<name>'
  client TEXT NOT NULL CHECK (length(client) > 0),
  -- SHA-256 of the request body as parsed JSON, re-serialised with sorted keys
  body_sha256 TEXT NOT NULL CHECK (length(body_sha256) = 64),
  -- SHA-256 of (client, body_sha256): what an automatic retry is matched by
  fingerprint TEXT NOT NULL CHECK (length(fingerprint) = 64),
  -- 1: the operation id is the request's Idempotency-Key
  keyed INTEGER NOT NULL CHECK (keyed IN (0, 1)),
  created_at INTEGER NOT NULL,
  -- the page's model slug, once its answer was observed
  model TEXT CHECK (model IS NULL OR length(model) BETWEEN 1 AND 128)
);

CREATE TABLE limit_gate (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  closed INTEGER NOT NULL CHECK (closed IN (0, 1)),
  until_ms INTEGER,
  reason TEXT,
  op_id TEXT REFERENCES sends(op_id),
  changed_at INTEGER NOT NULL,
  changed_by TEXT NOT NULL CHECK (length(changed_by) > 0),
  notified_at INTEGER,
  CHECK (closed = 1 OR until_ms IS NULL)
);

CREATE TABLE tab_reports (
  tab_id TEXT PRIMARY KEY CHECK (length(tab_id) BETWEEN 1 AND 64),
  reason TEXT NOT NULL CHECK (length(reason) BETWEEN 1 AND 4096),
  path TEXT CHECK (path IS NULL OR length(path) <= 512),
  reported_at INTEGER NOT NULL
);

CREATE TABLE page_destinations (
  op_id TEXT PRIMARY KEY REFERENCES sends(op_id),
  conversation_id TEXT,
  model TEXT,
  mismatch TEXT,
  observed_at INTEGER NOT NULL
, route TEXT
  CHECK (route IS NULL OR length(route) BETWEEN 1 AND 256));

CREATE TABLE in_flight_cap (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  max_in_flight INTEGER NOT NULL CHECK (max_in_flight BETWEEN 1 AND 8)
);

CREATE TABLE conversation_titles (
  conversation_id TEXT PRIMARY KEY CHECK (length(conversation_id) BETWEEN 1 AND 128 AND conversation_id NOT LIKE 'WEB:%'),
  title TEXT NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  seen_at INTEGER NOT NULL
);

CREATE TABLE attachments (
  sha256 TEXT PRIMARY KEY CHECK (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),
  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  mime TEXT NOT NULL CHECK (length(mime) BETWEEN 1 AND 255),
  size INTEGER NOT NULL CHECK (size BETWEEN 1 AND 33554432),
  stored_at INTEGER NOT NULL,
  bytes_deleted_at INTEGER
);

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

CREATE TABLE page_attachments (
  op_id TEXT PRIMARY KEY REFERENCES sends(op_id),
  seen TEXT NOT NULL,
  mismatch TEXT,
  observed_at INTEGER NOT NULL
);

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

CREATE TABLE page_gate (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  closed INTEGER NOT NULL CHECK (closed IN (0, 1)),
  fact_id TEXT CHECK (fact_id IS NULL OR length(fact_id) BETWEEN 3 AND 64),
  reason TEXT CHECK (reason IS NULL OR length(reason) <= 4096),
  op_id TEXT REFERENCES sends(op_id),
  tab_id TEXT CHECK (tab_id IS NULL OR length(tab_id) <= 64),
  changed_at INTEGER NOT NULL,
  changed_by TEXT NOT NULL CHECK (length(changed_by) > 0),
  notified_at INTEGER,
  CHECK (closed = 0 OR fact_id IS NOT NULL)
);

CREATE TABLE page_checks (
  tab_id TEXT NOT NULL CHECK (length(tab_id) BETWEEN 1 AND 64),
  op_id TEXT CHECK (op_id IS NULL OR length(op_id) BETWEEN 1 AND 128),
  checked_at INTEGER NOT NULL,
  holds INTEGER NOT NULL CHECK (holds >= 0),
  fails INTEGER NOT NULL CHECK (fails >= 0),
  unseen INTEGER NOT NULL CHECK (unseen >= 0),
  failing TEXT NOT NULL CHECK (length(failing) <= 16384),
  results TEXT NOT NULL CHECK (length(results) <= 262144)
);

CREATE TABLE retention (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  days INTEGER CHECK (days IS NULL OR days BETWEEN 1 AND 36500),
  set_at INTEGER,
  set_by TEXT CHECK (set_by IS NULL OR length(set_by) BETWEEN 1 AND 128),
  pruning INTEGER NOT NULL DEFAULT 0 CHECK (pruning IN (0, 1))
);

CREATE TABLE "send_destinations" (
  op_id TEXT PRIMARY KEY REFERENCES sends(op_id),
  kind TEXT NOT NULL CHECK (kind IN ('conversation', 'project', 'new_chat')),
  conversation_id TEXT CHECK (conversation_id IS NULL OR (length(conversation_id) BETWEEN 1 AND 128 AND conversation_id NOT LIKE 'WEB:%')),
  project_id TEXT CHECK (project_id IS NULL OR length(project_id) BETWEEN 1 AND 128),
  model TEXT CHECK (model IS NULL OR length(model) BETWEEN 1 AND 64),
  effort TEXT CHECK (effort IS NULL OR length(effort) BETWEEN 1 AND 64),
  chosen_by TEXT NOT NULL CHECK (chosen_by IN ('send', 'default')),
  CHECK ((kind = 'conversation') = (conversation_id IS NOT NULL)),
  CHECK ((kind = 'project') = (project_id IS NOT NULL))
);

CREATE TABLE limit_gates (
  site TEXT PRIMARY KEY CHECK (length(site) BETWEEN 1 AND 32),
  closed INTEGER NOT NULL CHECK (closed IN (0, 1)),
  until_ms INTEGER,
  reason TEXT,
  op_id TEXT REFERENCES sends(op_id),
  changed_at INTEGER NOT NULL,
  changed_by TEXT NOT NULL CHECK (length(changed_by) > 0),
  notified_at INTEGER,
  CHECK (closed = 1 OR until_ms IS NULL)
);

CREATE TABLE default_destinations (
  site TEXT PRIMARY KEY CHECK (length(site) BETWEEN 1 AND 32),
  kind TEXT NOT NULL CHECK (kind IN ('conversation', 'project', 'new_chat')),
  conversation_id TEXT CHECK (conversation_id IS NULL OR (length(conversation_id) BETWEEN 1 AND 128 AND conversation_id NOT LIKE 'WEB:%')),
  project_id TEXT CHECK (project_id IS NULL OR length(project_id) BETWEEN 1 AND 128),
  model TEXT CHECK (model IS NULL OR length(model) BETWEEN 1 AND 64),
  effort TEXT CHECK (effort IS NULL OR length(effort) BETWEEN 1 AND 64),
  set_at INTEGER NOT NULL,
  CHECK ((kind = 'conversation') = (conversation_id IS NOT NULL)),
  CHECK ((kind = 'project') = (project_id IS NOT NULL))
);

CREATE TABLE send_counts (
  state TEXT PRIMARY KEY REFERENCES send_states(name),
  n INTEGER NOT NULL CHECK (n >= 0)
) WITHOUT ROWID;

INSERT INTO "send_states"("name") VALUES('abandoned');

INSERT INTO "send_states"("name") VALUES('accepted');

INSERT INTO "send_states"("name") VALUES('claimed');

INSERT INTO "send_states"("name") VALUES('completed');

INSERT INTO "send_states"("name") VALUES('confirmed');

INSERT INTO "send_states"("name") VALUES('dispatched');

INSERT INTO "send_states"("name") VALUES('page_error');

INSERT INTO "send_states"("name") VALUES('queued');

INSERT INTO "send_states"("name") VALUES('rejected');

INSERT INTO "send_states"("name") VALUES('stopped');

INSERT INTO "send_states"("name") VALUES('uncertain');

INSERT INTO "send_edges"("from_state", "to_state") VALUES('accepted', 'completed');

INSERT INTO "send_edges"("from_state", "to_state") VALUES('accepted', 'page_error');

INSERT INTO "send_edges"("from_state", "to_state") VALUES('claimed', 'dispatched');

INSERT INTO "send_edges"("from_state", "to_state") VALUES('claimed', 'rejected');

INSERT INTO "send_edges"("from_state", "to_state") VALUES('claimed', 'stopped');

INSERT INTO "send_edges"("from_state", "to_state") VALUES('claimed', 'uncertain');

INSERT INTO "send_edges"("from_state", "to_state") VALUES('dispatched', 'accepted');

INSERT INTO "send_edges"("from_state", "to_state") VALUES('dispatched', 'page_error');

INSERT INTO "send_edges"("from_state", "to_state") VALUES('dispatched', 'uncertain');

INSERT INTO "send_edges"("from_state", "to_state") VALUES('queued', 'claimed');

INSERT INTO "send_edges"("from_state", "to_state") VALUES('queued', 'rejected');

INSERT INTO "send_edges"("from_state", "to_state") VALUES('queued', 'stopped');

INSERT INTO "send_edges"("from_state", "to_state") VALUES('uncertain', 'abandoned');

INSERT INTO "send_edges"("from_state", "to_state") VALUES('uncertain', 'accepted');

INSERT INTO "send_edges"("from_state", "to_state") VALUES('uncertain', 'confirmed');

INSERT INTO "gate"(rowid, "id", "closed", "generation", "changed_at", "changed_by") VALUES(1, 1, 0, 0, 0, 'ledger created');

INSERT INTO "limit_gate"(rowid, "id", "closed", "until_ms", "reason", "op_id", "changed_at", "changed_by", "notified_at") VALUES(1, 1, 0, NULL, NULL, NULL, 0, 'ledger created', NULL);

INSERT INTO "in_flight_cap"(rowid, "id", "max_in_flight") VALUES(1, 1, 1);

INSERT INTO "page_gate"(rowid, "id", "closed", "fact_id", "reason", "op_id", "tab_id", "changed_at", "changed_by", "notified_at") VALUES(1, 1, 0, NULL, NULL, NULL, NULL, 0, 'ledger created', NULL);

INSERT INTO "retention"(rowid, "id", "days", "set_at", "set_by", "pruning") VALUES(1, 1, NULL, NULL, NULL, 0);

INSERT INTO "limit_gates"(rowid, "site", "closed", "until_ms", "reason", "op_id", "changed_at", "changed_by", "notified_at") VALUES(1, 'chatgpt', 0, NULL, NULL, NULL, 0, 'ledger created', NULL);

INSERT INTO "send_counts"("state", "n") VALUES('abandoned', 0);

INSERT INTO "send_counts"("state", "n") VALUES('accepted', 0);

INSERT INTO "send_counts"("state", "n") VALUES('claimed', 0);

INSERT INTO "send_counts"("state", "n") VALUES('completed', 0);

INSERT INTO "send_counts"("state", "n") VALUES('confirmed', 0);

INSERT INTO "send_counts"("state", "n") VALUES('dispatched', 0);

INSERT INTO "send_counts"("state", "n") VALUES('page_error', 0);

INSERT INTO "send_counts"("state", "n") VALUES('queued', 0);

INSERT INTO "send_counts"("state", "n") VALUES('rejected', 0);

INSERT INTO "send_counts"("state", "n") VALUES('stopped', 0);

INSERT INTO "send_counts"("state", "n") VALUES('uncertain', 0);

CREATE INDEX sends_by_state ON sends(state, seq);

CREATE INDEX sends_by_resend ON sends(resend_of) WHERE resend_of IS NOT NULL;

CREATE INDEX events_by_op ON events(op_id, id);

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

CREATE INDEX tool_calls_retained ON tool_calls(seq) WHERE archived_at IS NULL;

CREATE VIEW sends_in_flight AS
  SELECT seq, op_id, state, epoch FROM sends
  WHERE state IN ('claimed', 'dispatched')
     OR (state = 'accepted' AND answered_at IS NULL AND answer_not_observed_at IS NULL);

CREATE UNIQUE INDEX api_keys_live_name ON api_keys(name) WHERE revoked_at IS NULL;

CREATE INDEX door_requests_by_fingerprint ON door_requests(fingerprint, created_at);

CREATE INDEX sends_awaiting_answer ON sends(seq)
  WHERE state = 'accepted' AND answered_at IS NULL AND answer_not_observed_at IS NULL;

CREATE INDEX sends_settled ON sends(seq)
  WHERE state IN ('accepted', 'completed', 'confirmed', 'abandoned', 'page_error');

CREATE INDEX leases_live ON leases(created_at) WHERE ended_at IS NULL;

CREATE TRIGGER api_keys_identity_immutable BEFORE UPDATE OF seq, name, key_sha256, created_at, created_by ON api_keys
WHEN NEW.seq IS NOT OLD.seq OR NEW.name IS NOT OLD.name OR NEW.key_sha256 IS NOT OLD.key_sha256
  OR NEW.created_at IS NOT OLD.created_at OR NEW.created_by IS NOT OLD.created_by
BEGIN SELECT RAISE(ABORT, 'immutable: api key identity is immutable'); END;

CREATE TRIGGER api_keys_never_deleted BEFORE DELETE ON api_keys
BEGIN SELECT RAISE(ABORT, 'append_only: api keys are revoked, never deleted'); END;

CREATE TRIGGER api_keys_revocation_final BEFORE UPDATE OF revoked_at, revoked_by ON api_keys
WHEN OLD.revoked_at IS NOT NULL
  AND (NEW.revoked_at IS NOT OLD.revoked_at OR NEW.revoked_by IS NOT OLD.revoked_by)
BEGIN SELECT RAISE(ABORT, 'immutable: api key revocation is final'); END;

CREATE TRIGGER door_requests_immutable BEFORE UPDATE OF op_id, client, body_sha256, fingerprint, keyed, created_at ON door_requests
WHEN NEW.op_id IS NOT OLD.op_id OR NEW.client IS NOT OLD.client OR NEW.body_sha256 IS NOT OLD.body_sha256
  OR NEW.fingerprint IS NOT OLD.fingerprint OR NEW.keyed IS NOT OLD.keyed OR NEW.created_at IS NOT OLD.created_at
BEGIN SELECT RAISE(ABORT, 'immutable: door request is immutable'); END;

CREATE TRIGGER leases_binding_immutable BEFORE UPDATE OF lease_id, tab_id, conversation_id, thread_id, workspace_id, generation, epoch ON leases
BEGIN SELECT RAISE(ABORT, 'immutable: a lease binding is immutable'); END;

CREATE TRIGGER leases_only_while_gate_open BEFORE INSERT ON leases
WHEN (SELECT closed FROM gate WHERE id = 1) = 1
BEGIN SELECT RAISE(ABORT, 'epoch_stopped: epoch stopped: resume first'); END;

CREATE TRIGGER limit_gate_never_deleted BEFORE DELETE ON limit_gate
BEGIN SELECT RAISE(ABORT, 'append_only: the limit gate is never deleted'); END;

CREATE TRIGGER page_destinations_follow_dispatch BEFORE INSERT ON page_destinations
WHEN (SELECT dispatched_at FROM sends WHERE op_id = NEW.op_id) IS NULL
BEGIN SELECT RAISE(ABORT, 'before_dispatch: page evidence precedes durable dispatch'); END;

CREATE TRIGGER page_destinations_immutable BEFORE UPDATE ON page_destinations
BEGIN SELECT RAISE(ABORT, 'immutable: page evidence is immutable'); END;

CREATE TRIGGER receipts_follow_dispatch BEFORE INSERT ON receipts
WHEN (SELECT dispatched_at FROM sends WHERE op_id = NEW.op_id) IS NULL
BEGIN SELECT RAISE(ABORT, 'before_dispatch: receipt precedes durable dispatch'); END;

CREATE TRIGGER receipts_immutable BEFORE UPDATE ON receipts
BEGIN SELECT RAISE(ABORT, 'immutable: receipt is immutable'); END;

CREATE TRIGGER remote_stops_legal_phases BEFORE UPDATE ON remote_stops
WHEN NOT (
  (OLD.phase = 'pending' AND NEW.phase IN ('dispatched', 'uncertain'))
  OR (OLD.phase = 'pending' AND NEW.phase = 'confirmed'
      AND length(trim(coalesce(NEW.evidence, ''),
      char(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
        25, 26, 27, 28, 29, 30, 31, 32, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137,
        138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154,
        155, 156, 157, 158, 159, 160, 173, 768, 769, 770, 771, 772, 773, 774, 775, 776, 777,
        778, 779, 780, 781, 782, 783, 784, 785, 786, 787, 788, 789, 790, 791, 792, 793, 794,
        795, 796, 797, 798, 799, 800) ||
      char(801, 802, 803, 804, 805, 806, 807, 808, 809, 810, 811, 812, 813, 814, 815, 816, 817,
        818, 819, 820, 821, 822, 823, 824, 825, 826, 827, 828, 829, 830, 831, 832, 833, 834,
        835, 836, 837, 838, 839, 840, 841, 842, 843, 844, 845, 846, 847, 848, 849, 850, 851,
        852, 853, 854, 855, 856, 857, 858, 859, 860, 861, 862, 863, 864, 865, 866, 867, 868,
        869, 870, 871, 872, 873, 874, 875, 876, 877, 878, 879, 1536, 1537, 1538, 1539, 1540,
        1541, 1564, 1757, 1807, 2192, 2193, 2274, 4447, 4448, 5760, 6068, 6069, 6155, 6156,
        6157, 6158) ||
      char(6159, 6832, 6833, 6834, 6835, 6836, 6837, 6838, 6839, 6840, 6841, 6842, 6843, 6844,
        6845, 6846, 6847, 6848, 6849, 6850, 6851, 6852, 6853, 6854, 6855, 6856, 6857, 6858,
        6859, 6860, 6861, 6862, 6863, 6864, 6865, 6866, 6867, 6868, 6869, 6870, 6871, 6872,
        6873, 6874, 6875, 6876, 6877, 6878, 6879, 6880, 6881, 6882, 6883, 6884, 6885, 6886,
        6887, 6888, 6889, 6890, 6891, 6892, 6893, 6894, 6895, 6896, 6897, 6898, 6899, 6900,
        6901, 6902, 6903, 6904, 6905, 6906, 6907, 6908, 6909, 6910, 6911, 7616, 7617, 7618,
        7619, 7620, 7621, 7622, 7623, 7624, 7625, 7626, 7627, 7628, 7629, 7630, 7631, 7632,
        7633, 7634) ||
      char(7635, 7636, 7637, 7638, 7639, 7640, 7641, 7642, 7643, 7644, 7645, 7646, 7647, 7648,
        7649, 7650, 7651, 7652, 7653, 7654, 7655, 7656, 7657, 7658, 7659, 7660, 7661, 7662,
        7663, 7664, 7665, 7666, 7667, 7668, 7669, 7670, 7671, 7672, 7673, 7674, 7675, 7676,
        7677, 7678, 7679, 8192, 8193, 8194, 8195, 8196, 8197, 8198, 8199, 8200, 8201, 8202,
        8203, 8204, 8205, 8206, 8207, 8232, 8233, 8234, 8235, 8236, 8237, 8238, 8239, 8287,
        8288, 8289, 8290, 8291, 8292, 8293, 8294, 8295, 8296, 8297, 8298, 8299, 8300, 8301,
        8302, 8303, 8400, 8401, 8402, 8403, 8404, 8405, 8406, 8407, 8408, 8409, 8410, 8411,
        8412, 8413) ||
      char(8414, 8415, 8416, 8417, 8418, 8419, 8420, 8421, 8422, 8423, 8424, 8425, 8426, 8427,
        8428, 8429, 8430, 8431, 8432, 8433, 8434, 8435, 8436, 8437, 8438, 8439, 8440, 8441,
        8442, 8443, 8444, 8445, 8446, 8447, 10240, 12288, 12351, 12644, 64976, 64977, 64978,
        64979, 64980, 64981, 64982, 64983, 64984, 64985, 64986, 64987, 64988, 64989, 64990,
        64991, 64992, 64993, 64994, 64995, 64996, 64997, 64998, 64999, 65000, 65001, 65002,
        65003, 65004, 65005, 65006, 65007, 65024, 65025, 65026, 65027, 65028, 65029, 65030,
        65031, 65032, 65033, 65034, 65035, 65036, 65037, 65038, 65039, 65056, 65057, 65058,
        65059, 65060, 65061, 65062, 65063, 65064, 65065, 65066, 65067, 65068, 65069) ||
      char(65070, 65071, 65279, 65440, 65520, 65521, 65522, 65523, 65524, 65525, 65526, 65527,
        65528, 65529, 65530, 65531, 65532, 65534, 65535, 69821, 69837, 78896, 78897, 78898,
        78899, 78900, 78901, 78902, 78903, 78904, 78905, 78906, 78907, 78908, 78909, 78910,
        78911, 94180, 113824, 113825, 113826, 113827, 119129, 119155, 119156, 119157, 119158,
        119159, 119160, 119161, 119162, 127995, 127996, 127997, 127998, 127999, 131070, 131071,
        196606, 196607, 262142, 262143, 327678, 327679, 393214, 393215, 458750, 458751, 524286,
        524287, 589822, 589823, 655358, 655359, 720894, 720895, 786430, 786431, 851966, 851967,
        917502, 917503, 917504, 917505, 917506, 917507, 917508, 917509, 917510, 917511, 917512,
        917513, 917514, 917515, 917516, 917517, 917518, 917519, 917520, 917521) ||
      char(917522, 917523, 917524, 917525, 917526, 917527, 917528, 917529, 917530, 917531, 917532,
        917533, 917534, 917535, 917536, 917537, 917538, 917539, 917540, 917541, 917542, 917543,
        917544, 917545, 917546, 917547, 917548, 917549, 917550, 917551, 917552, 917553, 917554,
        917555, 917556, 917557, 917558, 917559, 917560, 917561, 917562, 917563, 917564, 917565,
        917566, 917567, 917568, 917569, 917570, 917571, 917572, 917573, 917574, 917575, 917576,
        917577, 917578, 917579, 917580, 917581, 917582, 917583, 917584, 917585, 917586, 917587,
        917588, 917589, 917590, 917591, 917592, 917593, 917594, 917595, 917596, 917597, 917598,
        917599, 917600, 917601, 917602, 917603, 917604, 917605, 917606, 917607, 917608, 917609,
        917610, 917611, 917612, 917613, 917614, 917615, 917616, 917617, 917618, 917619, 917620,
        917621) ||
      char(917622, 917623, 917624, 917625, 917626, 917627, 917628, 917629, 917630, 917631, 917760,
        917761, 917762, 917763, 917764, 917765, 917766, 917767, 917768, 917769, 917770, 917771,
        917772, 917773, 917774, 917775, 917776, 917777, 917778, 917779, 917780, 917781, 917782,
        917783, 917784, 917785, 917786, 917787, 917788, 917789, 917790, 917791, 917792, 917793,
        917794, 917795, 917796, 917797, 917798, 917799, 917800, 917801, 917802, 917803, 917804,
        917805, 917806, 917807, 917808, 917809, 917810, 917811, 917812, 917813, 917814, 917815,
        917816, 917817, 917818, 917819, 917820, 917821, 917822, 917823, 917824, 917825, 917826,
        917827, 917828, 917829, 917830, 917831, 917832, 917833, 917834, 917835, 917836, 917837,
        917838, 917839, 917840, 917841, 917842, 917843, 917844, 917845, 917846, 917847, 917848,
        917849) ||
      char(917850, 917851, 917852, 917853, 917854, 917855, 917856, 917857, 917858, 917859, 917860,
        917861, 917862, 917863, 917864, 917865, 917866, 917867, 917868, 917869, 917870, 917871,
        917872, 917873, 917874, 917875, 917876, 917877, 917878, 917879, 917880, 917881, 917882,
        917883, 917884, 917885, 917886, 917887, 917888, 917889, 917890, 917891, 917892, 917893,
        917894, 917895, 917896, 917897, 917898, 917899, 917900, 917901, 917902, 917903, 917904,
        917905, 917906, 917907, 917908, 917909, 917910, 917911, 917912, 917913, 917914, 917915,
        917916, 917917, 917918, 917919, 917920, 917921, 917922, 917923, 917924, 917925, 917926,
        917927, 917928, 917929, 917930, 917931, 917932, 917933, 917934, 917935, 917936, 917937,
        917938, 917939, 917940, 917941, 917942, 917943, 917944, 917945, 917946, 917947, 917948,
        917949) ||
      char(917950, 917951, 917952, 917953, 917954, 917955, 917956, 917957, 917958, 917959, 917960,
        917961, 917962, 917963, 917964, 917965, 917966, 917967, 917968, 917969, 917970, 917971,
        917972, 917973, 917974, 917975, 917976, 917977, 917978, 917979, 917980, 917981, 917982,
        917983, 917984, 917985, 917986, 917987, 917988, 917989, 917990, 917991, 917992, 917993,
        917994, 917995, 917996, 917997, 917998, 917999, 983038, 983039, 1048574, 1048575,
        1114110, 1114111))) > 0)
  OR (OLD.phase = 'dispatched' AND NEW.phase IN ('confirmed', 'uncertain')))
BEGIN SELECT RAISE(ABORT, 'illegal_remote_stop_phase: illegal remote stop phase'); END;

CREATE TRIGGER remote_stops_settled_once BEFORE UPDATE ON remote_stops
WHEN OLD.phase IN ('confirmed', 'uncertain')
BEGIN SELECT RAISE(ABORT, 'remote_stop_settled: remote stop already settled'); END;

CREATE TRIGGER sends_admitted_as_queued BEFORE INSERT ON sends
WHEN NEW.state <> 'queued' OR NEW.dispatched_at IS NOT NULL OR NEW.claimed_at IS NOT NULL
BEGIN SELECT RAISE(ABORT, 'illegal_edge: illegal state edge: a send is admitted as queued'); END;

CREATE TRIGGER sends_admitted_only_while_gate_open BEFORE INSERT ON sends
WHEN (SELECT closed FROM gate WHERE id = 1) = 1
  OR EXISTS (SELECT 1 FROM stopped_epochs WHERE epoch = NEW.epoch)
BEGIN SELECT RAISE(ABORT, 'epoch_stopped: epoch stopped: resume first'); END;

CREATE TRIGGER sends_dispatch_fenced BEFORE UPDATE OF state ON sends
WHEN NEW.state = 'dispatched' AND OLD.state <> 'dispatched' AND (
  (SELECT closed FROM gate WHERE id = 1) = 1
  OR EXISTS (SELECT 1 FROM stopped_epochs WHERE epoch = NEW.epoch)
  OR EXISTS (SELECT 1 FROM leases l JOIN stopped_epochs s ON s.epoch = l.epoch WHERE l.lease_id = NEW.lease_id)
  OR NOT EXISTS (SELECT 1 FROM leases WHERE lease_id = NEW.lease_id AND ended_at IS NULL))
BEGIN SELECT RAISE(ABORT, 'epoch_stopped: epoch stopped: dispatch refused'); END;

CREATE TRIGGER sends_dispatch_recorded_once BEFORE UPDATE OF dispatched_at ON sends
WHEN OLD.dispatched_at IS NOT NULL AND NEW.dispatched_at IS NOT OLD.dispatched_at
BEGIN SELECT RAISE(ABORT, 'immutable: dispatch is recorded once'); END;

CREATE TRIGGER sends_legal_edges_only BEFORE UPDATE OF state ON sends
WHEN NEW.state <> OLD.state
  AND NOT EXISTS (SELECT 1 FROM send_edges WHERE from_state = OLD.state AND to_state = NEW.state)
BEGIN SELECT RAISE(ABORT, 'illegal_edge: illegal state edge'); END;

CREATE TRIGGER sends_page_error_has_evidence BEFORE UPDATE OF state ON sends
WHEN NEW.state = 'page_error' AND OLD.state = 'accepted'
  AND (NEW.evidence IS NULL OR length(trim(NEW.evidence)) = 0)
BEGIN SELECT RAISE(ABORT, 'evidence_required: a page error needs the page''s message as evidence'); END;

CREATE TRIGGER sends_payload_immutable BEFORE UPDATE OF seq, op_id, text, conversation_id, epoch, resend_of, created_at ON sends
WHEN NEW.seq IS NOT OLD.seq OR NEW.op_id IS NOT OLD.op_id OR NEW.text IS NOT OLD.text
  OR NEW.conversation_id IS NOT OLD.conversation_id OR NEW.epoch IS NOT OLD.epoch
  OR NEW.resend_of IS NOT OLD.resend_of OR NEW.created_at IS NOT OLD.created_at
BEGIN SELECT RAISE(ABORT, 'immutable: send payload is immutable'); END;

CREATE TRIGGER stopped_epochs_never_unfenced BEFORE UPDATE ON stopped_epochs
BEGIN SELECT RAISE(ABORT, 'immutable: a stopped epoch stays stopped'); END;

CREATE TRIGGER stopped_epochs_pruned_only_when_dead BEFORE DELETE ON stopped_epochs
WHEN (OLD.lease_id IS NOT NULL AND (SELECT ended_at FROM leases WHERE lease_id = OLD.lease_id) IS NULL)
  OR (OLD.lease_id IS NULL AND OLD.generation >= (SELECT generation FROM gate WHERE id = 1))
BEGIN SELECT RAISE(ABORT, 'append_only: a stopped epoch is pruned only after its lease ended'); END;

CREATE TRIGGER tool_calls_archive_settled_only BEFORE UPDATE OF archived_at ON tool_calls
WHEN OLD.archived_at IS NOT NULL OR OLD.state <> 'settled' OR NEW.archived_by IS NULL
BEGIN SELECT RAISE(ABORT, 'illegal_edge: only settled tool receipts can be archived, once'); END;

CREATE TRIGGER tool_calls_identity_immutable BEFORE UPDATE OF call_id, legacy_generation, admitted_at ON tool_calls
BEGIN SELECT RAISE(ABORT, 'immutable: tool receipt identity is immutable'); END;

CREATE TRIGGER tool_calls_legal_edges BEFORE UPDATE OF state ON tool_calls
WHEN NEW.state <> OLD.state AND NOT (
  (OLD.state = 'admitted' AND NEW.state = 'started')
  OR (OLD.state = 'started' AND NEW.state IN ('settled', 'uncertain')))
BEGIN SELECT RAISE(ABORT, 'illegal_edge: illegal tool call edge'); END;

CREATE TRIGGER tool_calls_never_deleted BEFORE DELETE ON tool_calls
BEGIN SELECT RAISE(ABORT, 'append_only: tool receipts are archived, never deleted'); END;

CREATE TRIGGER tool_calls_outcome_written_once BEFORE UPDATE OF outcome, settled_at ON tool_calls
WHEN OLD.state IN ('settled', 'uncertain')
BEGIN SELECT RAISE(ABORT, 'immutable: tool receipt outcome is immutable'); END;

CREATE TRIGGER tool_calls_retention_cap BEFORE INSERT ON tool_calls
WHEN (SELECT count(*) FROM tool_calls WHERE archived_at IS NULL) >= 1000
BEGIN SELECT RAISE(ABORT, 'tool_receipts_full: tool receipts full'); END;

CREATE TRIGGER sends_in_flight_capped BEFORE UPDATE OF state ON sends
WHEN NEW.state = 'claimed'
  AND (SELECT count(*) FROM sends_in_flight WHERE seq <> NEW.seq)
      >= (SELECT max_in_flight FROM in_flight_cap WHERE id = 1)
BEGIN SELECT RAISE(ABORT, 'one_in_flight: max_in_flight sends are in flight already'); END;

CREATE TRIGGER sends_refused_page_error_has_evidence BEFORE UPDATE OF state ON sends
WHEN NEW.state = 'page_error' AND OLD.state = 'dispatched'
  AND (NEW.evidence IS NULL OR length(trim(NEW.evidence)) = 0)
BEGIN SELECT RAISE(ABORT, 'evidence_required: a refused request needs the page''s answer as evidence'); END;

CREATE INDEX conversation_titles_seen ON conversation_titles(seen_at);

CREATE TRIGGER attachments_size_immutable BEFORE UPDATE OF sha256, size ON attachments
WHEN NEW.sha256 IS NOT OLD.sha256 OR NEW.size IS NOT OLD.size
BEGIN SELECT RAISE(ABORT, 'immutable: an attachment''s address and size are its bytes'''); END;

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

CREATE TRIGGER page_attachments_immutable BEFORE UPDATE ON page_attachments
BEGIN SELECT RAISE(ABORT, 'immutable: page evidence is written once'); END;

CREATE TRIGGER page_attachments_follow_dispatch BEFORE INSERT ON page_attachments
WHEN (SELECT dispatched_at FROM sends WHERE op_id = NEW.op_id) IS NULL
BEGIN SELECT RAISE(ABORT, 'before_dispatch: page evidence precedes durable dispatch'); END;

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

CREATE TRIGGER page_gate_never_deleted BEFORE DELETE ON page_gate
BEGIN SELECT RAISE(ABORT, 'append_only: the page gate is never deleted'); END;

CREATE TRIGGER sends_claimed_only_while_page_gate_open BEFORE UPDATE OF state ON sends
WHEN NEW.state = 'claimed' AND OLD.state <> 'claimed'
  AND EXISTS (SELECT 1 FROM page_gate WHERE id = 1 AND closed = 1)
BEGIN SELECT RAISE(ABORT, 'page_gate_closed: the page changed: no send is claimed until a person resumes'); END;

CREATE INDEX page_checks_tab ON page_checks(tab_id, checked_at);

CREATE INDEX page_checks_op ON page_checks(op_id) WHERE op_id IS NOT NULL;

CREATE TRIGGER api_keys_scope_immutable BEFORE UPDATE OF scope ON api_keys
WHEN NEW.scope IS NOT OLD.scope
BEGIN SELECT RAISE(ABORT, 'immutable: an api key''s scope never changes'); END;

CREATE TRIGGER retention_never_deleted BEFORE DELETE ON retention
BEGIN SELECT RAISE(ABORT, 'append_only: the retention setting is kept'); END;

CREATE TRIGGER sends_never_deleted BEFORE DELETE ON sends
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'append_only: sends are never deleted'); END;

CREATE TRIGGER sends_open_never_pruned BEFORE DELETE ON sends
WHEN OLD.state IN ('queued', 'claimed', 'dispatched', 'accepted', 'uncertain')
BEGIN SELECT RAISE(ABORT, 'append_only: an open send is never pruned'); END;

CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'append_only: audit events are append-only'); END;

CREATE TRIGGER receipts_never_deleted BEFORE DELETE ON receipts
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'immutable: receipt is immutable'); END;

CREATE TRIGGER door_requests_never_deleted BEFORE DELETE ON door_requests
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'append_only: door requests are never deleted'); END;

CREATE TRIGGER page_destinations_never_deleted BEFORE DELETE ON page_destinations
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'immutable: page evidence is immutable'); END;

CREATE TRIGGER attachments_never_deleted BEFORE DELETE ON attachments
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'append_only: an attachment''s record is kept'); END;

CREATE TRIGGER send_attachments_never_deleted BEFORE DELETE ON send_attachments
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'append_only: a send''s attachments are kept'); END;

CREATE TRIGGER page_attachments_never_deleted BEFORE DELETE ON page_attachments
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'append_only: page evidence is kept'); END;

CREATE TRIGGER answer_artifacts_never_deleted BEFORE DELETE ON answer_artifacts
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'append_only: an answer''s artifacts are kept'); END;

CREATE TRIGGER sends_site_immutable BEFORE UPDATE OF site ON sends
WHEN NEW.site IS NOT OLD.site
BEGIN SELECT RAISE(ABORT, 'immutable: send payload is immutable'); END;

CREATE VIEW in_flight_places AS
  WITH known AS (
    SELECT s.seq, s.op_id, s.site, l.tab_id, s.conversation_id AS named, l.conversation_id AS leased,
           r.conversation_id AS received, p.conversation_id AS requested
    FROM sends_in_flight f
    JOIN sends s ON s.seq = f.seq
    LEFT JOIN leases l ON l.lease_id = s.lease_id
    LEFT JOIN receipts r ON r.op_id = s.op_id
    LEFT JOIN page_destinations p ON p.op_id = s.op_id)
  SELECT seq, op_id, tab_id, named AS conversation_id, site FROM known
  UNION SELECT seq, op_id, tab_id, received, site FROM known
  UNION SELECT seq, op_id, tab_id, requested, site FROM known
  UNION SELECT seq, op_id, tab_id, leased, site FROM known WHERE named IS NULL;

CREATE TRIGGER sends_one_in_flight_per_conversation BEFORE UPDATE OF state ON sends
WHEN NEW.state = 'claimed' AND EXISTS (
  SELECT 1 FROM in_flight_places p WHERE p.seq <> NEW.seq AND (
    p.tab_id = (SELECT tab_id FROM leases WHERE lease_id = NEW.lease_id)
    OR (p.site = NEW.site AND p.conversation_id = COALESCE(NEW.conversation_id,
         (SELECT conversation_id FROM leases WHERE lease_id = NEW.lease_id)))))
BEGIN SELECT RAISE(ABORT, 'one_in_flight: one browser send at a time in a conversation and in a tab'); END;

CREATE TRIGGER sends_claimed_by_a_lease_of_their_site BEFORE UPDATE OF lease_id ON sends
WHEN NEW.lease_id IS NOT NULL AND NEW.lease_id IS NOT OLD.lease_id
  AND (SELECT site FROM leases WHERE lease_id = NEW.lease_id) IS NOT NEW.site
BEGIN SELECT RAISE(ABORT, 'illegal_edge: a send is claimed only by a lease of its own site'); END;

CREATE TRIGGER send_destinations_at_admission BEFORE INSERT ON send_destinations
WHEN (SELECT state FROM sends WHERE op_id = NEW.op_id) IS NOT 'queued'
  OR (SELECT conversation_id FROM sends WHERE op_id = NEW.op_id) IS NOT NEW.conversation_id
BEGIN SELECT RAISE(ABORT, 'immutable: send payload is immutable: a destination is written with its send'); END;

CREATE TRIGGER send_destinations_immutable BEFORE UPDATE ON send_destinations
BEGIN SELECT RAISE(ABORT, 'immutable: send payload is immutable'); END;

CREATE TRIGGER send_destinations_never_deleted BEFORE DELETE ON send_destinations
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'immutable: send payload is immutable'); END;

CREATE TRIGGER limit_gates_never_deleted BEFORE DELETE ON limit_gates
BEGIN SELECT RAISE(ABORT, 'append_only: the limit gate is never deleted'); END;

CREATE TRIGGER sends_claimed_only_while_limit_gate_open BEFORE UPDATE OF state ON sends
WHEN NEW.state = 'claimed' AND OLD.state <> 'claimed' AND EXISTS (
  SELECT 1 FROM limit_gates WHERE site = NEW.site AND closed = 1
    AND (until_ms IS NULL OR NEW.claimed_at IS NULL OR until_ms > NEW.claimed_at))
BEGIN SELECT RAISE(ABORT, 'limit_gate_closed: usage limit: no send is claimed until the limit gate opens'); END;

CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'append_only: audit events are append-only'); END;

CREATE TRIGGER send_counts_on_insert AFTER INSERT ON sends
BEGIN UPDATE send_counts SET n = n + 1 WHERE state = NEW.state; END;

CREATE TRIGGER send_counts_on_state AFTER UPDATE OF state ON sends
WHEN OLD.state IS NOT NEW.state
BEGIN
  UPDATE send_counts SET n = n - 1 WHERE state = OLD.state;
  UPDATE send_counts SET n = n + 1 WHERE state = NEW.state;
END;

CREATE TRIGGER send_counts_on_prune AFTER DELETE ON sends
BEGIN UPDATE send_counts SET n = n - 1 WHERE state = OLD.state; END;
