-- A remote stop may end without a click (the extension's reports): the tab found no stop
-- button, so nobody can say whether the answer stops (pending -> uncertain), or the tab
-- showed nothing being generated when the stop arrived (pending -> confirmed). A
-- confirmation is never invented: from pending it needs the tab's evidence, and evidence
-- made only of white space or invisible characters (tab, no-break and zero-width spaces,
-- byte-order mark: the set below) is none.
DROP TRIGGER remote_stops_legal_phases;
CREATE TRIGGER remote_stops_legal_phases BEFORE UPDATE OF phase ON remote_stops
WHEN NEW.phase <> OLD.phase AND NOT (
  (OLD.phase = 'pending' AND NEW.phase IN ('dispatched', 'uncertain'))
  OR (OLD.phase = 'pending' AND NEW.phase = 'confirmed'
      AND length(trim(coalesce(NEW.evidence, ''),
        char(9, 10, 11, 12, 13, 32, 133, 160, 5760, 8192, 8193, 8194, 8195, 8196, 8197,
             8198, 8199, 8200, 8201, 8202, 8203, 8204, 8205, 8232, 8233, 8239, 8287, 8288,
             12288, 65279))) > 0)
  OR (OLD.phase = 'dispatched' AND NEW.phase IN ('confirmed', 'uncertain')))
BEGIN SELECT RAISE(ABORT, 'illegal remote stop phase'); END;

-- A settled stop (confirmed or uncertain) is written once: a second report, even of the
-- same phase, changes neither its phase nor its evidence (the first report wins).
CREATE TRIGGER remote_stops_settled_once BEFORE UPDATE ON remote_stops
WHEN OLD.phase IN ('confirmed', 'uncertain')
BEGIN SELECT RAISE(ABORT, 'remote stop already settled'); END;
