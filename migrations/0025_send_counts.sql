-- How many sends are in each state, kept by triggers (issue 39: `sendledger status` and the
-- queue's counts read ten rows instead of counting a million). One row per state of
-- `send_states`; every insert, change of state and prune of a send moves its count in the
-- same transaction as the write, so a committed count is always the true one. Salvage
-- does not copy this table: it counts the sends it salvaged again (src/ledger/counts.rs).

CREATE TABLE send_counts (
  state TEXT PRIMARY KEY REFERENCES send_states(name),
  n INTEGER NOT NULL CHECK (n >= 0)
) WITHOUT ROWID;

INSERT INTO send_counts(state, n)
  SELECT name, (SELECT count(*) FROM sends WHERE sends.state = send_states.name) FROM send_states;

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
