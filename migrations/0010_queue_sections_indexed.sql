-- 0010: every section of the queue window is read through an index of its own, so reading
-- the queue costs the same however long the history grows (issue 25: the view used to read
-- the newest 10,000 sends, and an older uncertain send fell out of it).
--   pending   queued/claimed/dispatched: sends_by_state (0001); accepted and waiting for its
--             answer: sends_awaiting_answer below (the sends_in_flight view's third arm)
--   uncertain sends_by_state (0001)
--   stopped   sends_by_state (0001)
--   history   sends_settled below, newest first, a page at a time
-- Shipped migrations are never edited; add a new file instead.
CREATE INDEX sends_awaiting_answer ON sends(seq)
  WHERE state = 'accepted' AND answered_at IS NULL AND answer_not_observed_at IS NULL;
CREATE INDEX sends_settled ON sends(seq)
  WHERE state IN ('accepted', 'completed', 'confirmed', 'abandoned', 'page_error');
-- The leases still live (the header's "is a tab leased", why a queued send waits).
CREATE INDEX leases_live ON leases(created_at) WHERE ended_at IS NULL;
