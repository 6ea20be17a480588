-- A remote stop may end without a click (issue 12's extension reports): the tab found no
-- stop button, so nobody can say whether the answer stops (pending -> uncertain), or the
-- tab showed nothing being generated when the stop arrived (pending -> confirmed). A
-- confirmation is never invented: from pending it needs the tab's evidence.
DROP TRIGGER remote_stops_legal_phases;
CREATE TRIGGER remote_stops_legal_phases BEFORE UPDATE OF phase ON remote_stops
WHEN NEW.phase <> OLD.phase AND NOT (
  (OLD.phase = 'pending' AND NEW.phase IN ('dispatched', 'uncertain'))
  OR (OLD.phase = 'pending' AND NEW.phase = 'confirmed'
      AND length(trim(coalesce(NEW.evidence, ''))) > 0)
  OR (OLD.phase = 'dispatched' AND NEW.phase IN ('confirmed', 'uncertain')))
BEGIN SELECT RAISE(ABORT, 'illegal remote stop phase'); END;
