-- 0002: tool side effects admitted once per generation, with no per-call id.
-- This is the older schema that 0003 upgrades; kept so that ledgers written at
-- version 2 still open, and so the upgrade is tested on a real file.
CREATE TABLE tool_admissions (
  generation INTEGER PRIMARY KEY,
  admitted_at INTEGER NOT NULL,
  outcome TEXT
);
