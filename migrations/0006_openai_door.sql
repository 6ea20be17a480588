-- 0006: the OpenAI-compatible door (docs/openai.md).
-- Named API keys a person makes for companions (stored as SHA-256, never the key), and
-- the door's record of each send it queued: who asked, a hash of the request body and
-- the fingerprint an SDK's automatic retry is matched by — durable, so a retry that
-- arrives after an owner restart still attaches to the send it repeats.

CREATE TABLE api_keys (
  seq INTEGER PRIMARY KEY,
  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
  key_sha256 TEXT NOT NULL UNIQUE CHECK (length(key_sha256) = 64),
  created_at INTEGER NOT NULL,
  created_by TEXT NOT NULL CHECK (length(created_by) > 0),
  last_used_at INTEGER,
  revoked_at INTEGER,
  revoked_by TEXT
);
-- One live key per name; a revoked name may be made again (a new key).
CREATE UNIQUE INDEX api_keys_live_name ON api_keys(name) WHERE revoked_at IS NULL;

-- A key's identity never changes, and a revocation is final.
CREATE TRIGGER api_keys_identity_immutable BEFORE UPDATE OF seq, name, key_sha256, created_at, created_by ON api_keys
WHEN NEW.seq IS NOT OLD.seq OR NEW.name IS NOT OLD.name OR NEW.key_sha256 IS NOT OLD.key_sha256
  OR NEW.created_at IS NOT OLD.created_at OR NEW.created_by IS NOT OLD.created_by
BEGIN SELECT RAISE(ABORT, 'api key identity is immutable'); END;

CREATE TRIGGER api_keys_revocation_final BEFORE UPDATE OF revoked_at, revoked_by ON api_keys
WHEN OLD.revoked_at IS NOT NULL
  AND (NEW.revoked_at IS NOT OLD.revoked_at OR NEW.revoked_by IS NOT OLD.revoked_by)
BEGIN SELECT RAISE(ABORT, 'api key revocation is final'); END;

CREATE TRIGGER api_keys_never_deleted BEFORE DELETE ON api_keys
BEGIN SELECT RAISE(ABORT, 'api keys are revoked, never deleted'); END;

-- One row per send the door queued, written in the transaction that queues it.
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
CREATE INDEX door_requests_by_fingerprint ON door_requests(fingerprint, created_at);

CREATE TRIGGER door_requests_immutable BEFORE UPDATE OF op_id, client, body_sha256, fingerprint, keyed, created_at ON door_requests
WHEN NEW.op_id IS NOT OLD.op_id OR NEW.client IS NOT OLD.client OR NEW.body_sha256 IS NOT OLD.body_sha256
  OR NEW.fingerprint IS NOT OLD.fingerprint OR NEW.keyed IS NOT OLD.keyed OR NEW.created_at IS NOT OLD.created_at
BEGIN SELECT RAISE(ABORT, 'door request is immutable'); END;

CREATE TRIGGER door_requests_never_deleted BEFORE DELETE ON door_requests
BEGIN SELECT RAISE(ABORT, 'door requests are never deleted'); END;
