-- 0018: the *page changed* gate (issue 35). A tab failed a send on a page fact that every
-- send needs (the extension's page contract: `needs: "every"`, e.g. composer.present) or the
-- provider could not read the page's stream at all (traffic.stream_markers): the page is
-- not understood, so no send is claimed by any tab until a person resumes. One row, like the
-- limit gate; the closing that found it open is the one kept (its fact, tab, notification).

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
INSERT INTO page_gate(id, closed, changed_at, changed_by) VALUES (1, 0, 0, 'ledger created');

CREATE TRIGGER page_gate_never_deleted BEFORE DELETE ON page_gate
BEGIN SELECT RAISE(ABORT, 'append_only: the page gate is never deleted'); END;

-- No claim while the page gate is closed: only a person's resume opens it.
CREATE TRIGGER sends_claimed_only_while_page_gate_open BEFORE UPDATE OF state ON sends
WHEN NEW.state = 'claimed' AND OLD.state <> 'claimed'
  AND EXISTS (SELECT 1 FROM page_gate WHERE id = 1 AND closed = 1)
BEGIN SELECT RAISE(ABORT, 'page_gate_closed: the page changed: no send is claimed until a person resumes'); END;

-- Work mode seen in the page's own traffic (issue 35): the page's own POST after a granted
-- click went to a route that is not a chat conversation route. Recorded as the send's page
-- destination with that route (a template: ids and query dropped, never a body) and its
-- destination_mismatch sentence; NULL for a chat conversation request.
ALTER TABLE page_destinations ADD COLUMN route TEXT
  CHECK (route IS NULL OR length(route) BETWEEN 1 AND 256);
