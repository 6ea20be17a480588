-- 0014: the server refused the page's own conversation request (issue 27, page states).
-- A 429 Too Many Requests (or a 403, 431, 401, 400, 404, 413, 422) answering the very
-- POST the page made for a granted send means the server did not take the message: no
-- turn, no ids. The send is not uncertain; it ends as the page's error straight from
-- `dispatched`, with the page's words (or the status named) as evidence. Shipped
-- migrations are never edited; add a new file instead.

INSERT INTO send_edges(from_state, to_state) VALUES ('dispatched', 'page_error');

CREATE TRIGGER sends_refused_page_error_has_evidence BEFORE UPDATE OF state ON sends
WHEN NEW.state = 'page_error' AND OLD.state = 'dispatched'
  AND (NEW.evidence IS NULL OR length(trim(NEW.evidence)) = 0)
BEGIN SELECT RAISE(ABORT, 'evidence_required: a refused request needs the page''s answer as evidence'); END;
