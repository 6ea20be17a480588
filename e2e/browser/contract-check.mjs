// The page contract against its documentation and the page observer (issue 35), run by
// scripts/lint-js.sh (so CI runs it): the contract's files (extension/contract/*.js, in the
// manifest's order) are loaded into a vm with a tiny window shim, and
//   1. docs/extension.md's table under "The page contract" must be exactly the table made
//      from `sendledgerContract.list()` (id, meaning, needs, signals, seen);
//   2. page-observer.js (the page's world, which cannot read the contract) must use the
//      traffic facts' route patterns, as the same RegExp literals, and follow the hand-off
//      by the names the hand-off fact gives.
//
//   node e2e/browser/contract-check.mjs          check; exit 1 naming what differs
//   node e2e/browser/contract-check.mjs --write  write the table into docs/extension.md

import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (p) => fs.readFileSync(path.join(root, p), 'utf8');
const BEGIN = '<!-- contract-table: made by e2e/browser/contract-check.mjs --write; checked by scripts/lint-js.sh -->';
const END = '<!-- /contract-table -->';

/** The contract's facts as data, loaded as the manifest loads them (probes are not run). */
export function loadContract() {
  const manifest = JSON.parse(read('extension/manifest.json'));
  // Every site's facts (each site's entry lists contract.js first: loaded once here).
  const files = [...new Set(manifest.content_scripts.flatMap((c) => c.js).filter((f) => f.startsWith('contract/')))];
  const window = { addEventListener: () => {}, location: { pathname: '/', href: 'https://claude.ai/' } };
  window.window = window;
  const context = vm.createContext(window);
  for (const f of files) vm.runInContext(read(`extension/${f}`), context, { filename: f });
  return { files, contract: window.sendledgerContract };
}

const cell = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|');

/** The docs' table, made from the facts. */
export function table(facts) {
  const rows = facts.map((f) => [f.id, f.meaning, f.needs, f.signals.join(', '), f.seen.map((s) => `${s.source} (${s.date})`).join('; ')].map(cell));
  return ['| id | meaning | needs | signals | seen |', '| --- | --- | --- | --- | --- |', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

function main() {
  const { contract } = loadContract();
  const facts = contract.list();
  const problems = [];
  for (const f of facts) if (Buffer.byteLength(f.id) > 64) problems.push(`fact ${f.id}: its id is over 64 bytes`);
  const docsPath = 'docs/extension.md';
  const docs = read(docsPath);
  const [at, end] = [docs.indexOf(BEGIN), docs.indexOf(END)];
  const made = `${BEGIN}\n${table(facts)}\n${END}`;
  if (process.argv.includes('--write')) {
    if (at < 0 || end < at) throw new Error(`${docsPath}: put the two marker lines where the table goes:\n${BEGIN}\n${END}`);
    fs.writeFileSync(path.join(root, docsPath), docs.slice(0, at) + made + docs.slice(end + END.length));
    console.log(`contract-check: wrote the table of ${facts.length} facts into ${docsPath}`);
    return;
  }
  if (at < 0 || end < at) problems.push(`${docsPath} has no contract table (the markers are missing)`);
  else if (docs.slice(at, end + END.length) !== made) {
    const have = docs.slice(at, end).split('\n');
    const want = made.split('\n');
    const i = want.findIndex((line, n) => line !== have[n]);
    problems.push(`${docsPath}: the contract table differs from the contract at line ${i + 1} of the table:\n  docs:     ${have[i]}\n  contract: ${want[i]}\n  (run: node e2e/browser/contract-check.mjs --write)`);
  }
  const observer = read('extension/page-observer.js');
  for (const f of facts.filter((x) => x.routes && !Array.isArray(x.routes))) {
    for (const [name, source] of Object.entries(f.routes)) {
      if (!observer.includes(`/${source}/`)) problems.push(`page-observer.js does not use the route ${name} of fact ${f.id} (/${source}/)`);
    }
  }
  for (const f of facts.filter((x) => Array.isArray(x.observerNames))) {
    for (const name of f.observerNames) if (!observer.includes(`'${name}'`) && !observer.includes(`.${name}`)) problems.push(`page-observer.js does not follow ${name} of fact ${f.id}`);
  }
  if (problems.length) {
    for (const p of problems) console.error(`contract-check: ${p}`);
    process.exit(1);
  }
  console.log(`contract-check: ${facts.length} facts; the docs' table and page-observer.js's routes match the contract`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
