// Page reports (issue 35) for the browser suite and the replay: the test facts the suite
// defines in a tab (only here, never in the extension: the extension's own facts come from
// extension/contract/), the scan that every report must pass, and the folders of reports
// replayed (e2e/browser/replay-reports.mjs).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(here, '..', '..', '..');
/** The checked-in reports, and the shared ones when that folder exists. */
export const REPORT_DIRS = [
  path.join(REPO, 'tests', 'fixtures', 'page-reports'),
  process.env.SENDLEDGER_SHARED_FIXTURES
    ? path.join(process.env.SENDLEDGER_SHARED_FIXTURES, 'page-reports')
    : path.join(REPO, '..', 'shared', 'fixtures', 'chatgpt', 'page-reports'),
];

/**
 * Defines three test facts in the page contract of the world it runs in (a tab's content
 * script through chrome.scripting, or the replay's page): structure only, as a report can
 * carry it. Self-contained: it is serialised and run elsewhere.
 */
export function defineTestFacts() {
  const C = window.sendledgerContract;
  const seen = [{ source: 'e2e/browser/fake-chatgpt (the suite\'s test facts)', date: '2026-12-07' }];
  const base = { seen, signals: ['structure'] };
  const once = (id, def) => C.get(id) || C.fact({ id, ...base, ...def });
  once('composer.test_editable', {
    meaning: 'the composer: one contenteditable element with id prompt-textarea',
    needs: 'every',
    subject: 'a composer',
    probe: () => {
      const found = document.querySelectorAll('#prompt-textarea[contenteditable="true"]').length;
      return { state: found === 1 ? 'holds' : 'fails', shows: { found } };
    },
  });
  once('send_button.test_testid', {
    meaning: 'the send button: a button with data-testid send-button',
    needs: 'every',
    subject: 'a send button',
    probe: () => {
      const found = document.querySelectorAll('button[data-testid="send-button"]').length;
      return { state: found === 1 ? 'holds' : 'fails', shows: { found } };
    },
  });
  once('thread.test_turns', {
    meaning: 'the thread: turns with data-testid conversation-turn-N',
    needs: 'destination',
    subject: 'a thread',
    probe: () => {
      const turns = document.querySelectorAll('[data-testid^="conversation-turn-"]').length;
      return { state: turns ? 'holds' : 'unseen', shows: { turns } };
    },
  });
}

/** Ids and tokens by their look (the owner refuses the same in a page check). */
const ID_LIKE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-fA-F]{16,}|(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{24,}/;

/**
 * What a report must not hold: `secrets` (the send's text, the tokens, the ids, verbatim)
 * anywhere in its JSON, and any string or key that looks like an id or a token.
 * Returns the problems found, in words (none: `[]`).
 */
export function scanReport(report, secrets = []) {
  const text = JSON.stringify(report);
  const problems = secrets.filter((s) => s && text.includes(s)).map((s) => `holds a secret of the scenario (${s.length} characters, starting ${JSON.stringify(s.slice(0, 4))})`);
  const walk = (v, at) => {
    if (typeof v === 'string') {
      if (ID_LIKE.test(v)) problems.push(`a string that looks like an id or a token at ${at}`);
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}[${i}]`));
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (ID_LIKE.test(k)) problems.push(`a key that looks like an id or a token at ${at}`);
        walk(x, `${at}.${k}`);
      }
    }
  };
  walk(report, 'report');
  return problems;
}

/** Every report file of REPORT_DIRS: `[{file, report}]`. */
export function reportFiles() {
  const out = [];
  for (const dir of REPORT_DIRS) {
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
      const file = path.join(dir, name);
      out.push({ file, report: JSON.parse(fs.readFileSync(file, 'utf8')) });
    }
  }
  return out;
}
