-- 0023: the profile's default destination, kept in the ledger (issue 37). Shipped
-- migrations are never edited; add a new file instead.
--
-- default_destinations: per site, where a send that names no place goes. Written by the
-- act that sets it (SetDefaultDestination, applied by the owner beside config.json) and by
-- the owner at start from config.json; read by the queue act inside its transaction, so a
-- send's admission reads only SQLite. No row: a new chat. `site` is the site's stored form
-- ('chatgpt', 'claude': a row per site). Same bounds as send_destinations (0011).
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
