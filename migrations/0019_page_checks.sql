-- 0019: checks of the page (issue 35, Check this page): the result of the page contract's
-- probes in a tab, as the extension sent it — asked by a person (the popup, the window,
-- `sendledger page-check`) or sent by a tab with a send it failed on a page fact (`op_id`).
-- Structure only (fact ids, states, what the page showed as counts, roles, test ids): never
-- a message's text. Shipped migrations are never edited; add a new file instead. The table
-- keeps its rowid: salvage reads every table one rowid at a time. Bounded: at most 256 rows
-- (the oldest go first), results at most 256 KiB each.
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
CREATE INDEX page_checks_tab ON page_checks(tab_id, checked_at);
CREATE INDEX page_checks_op ON page_checks(op_id) WHERE op_id IS NOT NULL;
