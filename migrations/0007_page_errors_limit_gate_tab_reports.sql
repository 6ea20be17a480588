-- 0007: when the page says no.
-- 1. A turn the page ended with an error (usage limit, "Something went wrong", a blocked
--    message) was received: the send leaves `accepted` for the terminal state
--    `page_error`, with the page's own message as evidence, and frees the in-flight slot.
-- 2. A usage limit closes the *limit gate*: no claim until the reset time the page named
--    (ledger clock, ms) or until a person resumes.
-- 3. A chatgpt.com tab that cannot take a send reports why, so a queued send can say why
--    it waits.

INSERT INTO send_states(name) VALUES ('page_error');
INSERT INTO send_edges(from_state, to_state) VALUES ('accepted', 'page_error');

-- The page's message is the evidence: a page_error without one is refused (any other
-- edge into page_error is the edge rule's to refuse).
CREATE TRIGGER sends_page_error_has_evidence BEFORE UPDATE OF state ON sends
WHEN NEW.state = 'page_error' AND OLD.state = 'accepted'
  AND (NEW.evidence IS NULL OR length(trim(NEW.evidence)) = 0)
BEGIN SELECT RAISE(ABORT, 'a page error needs the page''s message as evidence'); END;

-- The limit gate: one row. closed = 1 and until_ms NULL: closed until a person resumes.
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
INSERT INTO limit_gate(id, closed, changed_at, changed_by) VALUES (1, 0, 0, 'ledger created');

-- No claim while the limit gate is closed at the claim's own time (claimed_at, the
-- ledger's clock): the time the page named, or a person's resume, opens it.
CREATE TRIGGER sends_claimed_only_while_limit_gate_open BEFORE UPDATE OF state ON sends
WHEN NEW.state = 'claimed' AND OLD.state <> 'claimed' AND EXISTS (
  SELECT 1 FROM limit_gate WHERE id = 1 AND closed = 1
    AND (until_ms IS NULL OR NEW.claimed_at IS NULL OR until_ms > NEW.claimed_at))
BEGIN SELECT RAISE(ABORT, 'usage limit: no send is claimed until the limit gate opens'); END;

CREATE TRIGGER limit_gate_never_deleted BEFORE DELETE ON limit_gate
BEGIN SELECT RAISE(ABORT, 'the limit gate is never deleted'); END;

-- Tabs the extension reported as unable to take a send (no composer, logged out, …).
-- One row per tab, replaced by the latest report; cleared when the tab is leased.
CREATE TABLE tab_reports (
  tab_id TEXT PRIMARY KEY CHECK (length(tab_id) BETWEEN 1 AND 64),
  reason TEXT NOT NULL CHECK (length(reason) BETWEEN 1 AND 4096),
  path TEXT CHECK (path IS NULL OR length(path) <= 512),
  reported_at INTEGER NOT NULL
);
