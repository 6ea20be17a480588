// Check this page and the page report (issue 35), through the real extension in Chromium
// against the chatgpt.com fake: the popup's Check this page lists each fact (nothing typed,
// nothing sent), `sendledger page-check` asks the tab through the owner and names the fact a
// changed page fails, and every saved report — from the popup's download and from the CLI —
// holds no text, token or id and replays (replay-reports.mjs) to the same classification.
// The facts checked are the suite's test facts (lib/page-reports.mjs), defined in the tab.
//
// SENDLEDGER_WRITE_PAGE_REPORTS=1 also writes the reports into tests/fixtures/page-reports/
// (scripts/page-reports.sh).
//
// Registered by run.mjs: `reportScenarios({scenario, ready, fakeState, fakeConfig, conversation})`.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO, defineTestFacts, scanReport } from './lib/page-reports.mjs';

const FIXTURES = path.join(REPO, 'tests', 'fixtures', 'page-reports');

/** Defines the suite's test facts in every chatgpt.com tab's content script. */
async function defineFactsInTabs(w) {
  const worker = await w.worker();
  await worker.evaluate(`(async () => {
    const define = ${defineTestFacts.toString()};
    const tabs = await chrome.tabs.query({ url: 'https://chatgpt.com/*' });
    for (const t of tabs) await chrome.scripting.executeScript({ target: { tabId: t.id }, func: define });
  })()`);
}

/** The popup's check: `{summary, facts: {id: state}}`. */
async function checkInThePopup(popup) {
  await popup.reload();
  await popup.click('#check-page');
  await popup.waitForSelector('#check-summary[data-ok]', { timeout: 15_000 });
  const summary = await popup.locator('#check-summary').innerText();
  assert.equal(await popup.getAttribute('#check-summary', 'data-ok'), 'true', `the popup's check: ${summary}`);
  const facts = Object.fromEntries(await popup.$$eval('#check-results li', (lis) => lis.map((li) => [li.dataset.fact, li.dataset.state])));
  return { summary, facts };
}

/** Everything a report must not hold in this world: the text, the tokens, the ids. */
async function secretsOf(w, page, text, fakeState) {
  const worker = await w.worker();
  const { token } = await worker.evaluate(() => chrome.storage.local.get('token'));
  const session = await page.evaluate(() => fetch('/api/auth/session').then((r) => r.json()));
  const st = await fakeState();
  const ids = st.requests.flatMap((r) => [r.message_id, r.assistant_id, r.conversation_id]);
  return [text, token, fs.readFileSync(path.join(w.profile, 'client.token'), 'utf8').trim(), session.accessToken, ...ids].filter(Boolean);
}

/**
 * Scans, replays, and (when asked) keeps a report as a fixture. The replay runs as a child
 * without blocking this process, which also serves the fake page.
 */
async function proveReport(report, secrets, fixture) {
  assert.deepEqual(scanReport(report, secrets), [], 'the report holds no text, token or id');
  const file = path.join(os.tmpdir(), `sendledger-report-${process.pid}-${fixture}`);
  fs.writeFileSync(file, JSON.stringify(report, null, 2));
  try {
    await promisify(execFile)('node', [path.join(REPO, 'e2e', 'browser', 'replay-reports.mjs'), file], { encoding: 'utf8' });
  } catch (e) {
    assert.fail(`the report replays to the same classification: ${e.stdout}`);
  } finally {
    fs.rmSync(file, { force: true });
  }
  if (process.env.SENDLEDGER_WRITE_PAGE_REPORTS) fs.writeFileSync(path.join(FIXTURES, fixture), `${JSON.stringify(report, null, 2)}\n`);
}

/**
 * The changed-page modes whose report is kept as a fixture, each with a contract fact and the
 * state the check must give it: the page as a person would save it from the popup (no lease
 * needed).
 */
const CHANGED_PAGES = [
  { fixture: 'changed-no-composer.json', config: { layout: 'no-composer' }, fact: 'composer.present', state: 'fails' },
  // The send button shows only once the composer holds text: a check that types nothing cannot see it.
  { fixture: 'changed-no-send-button.json', config: { layout: 'no-send-button' }, fact: 'send_button.present', state: 'unseen' },
  { fixture: 'changed-surface-switch.json', config: { surface_switch: 'changed' }, fact: 'surface.chat', state: 'fails' },
];

/** The popup's saved report of the page as it is now. */
async function savedInThePopup(w) {
  await w.popup.reload();
  const [download] = await Promise.all([w.popup.waitForEvent('download', { timeout: 15_000 }), w.popup.click('#save-report')]);
  return JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
}

