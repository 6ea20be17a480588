// The replay of page reports (issue 35; docs/extension.md, "The page report"): every report
// under tests/fixtures/page-reports/ (and ../shared/fixtures/chatgpt/page-reports/ when that
// folder exists) is scanned — no text, no id, no token — and its page rebuilt from its
// layout snapshot in Debian's Chromium; the extension's page contract (the content scripts
// of manifest.json that need no extension API, and the suite's test facts) is run over it
// and must classify every fact the report recorded the same way (holds / fails / not seen
// yet). A report of a changed page is a failing fixture until the contract learns it.
//
//   node e2e/browser/replay-reports.mjs          every report
//   node e2e/browser/replay-reports.mjs FILE…    these reports
//
// scripts/test-browser.sh runs it first. Ends with `N passed, N failed`.

import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { chromium } from 'playwright-core';
import { CHROMIUM } from './lib/browser.mjs';
import { REPO, defineTestFacts, reportFiles, scanReport } from './lib/page-reports.mjs';

/** The content scripts a probe may use: the manifest's, less those that talk to the extension. */
function contractScripts() {
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'extension', 'manifest.json'), 'utf8'));
  const needsTheExtension = new Set(['content.js', 'artifacts.js', 'report.js']);
  const listed = manifest.content_scripts.find((c) => c.js.includes('contract/contract.js')).js;
  return listed.filter((f) => !needsTheExtension.has(f)).map((f) => path.join(REPO, 'extension', f));
}

const esc = (v) => String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const VOID = new Set(['input', 'img', 'br', 'hr', 'meta', 'link', 'source', 'area', 'wbr']);

/** HTML of a layout snapshot's nodes (`{depth, tag, …attributes}`, in document order). */
export function rebuild(layout) {
  const open = [];
  let html = '';
  const nodes = layout.root === 'body' ? layout.nodes.slice(1).map((n) => ({ ...n, depth: n.depth - 1 })) : layout.nodes;
  for (const n of nodes) {
    while (open.length && open.at(-1).depth >= n.depth) html += `</${open.pop().tag}>`;
    const attrs = Object.entries(n)
      .filter(([k]) => k !== 'depth' && k !== 'tag')
      .map(([k, v]) => (v === true ? ` ${k}` : ` ${k}="${esc(v)}"`))
      .join('');
    html += `<${n.tag}${attrs}>`;
    if (!VOID.has(n.tag)) open.push(n);
  }
  while (open.length) html += `</${open.pop().tag}>`;
  return `<!doctype html><html><head><meta charset="utf-8"></head><body>${html}</body></html>`;
}

/** Runs the contract over a report's rebuilt page: `{id: state}`. */
async function classify(context, report) {
  const html = rebuild(report.layout);
  await context.route('https://chatgpt.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: html }));
  const page = await context.newPage();
  try {
    const at = (report.layout.path || '/').replace(/<id>/g, () => randomUUID());
    await page.goto(`https://chatgpt.com${at}`);
    for (const file of contractScripts()) await page.addScriptTag({ content: fs.readFileSync(file, 'utf8') });
    await page.evaluate(`(${defineTestFacts.toString()})()`);
    const check = await page.evaluate(() => window.sendledgerContract.checkAll({ openPicker: false }));
    return Object.fromEntries(check.results.map((r) => [r.id, r.state]));
  } finally {
    await page.close();
    await context.unroute('https://chatgpt.com/**');
  }
}

/** The problems of one report: its scan, and every recorded fact classified otherwise now. */
async function replay(context, report) {
  const problems = scanReport(report);
  if (report.kind !== 'sendledger-page-report' || !report.layout || !report.check) return [...problems, 'not a sendledger page report'];
  const now = await classify(context, report);
  // A fact known by the page's traffic alone cannot be rebuilt from a layout: not replayed.
  const trafficOnly = new Set((report.contract || []).filter((f) => Array.isArray(f.signals) && f.signals.every((x) => x === 'traffic')).map((f) => f.id));
  for (const r of report.check.results.filter((x) => !trafficOnly.has(x.id))) {
    if (!(r.id in now)) problems.push(`${r.id}: recorded ${r.state}, but the contract no longer has this fact`);
    else if (now[r.id] !== r.state) problems.push(`${r.id}: recorded ${r.state}, the contract says ${now[r.id]} now`);
  }
  return problems;
}

async function main() {
  const chosen = process.argv.slice(2);
  const files = chosen.length ? chosen.map((f) => ({ file: f, report: JSON.parse(fs.readFileSync(f, 'utf8')) })) : reportFiles();
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  let passed = 0;
  let failed = 0;
  for (const { file, report } of files) {
    const name = path.relative(REPO, file);
    const problems = await replay(context, report).catch((e) => [`could not be replayed: ${e.message}`]);
    if (problems.length) {
      failed += 1;
      console.log(`FAIL ${name}\n     ${problems.join('\n     ')}`);
    } else {
      passed += 1;
      console.log(`ok   ${name} (${report.check.results.length} facts classified as recorded)`);
    }
  }
  await browser.close();
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) main();
