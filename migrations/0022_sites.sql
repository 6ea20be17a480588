-- 0022: a send's site (issue 36). Shipped migrations are never edited; add a new file.
--
-- sends.site: the chat site a send goes to, part of its identity (written at admission,
-- never changed). leases.site: the site of the tab a lease binds; a lease claims only its
-- own site's sends. Rows from before this migration are chatgpt.com's, the only site then.
-- The names are checked by the owner's site registry (src/site.rs), not here.
ALTER TABLE sends ADD COLUMN site TEXT NOT NULL DEFAULT 'chatgpt'
  CHECK (length(site) BETWEEN 1 AND 32);
ALTER TABLE leases ADD COLUMN site TEXT NOT NULL DEFAULT 'chatgpt'
  CHECK (length(site) BETWEEN 1 AND 32);

CREATE TRIGGER sends_site_immutable BEFORE UPDATE OF site ON sends
WHEN NEW.site IS NOT OLD.site
BEGIN SELECT RAISE(ABORT, 'immutable: send payload is immutable'); END;

-- One send in flight per conversation *of a site*: the places of a send in flight carry
-- its site, and the claim trigger compares (site, conversation).
DROP TRIGGER sends_one_in_flight_per_conversation;
DROP VIEW in_flight_places;
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

-- A lease takes only its own site's sends: a claim by a lease of another site is refused.
CREATE TRIGGER sends_claimed_by_a_lease_of_their_site BEFORE UPDATE OF lease_id ON sends
WHEN NEW.lease_id IS NOT NULL AND NEW.lease_id IS NOT OLD.lease_id
  AND (SELECT site FROM leases WHERE lease_id = NEW.lease_id) IS NOT NEW.site
BEGIN SELECT RAISE(ABORT, 'illegal_edge: a send is claimed only by a lease of its own site'); END;

-- A Project's id is the site's own: `g-p-…` on chatgpt.com, a uuid on claude.ai. The
-- table is rebuilt (rowids kept) without the chatgpt.com-only prefix check; the owner
-- checks each site's form before it writes (src/destination.rs).
CREATE TABLE send_destinations_sited (
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
INSERT INTO send_destinations_sited(rowid, op_id, kind, conversation_id, project_id, model, effort, chosen_by)
  SELECT rowid, op_id, kind, conversation_id, project_id, model, effort, chosen_by FROM send_destinations;
DROP TABLE send_destinations;
ALTER TABLE send_destinations_sited RENAME TO send_destinations;

CREATE TRIGGER send_destinations_at_admission BEFORE INSERT ON send_destinations
WHEN (SELECT state FROM sends WHERE op_id = NEW.op_id) IS NOT 'queued'
  OR (SELECT conversation_id FROM sends WHERE op_id = NEW.op_id) IS NOT NEW.conversation_id
BEGIN SELECT RAISE(ABORT, 'immutable: send payload is immutable: a destination is written with its send'); END;
CREATE TRIGGER send_destinations_immutable BEFORE UPDATE ON send_destinations
BEGIN SELECT RAISE(ABORT, 'immutable: send payload is immutable'); END;
-- Deleted only inside a retention prune's own transaction, as 0021 made it.
CREATE TRIGGER send_destinations_never_deleted BEFORE DELETE ON send_destinations
WHEN (SELECT pruning FROM retention WHERE id = 1) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'immutable: send payload is immutable'); END;

-- The usage-limit gate per site: a capped Claude account does not stop ChatGPT sends, and
-- the reverse. One row per site that ever closed (a site with no row is open); the row of
-- the one-row `limit_gate` (chatgpt.com's, the only site before) is copied as chatgpt's.
-- The one-row table is kept, no longer written.
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
INSERT INTO limit_gates(site, closed, until_ms, reason, op_id, changed_at, changed_by, notified_at)
  SELECT 'chatgpt', closed, until_ms, reason, op_id, changed_at, changed_by, notified_at
  FROM limit_gate WHERE id = 1;
CREATE TRIGGER limit_gates_never_deleted BEFORE DELETE ON limit_gates
BEGIN SELECT RAISE(ABORT, 'append_only: the limit gate is never deleted'); END;

-- No claim while the send's own site's limit gate is closed at the claim's time.
DROP TRIGGER sends_claimed_only_while_limit_gate_open;
CREATE TRIGGER sends_claimed_only_while_limit_gate_open BEFORE UPDATE OF state ON sends
WHEN NEW.state = 'claimed' AND OLD.state <> 'claimed' AND EXISTS (
  SELECT 1 FROM limit_gates WHERE site = NEW.site AND closed = 1
    AND (until_ms IS NULL OR NEW.claimed_at IS NULL OR until_ms > NEW.claimed_at))
BEGIN SELECT RAISE(ABORT, 'limit_gate_closed: usage limit: no send is claimed until the limit gate opens'); END;
