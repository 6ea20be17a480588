-- 0020: a named API key's scope (issue 38). Shipped migrations are never edited; add a new
-- file instead.
--
-- scope: what the key opens.
--   'openai' the OpenAI-compatible doors only (/v1/models, /v1/chat/completions,
--            /v1/responses): what every key made before this migration opened, so an
--            existing key keeps exactly its meaning;
--   'send'   the doors, and the native API's and MCP's sends and reads (queue a send,
--            upload its files, read sends, the queue, status, a send's answer files):
--            no Stop, Resume, decision, withdrawal, settings, keys or pairing;
--   'all'    every client route, as the profile's client.token.
-- A key's scope is part of its identity: it never changes (make another key instead).
ALTER TABLE api_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'openai'
  CHECK (scope IN ('openai', 'send', 'all'));

CREATE TRIGGER api_keys_scope_immutable BEFORE UPDATE OF scope ON api_keys
WHEN NEW.scope IS NOT OLD.scope
BEGIN SELECT RAISE(ABORT, 'immutable: an api key''s scope never changes'); END;
