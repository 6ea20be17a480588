-- 0015: conversation titles as the page names them (issue 27: the window says where a send
-- goes in words a person knows). Shipped migrations are never edited; add a new file
-- instead. The table keeps its rowid: salvage reads every table one rowid at a time.
--
-- conversation_titles: the `title` of the page's own read of a conversation
-- (`GET /backend-api/conversation/{id}`), forwarded by a tab. A title is the page's
-- words about the person's conversation: it lives here (the ledger, 0600) and in the
-- window, never in a log. Bounded: at most 1,000 rows (the least recently seen go
-- first), each title at most 200 characters.
CREATE TABLE conversation_titles (
  conversation_id TEXT PRIMARY KEY CHECK (length(conversation_id) BETWEEN 1 AND 128 AND conversation_id NOT LIKE 'WEB:%'),
  title TEXT NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  seen_at INTEGER NOT NULL
);
CREATE INDEX conversation_titles_seen ON conversation_titles(seen_at);