export function reportScenarios({ scenario, ready, fakeState, fakeConfig, conversation }) {
  for (const mode of CHANGED_PAGES) {
    scenario(`a_report_of_a_changed_page_names_its_fact_and_replays_${mode.fixture.replace(/^changed-|\.json$/g, '').replace(/-/g, '_')}`, async (w) => {
      await fakeConfig(mode.config);
      await w.startOwner();
      await w.startBrowser();
      await w.pair();
      // A changed page may never be leased (no composer): the tab is opened, not waited for.
      const page = await w.context.newPage();
      await page.goto(`https://chatgpt.com/c/${conversation()}`);
      await page.waitForSelector('html[data-fake-ready="true"]', { timeout: 15_000 });
      w.pages.push(page);
      const report = await savedInThePopup(w);
      const result = report.check.results.find((r) => r.id === mode.fact);
      assert.equal(result && result.state, mode.state, `the report gives ${mode.fact} ${mode.state}: ${JSON.stringify(report.check.results.map((r) => [r.id, r.state]))}`);
      await proveReport(report, await secretsOf(w, page, null, fakeState), mode.fixture);
      const st = await fakeState();
      assert.equal(st.clicks + st.enter_submits + st.posts, 0, 'nothing was clicked or sent');
    }, 'reports');
  }

  scenario('check_this_page_in_the_popup_lists_each_fact_and_types_nothing', async (w) => {
    const [page] = await ready(w);
    await defineFactsInTabs(w);
    const { summary, facts } = await checkInThePopup(w.popup);
    assert.equal(facts['composer.test_editable'], 'holds', `the composer holds: ${summary}`);
    assert.equal(facts['send_button.test_testid'], 'holds');
    assert.equal(facts['thread.test_turns'], 'unseen', 'a thread with no turn yet is not seen yet');
    const ms = Number((summary.match(/\((\d+) ms\)/) || [])[1]);
    console.log(`     figure: Check this page took ${ms} ms in the tab (3 facts, no picker)`);
    await w.screenshot(w.popup, '.popup-check');
    const st = await fakeState();
    assert.equal(st.clicks + st.enter_submits + st.posts, 0, 'nothing was clicked or sent');
    assert.equal(await page.locator('#prompt-textarea').textContent(), '', 'nothing was typed');
  }, 'reports');

  scenario('page_check_from_the_cli_names_the_fact_a_changed_page_fails', async (w) => {
    await fakeConfig({ layout: 'no-send-button' });
    const [page] = await ready(w);
    await defineFactsInTabs(w);
    const started = Date.now();
    const out = w.cli(['page-check']);
    console.log(`     figure: sendledger page-check answered in ${Date.now() - started} ms (CLI start, owner, the tab's long-poll, 3 facts)`);
    assert.match(out, /\d+ facts? holds?, 1 fails: send_button\.test_testid, \d+ not seen yet/, `the CLI names the fact (the only one failing): ${out}`);
    assert.match(out, /send_button\.test_testid\s+FAILS\s+\{"found":0\}/, 'with what the page showed');
    const { body } = await w.owner.request('GET', '/v1/page-checks');
    assert.deepEqual(body.page_checks[0].check.failing, ['send_button.test_testid'], 'the last check is kept for the tab');
    const file = path.join(w.profile, 'report.json');
    w.cli(['page-check', '--report', file]);
    const report = JSON.parse(fs.readFileSync(file, 'utf8'));
    await proveReport(report, await secretsOf(w, page, null, fakeState), 'fake-page-no-send-button.json');
    const st = await fakeState();
    assert.equal(st.clicks + st.enter_submits + st.posts, 0, 'nothing was clicked or sent');
  }, 'reports');

  scenario('a_saved_page_report_holds_no_text_token_or_id_and_replays', async (w) => {
    const [page] = await ready(w);
    const text = 'A sentence that must never reach a page report.';
    const op = await w.queue(text, { conversation_id: conversation() });
    await w.until(op, 'completed');
    await defineFactsInTabs(w);
    const secrets = [...(await secretsOf(w, page, text, fakeState)), op];
    await w.popup.reload();
    const [download] = await Promise.all([w.popup.waitForEvent('download', { timeout: 15_000 }), w.popup.click('#save-report')]);
    const saved = fs.readFileSync(await download.path(), 'utf8');
    const report = JSON.parse(saved);
    console.log(`     figure: a page report of the fake page after one send: ${saved.length} bytes, ${report.layout.nodes.length} nodes`);
    assert.equal(report.traffic.request.route, '/backend-api/f/conversation', 'the request as a route template');
    assert.ok(report.traffic.request.body.messages, `the request's shape: ${JSON.stringify(report.traffic.request.body)}`);
    assert.ok(report.traffic.stream.events.length > 0, 'the stream events as shapes');
    assert.equal(report.check.results.find((r) => r.id === 'thread.test_turns').state, 'holds');
    await proveReport(report, secrets, 'fake-page.json');
    const file = path.join(w.profile, 'report-cli.json');
    w.cli(['page-check', '--report', file]);
    assert.deepEqual(scanReport(JSON.parse(fs.readFileSync(file, 'utf8')), secrets), [], "the CLI's report too");
  }, 'reports');
}
