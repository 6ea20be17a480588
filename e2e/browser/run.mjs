// The browser end-to-end suite: the real extension in Debian's Chromium (headless, fresh
// profile each scenario) against the local chatgpt.com fake, with a real
// `sendledger serve` child process as the owner. Each scenario is named after what it
// pins; a screenshot of the chat tab is saved after each into target/e2e-screenshots/browser/.
// The scenarios through the OpenAI and MCP doors, with their official SDKs, are in
// door-scenarios.mjs; where a send goes in destination-scenarios.mjs; page states in
// state-scenarios.mjs; a changed page (issue 35) in page-changed-scenarios.mjs; a send's files (issue 29) in attachment-scenarios.mjs, an answer's
// generated files in artifact-scenarios.mjs; eight tabs at once (issue 39) in tabs-scenarios.mjs;
// claude.ai as a second site (issue 36) in claude-scenarios.mjs.
//
//   node run.mjs                 every scenario
//   node run.mjs two_tabs text   the scenarios whose name contains one of the words
//   node run.mjs attachments     a group of scenarios (a send's files)
//
// Ends with `N passed, N failed` and exits non-zero when any failed.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { doorScenarios } from './door-scenarios.mjs';
import { destinationBench, destinationScenarios } from './destination-scenarios.mjs';
import { pageScenarios } from './page-scenarios.mjs';
import { stateScenarios } from './state-scenarios.mjs';
import { pageChangedScenarios } from './page-changed-scenarios.mjs';
import { attachmentScenarios } from './attachment-scenarios.mjs';
import { fileFlowScenarios } from './file-flow-scenarios.mjs';
import { artifactScenarios } from './artifact-scenarios.mjs';
import { reportScenarios } from './report-scenarios.mjs';
import { tabBench, tabScenarios } from './tabs-scenarios.mjs';
import { newChatScenarios } from './new-chat-scenarios.mjs';
import { startFake } from './fake-chatgpt/server.mjs';
import { startFakeClaude } from './fake-claude/server.mjs';
import { claudeScenarios } from './claude-scenarios.mjs';
import { selfSignedCert } from './lib/cert.mjs';
import { launch } from './lib/browser.mjs';
import { SENDLEDGER, startOwner } from './lib/owner.mjs';
import { execFileSync } from 'node:child_process';
import { waitFor } from './lib/wait.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
// SENDLEDGER_EXTENSION_DIR=/usr/share/sendledger/extension runs the suite against the
// folder the installed .deb ships (scripts/test-app.sh --deb installs it).
const EXTENSION = process.env.SENDLEDGER_EXTENSION_DIR || path.join(repo, 'extension');
/** The id the manifest's `key` gives the extension (docs/extension.md). */
const EXTENSION_ID = 'kpfmbaiknegibcaaopmjnbfkbmcdmhfi';
const SHOTS = path.join(repo, 'target', 'e2e-screenshots', 'browser');
const LOGS = path.join(repo, 'target', 'e2e-logs', 'browser');
fs.mkdirSync(SHOTS, { recursive: true });
fs.mkdirSync(LOGS, { recursive: true });

// Each scenario gets conversations of its own (the fake keeps conversations for its lifetime).
let CONV_A;
let CONV_B;
let CONV_C;
const newConversationId = () => {
  const u = randomUUID();
  return `${u.slice(0, 14)}8${u.slice(15)}`;
};

// ---------------------------------------------------------------- the fake, over its test routes

let fake;
let fakeClaude;
let fakeCert;
/** A call to the fake's test routes (`site` "claude": the claude.ai fake's), trusting its self-signed certificate only. */
function fakeCall(method, route, body, site = 'chatgpt') {
  const [port, servername] = site === 'claude' ? [fakeClaude.port, 'claude.ai'] : [fake.port, 'chatgpt.com'];
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, path: route, method, ca: fakeCert, servername },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve(JSON.parse(text)));
      },
    );
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}
const fakeState = () => fakeCall('GET', '/__test/state');
const fakeConfig = (c) => fakeCall('POST', '/__test/config', c);
const fakeRelease = () => fakeCall('POST', '/__test/release');
/** The raw bytes a test route answers (the blob store's copy of a file). */
function fakeBytes(route) {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: fake.port, path: route, method: 'GET', ca: fakeCert, servername: 'chatgpt.com' }, (res) => {
      const chunks = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${route}: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

// ---------------------------------------------------------------- one scenario's world

class World {
  constructor(name) {
    this.name = name;
    this.profile = fs.mkdtempSync(path.join(os.tmpdir(), 'sendledger-profile-'));
    fs.chmodSync(this.profile, 0o700);
    this.ownerLog = path.join(LOGS, `${name}.owner.log`);
    fs.writeFileSync(this.ownerLog, '');
    this.pages = [];
    this.console = [];
  }

  async startOwner(port = 0, args = this.ownerArgs || []) {
    this.ownerArgs = args;
    this.owner = await startOwner({ profile: this.profile, port, logFile: this.ownerLog, args });
    return this.owner;
  }

  async startBrowser() {
    this.browser = await launch({ fakePort: fake.port, extension: EXTENSION, blob: { host: fake.blobHost, port: fake.blobPort }, claudePort: fakeClaude.port });
    this.context = this.browser.context;
    return this.context;
  }

  /** The extension's service worker (Playwright's handle). */
  async worker() {
    const find = () => this.context.serviceWorkers().find((w) => w.url().startsWith(`chrome-extension://${EXTENSION_ID}/`));
    return find() || this.context.waitForEvent('serviceworker', { predicate: (w) => w.url().startsWith(`chrome-extension://${EXTENSION_ID}/`), timeout: 15_000 });
  }

  /** Pairs through the popup page, as a person would: address and code typed, Pair clicked. */
  async pair() {
    const { body } = await this.owner.request('POST', '/v1/pairing-code', {});
    assert.ok(body.code, `the owner gives a pairing code: ${JSON.stringify(body)}`);
    const popup = await this.context.newPage();
    await popup.goto(`chrome-extension://${EXTENSION_ID}/popup.html`);
    await popup.waitForFunction(() => document.getElementById('extension-id').textContent !== '');
    await popup.fill('#bridge-input', this.owner.address);
    await popup.fill('#code-input', body.code);
    await popup.click('#pair-button');
    await popup.waitForSelector('#pair-result[data-ok]', { timeout: 10_000 });
    const result = await popup.locator('#pair-result').innerText();
    assert.equal(await popup.getAttribute('#pair-result', 'data-ok'), 'true', `pairing in the popup: ${result}`);
    this.popup = popup;
    return popup;
  }

  /** Opens chatgpt.com (a conversation when `conversationId` is given) and waits for its lease. */
  async openChat(conversationId) {
    const before = await this.leaseCount();
    const page = await this.context.newPage();
    page.on('console', (m) => this.console.push(m.text()));
    await page.goto(conversationId ? `https://chatgpt.com/c/${conversationId}` : 'https://chatgpt.com/');
    await page.waitForSelector('html[data-fake-ready="true"]', { timeout: 15_000 });
    await waitFor(async () => (await this.leaseCount()) > before, { what: 'the tab to be leased', ms: 15_000 });
    this.pages.push(page);
    return page;
  }

  async leaseCount() {
    if (!this.owner) return 0;
    const { body } = await this.owner.request('GET', '/v1/status');
    return body.status ? body.status.lease_epochs.length : 0;
  }

  /** Runs `sendledger --profile <this profile> ARGS…` and returns its standard output. */
  cli(args) {
    return execFileSync(SENDLEDGER, ['--profile', this.profile, ...args], { encoding: 'utf8' });
  }

  async queue(text, extra = {}) {
    const r = await this.owner.request('POST', '/v1/sends', { text, ...extra });
    assert.equal(r.status, 201, `queueing answers 201: ${JSON.stringify(r.body)}`);
    return r.body.send.op_id;
  }

  async send(opId) {
    const r = await this.owner.request('GET', `/v1/sends/${opId}`);
    assert.equal(r.status, 200, `GET /v1/sends/${opId}: ${JSON.stringify(r.body)}`);
    return r.body;
  }

  /** Waits until the send is in `state` (one of them, when an array) and returns it. */
  async until(opId, state, ms = 20_000) {
    const states = [].concat(state);
    let last;
    await waitFor(
      async () => {
        last = (await this.send(opId)).send;
        return states.includes(last.state);
      },
      { ms, what: `send ${opId} to be ${states.join(' or ')}`, detail: () => this.diagnosis(last) },
    );
    return this.send(opId);
  }

  /** What the send, the fake and the extension say, for a failure message. */
  async diagnosis(send) {
    const st = await fakeState().catch((e) => ({ error: String(e) }));
    let ext = {};
    try {
      ext = await (await this.worker()).evaluate(() => chrome.storage.session.get(['connection', 'last_error', 'leases', 'observed', 'outcomes']));
    } catch (e) {
      ext = { error: String(e) };
    }
    const counts = { clicks: st.clicks, enter_submits: st.enter_submits, posts: st.posts, stop_clicks: st.stop_clicks, held: st.held };
    return `it is ${send && send.state} (${send && send.evidence}); fake ${JSON.stringify(counts)}; extension ${JSON.stringify(ext)}`;
  }

  async screenshot(page = this.pages[this.pages.length - 1], suffix = '') {
    if (!page || page.isClosed()) return;
    await page.screenshot({ path: path.join(SHOTS, `${this.name}${suffix}.png`) });
  }

  async close() {
    if (this.browser) await this.browser.close().catch(() => {});
    if (this.owner) await this.owner.kill('SIGTERM').catch(() => {});
    fs.rmSync(this.profile, { recursive: true, force: true });
  }
}

/** A world with an owner, a browser, the extension paired, and `tabs` chat tabs open. */
async function ready(w, { conversations = [CONV_A], ownerArgs = [] } = {}) {
  // A send that names no conversation goes to the profile's default destination (a new
  // chat until a person sets one): here the person chose the first tab's conversation.
  if (conversations[0]) {
    execFileSync(SENDLEDGER, ['--profile', w.profile, 'destination', 'set', 'conversation', conversations[0]]);
  }
  await w.startOwner(0, ownerArgs);
  await w.startBrowser();
  await w.pair();
  const pages = [];
  for (const c of conversations) pages.push(await w.openChat(c));
  return pages;
}

// ---------------------------------------------------------------- scenarios

const scenarios = [];
/** Registers a scenario; `group`: a word that also chooses it (`node run.mjs attachments`). */
const scenario = (name, fn, group = null) => scenarios.push({ name, fn, group });

scenario('a_send_completes_with_the_native_tuple_and_answer', async (w) => {
  await ready(w);
  const op = await w.queue('What is custody, in one sentence?', { conversation_id: CONV_A });
  const { send } = await w.until(op, 'completed');
  const st = await fakeState();
  assert.equal(st.clicks, 1, 'the send button was clicked exactly once');
  assert.equal(st.posts, 1, 'the page posted exactly one conversation request');
  const req = st.requests[0];
  assert.equal(req.text, 'What is custody, in one sentence?', 'the request carries the send text');
  assert.deepEqual(
    send.receipt,
    { conversation_id: CONV_A, user_message_id: req.message_id, turn_id: req.turn_exchange_id },
    'the receipt is the native tuple from the page traffic',
  );
  assert.equal(send.answer.message_id, req.assistant_id, 'the answer is the assistant message of that turn');
  assert.match(send.answer.text, /^Received 33 characters on the local chatgpt\.com test double \(delta v1 stream\)\./);
});

scenario('a_new_chat_send_completes_and_the_tab_binds_its_new_conversation', async (w) => {
  await w.startOwner();
  await w.startBrowser();
  await w.pair();
  const page = await w.openChat(null);
  const op = await w.queue('Start a new chat.');
  const { send } = await w.until(op, 'completed');
  const st = await fakeState();
  assert.equal(st.requests[0].text, 'Start a new chat.');
  assert.equal(send.receipt.conversation_id, st.requests[0].conversation_id, 'the conversation the server created');
  assert.equal(send.receipt.user_message_id, st.requests[0].message_id);
  await waitFor(() => page.url().endsWith(`/c/${send.receipt.conversation_id}`), { what: 'the page to show the new conversation' });
  const leased = await waitFor(
    async () => {
      const { leases = {} } = await (await w.worker()).evaluate(() => chrome.storage.session.get('leases'));
      return Object.values(leases).find((l) => l.conversation_id === send.receipt.conversation_id);
    },
    {
      what: 'the tab to lease its new conversation',
      detail: async () => JSON.stringify(await (await w.worker()).evaluate(() => chrome.storage.session.get(null))).slice(0, 3000),
    },
  );
  assert.ok(leased.epoch, 'a new lease, a new epoch');
  const next = await w.queue('A follow-up in that chat.', { conversation_id: send.receipt.conversation_id });
  await w.until(next, 'completed');
  assert.equal((await fakeState()).clicks, 2);
});

scenario('a_legacy_turn_without_a_turn_id_is_never_accepted_and_becomes_uncertain', async (w) => {
  // The legacy stream's user echo carries no turn_exchange_id, so the native tuple is
  // incomplete: the owner must not infer a receipt. After the receipt bound the send is
  // uncertain (a person decides), and it was clicked exactly once.
  await fakeConfig({ format: 'legacy' });
  await ready(w, { ownerArgs: ['--receipt-ms', '3000'] });
  const op = await w.queue('Answer in the old format, please.', { conversation_id: CONV_A });
  const { send } = await w.until(op, 'uncertain', 30_000);
  const st = await fakeState();
  assert.equal(st.requests[0].format, 'legacy', 'the fake answered with full snapshots');
  assert.equal(send.receipt, null, 'no receipt without the turn id');
  assert.equal(send.answer, null, 'no answer settles a send that was never accepted');
  assert.match(send.evidence, /no receipt within 3000 ms/);
  assert.equal(st.clicks, 1, 'clicked once, and never again');
});

scenario('a_turn_handed_off_to_the_websocket_completes_the_send', async (w) => {
  await fakeConfig({ format: 'handoff' });
  await ready(w);
  const op = await w.queue('A long answer over the socket.', { conversation_id: CONV_A });
  const { send } = await w.until(op, 'completed');
  const st = await fakeState();
  assert.equal(st.requests[0].format, 'handoff', 'the HTTP stream ended with stream_handoff');
  assert.deepEqual(send.receipt, {
    conversation_id: CONV_A,
    user_message_id: st.requests[0].message_id,
    turn_id: st.requests[0].turn_exchange_id,
  });
  assert.equal(send.answer.message_id, st.requests[0].assistant_id, 'the answer came over the WebSocket');
  assert.match(send.answer.text, /\(websocket stream\)/);
  assert.equal(st.clicks, 1);
});

scenario('text_reaches_the_conversation_request_exactly', async (w) => {
  await ready(w);
  const texts = [
    'Emoji: 🙂👍🏽 and a family 👨‍👩‍👧‍👦, a flag 🇯🇵, combining é (e\u0301).',
    'CJK: 漢字と仮名まじり文、한국어 문장, 中文句子。',
    'RTL: שלום עולם — مرحبا بالعالم (mixed with LTR 123).',
    'Line breaks:\nsecond line\n\nafter an empty line\n  indented line\ttab\ntrailing spaces   \n',
    '\nStarts with a line break, ends with two.\n\n',
  ];
  const ops = [];
  for (const text of texts) ops.push(await w.queue(text, { conversation_id: CONV_A }));
  for (const op of ops) await w.until(op, 'completed', 30_000);
  const st = await fakeState();
  assert.deepEqual(
    st.requests.map((r) => r.text),
    texts,
    'each conversation request carries exactly its send text, in order, nothing doubled, dropped or reordered',
  );
  assert.equal(st.clicks, texts.length, 'one click per send');
  assert.equal(st.enter_submits, 0, 'no Enter key ever submitted the turn');
  assert.equal(st.posts, texts.length, 'one request per send');
});

scenario('owner_killed_after_the_grant_leaves_the_send_uncertain_and_clicked_once', async (w) => {
  await fakeConfig({ hold: 'response' });
  await ready(w);
  const port = w.owner.port;
  const op = await w.queue('Sent once, then the owner dies.', { conversation_id: CONV_A });
  await waitFor(async () => (await fakeState()).clicks === 1, { what: 'the granted click' });
  assert.equal((await w.send(op)).send.state, 'dispatched', 'the click came after the dispatch commit');
  await w.owner.kill('SIGKILL');
  await w.startOwner(port);
  const after = (await w.send(op)).send;
  assert.equal(after.state, 'uncertain', 'recovery makes a dispatched send uncertain, never queued again');
  // The page's answer arrives now: the receipt is reobserved, which accepts the send
  // without granting it again.
  await fakeConfig({ hold: false });
  await fakeRelease();
  await w.until(op, ['accepted', 'completed']);
  const second = await w.queue('The next send still goes out.', { conversation_id: CONV_A });
  await w.until(second, 'completed');
  const st = await fakeState();
  assert.equal(st.clicks, 2, 'the uncertain send was clicked once in all; the second once');
  assert.deepEqual(
    st.requests.map((r) => r.text),
    ['Sent once, then the owner dies.', 'The next send still goes out.'],
    'the uncertain send never went out again',
  );
});

scenario('stop_with_three_queued_clicks_none_of_them', async (w) => {
  await fakeConfig({ hold: 'answer' });
  await ready(w);
  const first = await w.queue('The one already sent.', { conversation_id: CONV_A });
  await w.until(first, 'accepted');
  const queued = [];
  for (const n of [1, 2, 3]) queued.push(await w.queue(`Queued behind it, number ${n}.`, { conversation_id: CONV_A }));
  const stop = await w.owner.request('POST', '/v1/stop', { by: 'e2e' });
  assert.equal(stop.status, 200, JSON.stringify(stop.body));
  assert.deepEqual([...stop.body.stop.stopped].sort(), [...queued].sort(), 'Stop moved the three queued sends to stopped');
  assert.deepEqual(stop.body.stop.remote_stops, [first], 'the clicked one gets a remote stop');
  for (const op of queued) assert.equal((await w.send(op)).send.state, 'stopped');
  await waitFor(async () => (await fakeState()).stop_clicks === 1, {
    what: "the page's stop button to be clicked",
    detail: async () => w.diagnosis((await w.send(first)).send),
  });
  await waitFor(async () => (await w.owner.request('GET', '/v1/status')).body.status.remote_stops_open === 0, {
    what: 'the remote stop to be confirmed',
  });
  const st = await fakeState();
  assert.equal(st.clicks, 1, 'none of the three was clicked');
  assert.equal(st.posts, 1, 'none of the three reached the page');
  for (const op of queued) assert.equal((await w.send(op)).send.state, 'stopped');
});

scenario('a_tab_showing_another_conversation_clicks_no_stop_and_does_not_spin_until_it_shows_the_send_again', async (w) => {
  // The person opens another conversation (no reload) while the send's answer generates:
  // the tab's stop button would stop that one. The tab must click nothing, ask for remote
  // stops no faster than its long-poll's pace while the stop waits, and click it once the
  // tab shows the send's conversation again.
  await fakeConfig({ hold: 'answer' });
  const [page] = await ready(w);
  const first = await w.queue('Answered while the tab moves away.', { conversation_id: CONV_A });
  await w.until(first, 'accepted');
  await page.evaluate((c) => history.pushState({}, '', `/c/${c}`), CONV_B);
  const worker = await w.worker();
  await worker.evaluate(() => {
    self.remoteStopPolls = 0;
    const f = self.fetch;
    self.fetch = (...a) => {
      // The long-poll of a generating tab, in the worker's one poll for all tabs (a poll
      // naming a lease in `stop_lease_ids`; the send loop's own checks ask with no wait).
      const body = a[1] && typeof a[1].body === 'string' ? a[1].body : '';
      if (String(a[0]).includes('/v1/ext/next') && body.includes('"stop_lease_ids":["')) self.remoteStopPolls += 1;
      return f(...a);
    };
  });
  const polls = () => worker.evaluate(() => self.remoteStopPolls);
  const stop = await w.owner.request('POST', '/v1/stop', { by: 'e2e' });
  assert.deepEqual(stop.body.stop.remote_stops, [first], 'the clicked send gets a remote stop');
  await waitFor(async () => (await polls()) >= 1, { what: 'the tab to ask for remote stops after the Stop' });
  const before = await polls();
  await new Promise((r) => setTimeout(r, 3_000));
  const spun = (await polls()) - before;
  assert.ok(spun <= 1, `the tab long-polled ${spun} times in 3 s for a stop it cannot click (at most once per 5 s while the page stays as it is)`);
  assert.equal((await fakeState()).stop_clicks, 0, "no stop was clicked on another conversation's answer");
  await page.evaluate((c) => history.pushState({}, '', `/c/${c}`), CONV_A);
  await waitFor(async () => (await fakeState()).stop_clicks === 1, {
    what: "the stop to be clicked once the tab shows the send's conversation again",
    ms: 15_000,
  });
  await waitFor(async () => (await w.owner.request('GET', '/v1/status')).body.status.remote_stops_open === 0, {
    what: 'the remote stop to be confirmed',
  });
});

scenario('a_tab_that_moves_away_while_the_stop_is_recorded_clicks_nothing_and_says_so', async (w) => {
  // The person opens another conversation in the moment between the tab recording
  // `dispatched` and its click: the click would stop that other answer.
  await fakeConfig({ hold: 'answer' });
  const [page] = await ready(w);
  const first = await w.queue('Answered while the stop is being recorded.', { conversation_id: CONV_A });
  await w.until(first, 'accepted');
  const worker = await w.worker();
  await worker.evaluate(() => {
    const f = self.fetch;
    self.heldDispatch = null;
    self.phases = [];
    self.fetch = (...a) => {
      const body = a[1] && typeof a[1].body === 'string' ? a[1].body : '';
      if (String(a[0]).includes('/v1/ext/remote-stops/')) self.phases.push(JSON.parse(body));
      if (String(a[0]).includes('/v1/ext/remote-stops/') && body.includes('"dispatched"')) {
        return new Promise((resolve) => {
          self.heldDispatch = () => resolve(f(...a));
        });
      }
      return f(...a);
    };
  });
  const stop = await w.owner.request('POST', '/v1/stop', { by: 'e2e' });
  assert.deepEqual(stop.body.stop.remote_stops, [first]);
  await waitFor(() => worker.evaluate(() => self.heldDispatch !== null), { what: 'the tab to record dispatched' });
  await page.evaluate((c) => history.pushState({}, '', `/c/${c}`), CONV_B);
  await worker.evaluate(() => self.heldDispatch());
  await waitFor(async () => (await w.owner.request('GET', '/v1/status')).body.status.remote_stops_open === 0, {
    what: 'the remote stop to be settled',
  });
  assert.equal((await fakeState()).stop_clicks, 0, "no stop was clicked on another conversation's answer");
  const phases = await worker.evaluate(() => self.phases.map((p) => [p.phase, p.evidence || null]));
  assert.deepEqual(phases, [
    ['dispatched', null],
    ['uncertain', 'the tab moved to another conversation before the stop button was clicked; nothing was clicked'],
  ], 'the tab says what it did not do');
});

/**
 * The first answer is held and stops holding the queue after 1 s, so a second send is
 * handed to the tab (claimed) while the page is still generating; the tab waits for the
 * answer to end before it asks for the second's grant. Returns the page and both ids.
 */
async function secondClaimedWhileFirstAnswers(w, secondText) {
  await fakeConfig({ hold: 'answer' });
  const [page] = await ready(w, { ownerArgs: ['--answer-ms', '1000'] });
  const first = await w.queue('Answered slowly.', { conversation_id: CONV_A });
  await w.until(first, 'accepted');
  const second = await w.queue(secondText, { conversation_id: CONV_A });
  await w.until(second, 'claimed');
  return { page, first, second };
}

/** Lets the held answer end; resolves with what the tab then did with `op` (its outcome). */
async function tabActsOn(w, op) {
  await fakeConfig({ hold: false });
  await fakeRelease();
  return waitFor(
    async () => {
      const { outcomes = [] } = await (await w.worker()).evaluate(() => chrome.storage.session.get('outcomes'));
      return outcomes.find((o) => o.op_id === op && o.outcome !== 'asking_grant');
    },
    { what: `the tab to act on ${op}`, ms: 30_000 },
  );
}

scenario('a_refused_grant_clears_the_composer_and_clicks_nothing', async (w) => {
  // Stop comes while the tab holds the second send: when it asks for the grant, it is refused.
  const { page, second } = await secondClaimedWhileFirstAnswers(w, 'Handed out, then fenced by Stop.');
  const stop = await w.owner.request('POST', '/v1/stop', { by: 'e2e' });
  assert.deepEqual(stop.body.stop.stopped, [second], 'Stop fenced the claimed send');
  const acted = await tabActsOn(w, second);
  await waitFor(async () => (await page.locator('#prompt-textarea').textContent()) === '' && !(await page.locator('button[data-testid="stop-button"]').isVisible()), {
    what: 'the page to be idle with an empty composer',
  });
  const st = await fakeState();
  assert.equal(st.clicks, 1, 'the refused send was not clicked');
  assert.equal(st.posts, 1, 'the refused send never reached the page');
  assert.equal(acted.outcome, 'refused', 'the tab typed it, asked for the grant and was refused');
  assert.equal((await w.send(second)).send.state, 'stopped');
});

scenario('a_send_withdrawn_while_its_tab_holds_it_is_never_clicked_and_the_next_goes_out', async (w) => {
  // A person withdraws the one send instead of pressing Stop: its grant is refused, the
  // composer is cleared, and with the gate still open the next send goes out.
  const { page, second } = await secondClaimedWhileFirstAnswers(w, 'Handed out, then withdrawn by a person.');
  const taken = await w.owner.request('POST', `/v1/sends/${second}/withdraw`, { by: 'e2e' });
  assert.equal(taken.status, 200, JSON.stringify(taken.body));
  assert.equal(taken.body.send.state, 'stopped');
  const acted = await tabActsOn(w, second);
  assert.equal(acted.outcome, 'refused', 'the tab asked for the grant and was refused');
  const third = await w.queue('Goes out after the withdrawn one.', { conversation_id: CONV_A });
  await w.until(third, 'completed');
  const st = await fakeState();
  assert.equal(st.clicks, 2, 'the withdrawn send was never clicked');
  assert.deepEqual(st.requests.map((r) => r.text), ['Answered slowly.', 'Goes out after the withdrawn one.'],
    'only the first and the third reached the page');
  assert.equal(await page.locator('#prompt-textarea').textContent(), '', 'the composer holds no leftover text');
  assert.equal((await w.send(second)).send.state, 'stopped');
});

scenario('a_draft_in_the_composer_rejects_the_send_and_stays_untouched', async (w) => {
  const [page] = await ready(w);
  await page.click('#prompt-textarea');
  await page.keyboard.type('my own half-written draft');
  const op = await w.queue('This must not mix with the draft.', { conversation_id: CONV_A });
  const { send } = await w.until(op, 'rejected');
  assert.match(send.evidence, /the composer is not empty: send or clear the draft/, 'the sentence a person can act on');
  assert.equal(send.dispatched_at, null, 'never dispatched');
  assert.equal(await page.locator('#prompt-textarea').textContent(), 'my own half-written draft', "the person's draft is untouched");
  const st = await fakeState();
  assert.equal(st.clicks + st.enter_submits + st.posts, 0, 'nothing was clicked or submitted');
});

scenario('missing_send_button_rejects_before_dispatch_with_the_layout_sentence', async (w) => {
  await fakeConfig({ layout: 'no-send-button' });
  const [page] = await ready(w);
  const op = await w.queue('This cannot be sent.', { conversation_id: CONV_A });
  const { send, timeline } = await w.until(op, 'rejected');
  assert.ok(send.dispatched_at === null, 'no dispatch was ever committed');
  assert.match(send.evidence, /send button not found: chatgpt\.com layout changed/, 'the sentence a person can act on');
  assert.ok(!timeline.some((e) => e.to === 'dispatched'), 'the timeline has no dispatch');
  const st = await fakeState();
  assert.equal(st.clicks + st.enter_submits + st.posts, 0, 'nothing was clicked or submitted');
  assert.equal(await page.locator('#prompt-textarea').textContent(), '', 'the composer was cleared');
  await w.popup.reload();
  await w.popup.waitForSelector('#snapshot-details:not([hidden])');
  const summary = await w.popup.locator('#snapshot-summary').innerText();
  assert.match(summary, /send button missing/, 'the popup shows the layout snapshot');
  const snapshot = await w.popup.locator('#snapshot').innerText();
  assert.ok(!snapshot.includes('This cannot be sent'), 'the snapshot carries no text');
  await w.screenshot(w.popup, '.popup');
});

scenario('two_tabs_take_one_send_at_a_time', async (w) => {
  await fakeConfig({ hold: 'answer' });
  const [pageA, pageB] = await ready(w, { conversations: [CONV_A, CONV_B] });
  // The second is queued once the first is out: queued together, either tab may claim
  // first (whichever long-poll the owner wakes first), and the test would wait on the wrong one.
  const a = await w.queue('For the first tab.', { conversation_id: CONV_A });
  await w.until(a, 'accepted');
  const b = await w.queue('For the second tab.', { conversation_id: CONV_B });
  assert.equal((await w.send(b)).send.state, 'queued', 'the second waits while the first is answered');
  await fakeRelease();
  await w.until(a, 'completed');
  await w.until(b, 'accepted');
  await fakeRelease();
  await w.until(b, 'completed');
  const st = await fakeState();
  assert.deepEqual(st.requests.map((r) => [r.conversation_id, r.text]), [
    [CONV_A, 'For the first tab.'],
    [CONV_B, 'For the second tab.'],
  ]);
  assert.deepEqual(st.requests.map((r) => r.concurrent), [0, 0], 'no request arrived while another answer was being written');
  const tA = (await w.send(a)).timeline;
  const tB = (await w.send(b)).timeline;
  const completedA = tA.find((e) => e.to === 'completed').at;
  const claimedB = tB.find((e) => e.to === 'claimed').at;
  assert.ok(claimedB >= completedA, 'the second was claimed only after the first completed');
  await w.screenshot(pageA, '.tab-a');
  await w.screenshot(pageB, '.tab-b');
});

scenario('two_tabs_in_two_conversations_are_in_flight_at_once_never_two_in_one_and_stop_fences_both', async (w) => {
  // Issue 27: one send in flight per conversation, under the profile's cap. Each tab
  // already shows its send's conversation (navigating a tab there is another part). A
  // second tab on conversation A, and a cap of 3, leave only the conversation rule to
  // keep a2 back while a1 is in flight.
  await fakeConfig({ hold: 'answer' });
  execFileSync(SENDLEDGER, ['--profile', w.profile, 'max-in-flight', '3']);
  const [pageA, pageB] = await ready(w, { conversations: [CONV_A, CONV_B, CONV_A] });
  const a1 = await w.queue('First for A.', { conversation_id: CONV_A });
  const b1 = await w.queue('First for B.', { conversation_id: CONV_B });
  const a2 = await w.queue('Second for A.', { conversation_id: CONV_A });
  await w.until(a1, 'accepted');
  await w.until(b1, 'accepted');
  // Both answers are held by the page: two sends in flight at the same moment.
  let st = await fakeState();
  assert.equal(st.held, 2, 'both answers are being written at once');
  assert.equal((await w.send(a2)).send.state, 'queued', 'a2 waits: a1 is in flight in conversation A');
  assert.match((await w.send(a2)).waiting || '', /same conversation/, 'a2 says why it waits');
  const perConversation = (requests) => requests.reduce((m, r) => ({ ...m, [r.conversation_id]: (m[r.conversation_id] || 0) + 1 }), {});
  assert.deepEqual(perConversation(st.requests), { [CONV_A]: 1, [CONV_B]: 1 }, "one POST in each conversation");
  assert.equal(Math.max(...st.requests.map((r) => r.concurrent)), 1, 'the second POST arrived while the first answer was being written');
  await w.screenshot(pageA, '.tab-a');
  await w.screenshot(pageB, '.tab-b');
  // Stop fences both tabs at once: a2 is stopped, and each tab stops its own answer.
  const stop = await w.owner.request('POST', '/v1/stop', { by: 'e2e' });
  assert.equal(stop.status, 200, JSON.stringify(stop.body));
  assert.deepEqual(stop.body.stop.stopped, [a2], 'the queued one is stopped');
  assert.deepEqual([...stop.body.stop.remote_stops].sort(), [a1, b1].sort(), 'both clicked sends get a remote stop');
  await waitFor(async () => (await fakeState()).stop_clicks === 2, {
    what: "each tab to click its page's stop button",
    detail: async () => w.diagnosis((await w.send(b1)).send),
  });
  st = await fakeState();
  assert.equal(st.clicks, 2, 'two clicks in all');
  assert.deepEqual(perConversation(st.requests), { [CONV_A]: 1, [CONV_B]: 1 }, 'never two in one conversation');
  assert.equal((await w.send(a2)).send.state, 'stopped');
});

scenario('service_worker_stopped_mid_send_sends_no_duplicate', async (w) => {
  await fakeConfig({ hold: 'answer' });
  await ready(w);
  const op = await w.queue('Sent while the worker restarts.', { conversation_id: CONV_A });
  await w.until(op, 'accepted');
  await stopServiceWorker(w);
  await fakeConfig({ hold: false });
  await fakeRelease();
  await w.until(op, 'completed');
  // Stopped again while idle (its long-poll in flight): the next send still goes out once.
  await stopServiceWorker(w);
  const second = await w.queue('Sent after another restart.', { conversation_id: CONV_A });
  await w.until(second, 'completed');
  const st = await fakeState();
  assert.equal(st.clicks, 2, 'one click per send');
  assert.deepEqual(st.requests.map((r) => r.text), ['Sent while the worker restarts.', 'Sent after another restart.']);
});

scenario('service_worker_stopped_during_the_grant_clicks_nothing', async (w) => {
  // The grant's answer is lost: the owner is frozen (SIGSTOP) while the tab asks for it,
  // and the worker carrying the request is stopped. The tab must not click, and must say so.
  await fakeConfig({ hold: 'answer' });
  const [page] = await ready(w, { ownerArgs: ['--answer-ms', '1000'] });
  const first = await w.queue('Answered slowly, again.', { conversation_id: CONV_A });
  await w.until(first, 'accepted');
  const second = await w.queue('Its grant answer gets lost.', { conversation_id: CONV_A });
  await w.until(second, 'claimed');
  const outcomes = async () => (await (await w.worker()).evaluate(() => chrome.storage.session.get('outcomes'))).outcomes || [];
  w.owner.signal('SIGSTOP');
  try {
    await fakeConfig({ hold: false });
    await fakeRelease();
    await waitFor(async () => (await outcomes()).some((o) => o.op_id === second && o.outcome === 'asking_grant'), {
      what: 'the tab to ask for the grant',
    });
    await stopServiceWorker(w);
    await waitFor(async () => (await outcomes()).some((o) => o.op_id === second && o.outcome !== 'asking_grant'), {
      what: 'the tab to give up on the lost answer',
    });
  } finally {
    w.owner.signal('SIGCONT');
  }
  const acted = (await outcomes()).filter((o) => o.op_id === second).pop();
  assert.equal(acted.outcome, 'grant_answer_lost', 'the tab knows the answer was lost');
  const { send } = await w.until(second, ['uncertain', 'rejected']);
  assert.match(send.evidence, /the send button was not clicked/, 'the evidence says nothing was clicked');
  const st = await fakeState();
  assert.equal(st.clicks, 1, 'only the first send was clicked');
  assert.equal(st.posts, 1);
  assert.equal(await page.locator('#prompt-textarea').textContent(), '', 'the composer was cleared');
});

scenario('the_page_never_holds_the_token_and_logs_no_text', async (w) => {
  const [page] = await ready(w);
  const text = 'A private sentence that must stay in the ledger.';
  const op = await w.queue(text, { conversation_id: CONV_A });
  await w.until(op, 'completed');
  const token = (await w.worker().then((sw) => sw.evaluate(() => chrome.storage.local.get('token')))).token;
  assert.ok(token, 'the extension holds a token');
  const pageStorage = await page.evaluate(() => JSON.stringify({ l: { ...localStorage }, s: { ...sessionStorage }, c: document.cookie }));
  assert.ok(!pageStorage.includes(token), 'the token is not in page storage');
  assert.ok(!pageStorage.includes(text), 'the text is not in page storage');
  const html = await page.content();
  assert.ok(!html.includes(token), 'the token is not in the page');
  const session = await w.worker().then((sw) => sw.evaluate(() => chrome.storage.session.get(null)));
  assert.ok(!JSON.stringify(session).includes(text), 'the text is not in extension session storage');
  assert.ok(!w.console.some((line) => line.includes(text) || line.includes(token)), 'the console shows neither');
  const log = fs.readFileSync(w.ownerLog, 'utf8');
  assert.ok(!log.includes(text), "the owner's log does not carry the text");
});

// ---------------------------------------------------------------- when the page says no (issue 12)

scenario('an_error_turn_ends_the_send_page_error_with_the_pages_words_and_the_next_goes_out', async (w) => {
  await fakeConfig({ error: 'stream' });
  const [page] = await ready(w);
  const op = await w.queue('This turn ends in an error.', { conversation_id: CONV_A });
  const { send, timeline } = await w.until(op, 'page_error');
  assert.equal(send.evidence, 'the page answered with an error: Something went wrong while writing the reply. Ask again in a moment.');
  assert.ok(send.receipt, 'received: the page gave it its ids');
  assert.deepEqual([timeline.at(-1).from, timeline.at(-1).to], ['accepted', 'page_error']);
  await page.waitForSelector('[data-testid="conversation-error"]');
  await fakeConfig({ error: false });
  const next = await w.queue('The next send goes out at once.', { conversation_id: CONV_A });
  await w.until(next, 'completed');
  const st = await fakeState();
  assert.equal(st.clicks, 2, 'one click each, the errored one never again');
});

scenario('an_error_the_page_shows_only_in_the_tab_ends_the_send_page_error', async (w) => {
  await fakeConfig({ error: 'dom' });
  await ready(w);
  const op = await w.queue('The page shows its error, the stream says nothing.', { conversation_id: CONV_A });
  const { send } = await w.until(op, 'page_error');
  assert.equal(send.evidence, 'the page answered with an error: Something went wrong. If this keeps happening, contact the test double.');
  assert.equal((await fakeState()).clicks, 1);
});

scenario('a_usage_limit_holds_the_queue_says_until_when_and_a_resume_opens_it', async (w) => {
  await fakeConfig({ error: 'limit' });
  await ready(w);
  const first = await w.queue('This one meets the usage limit.', { conversation_id: CONV_A });
  const { send } = await w.until(first, 'page_error');
  assert.match(send.evidence, /^the page answered with its usage limit: You have used up the usage limit/);
  await fakeConfig({ error: false });
  const second = await w.queue('This one waits for the limit.', { conversation_id: CONV_A });
  await new Promise((r) => setTimeout(r, 2_000));
  const shown = await w.send(second);
  assert.equal(shown.send.state, 'queued', 'nothing more is clicked into the account');
  assert.match(shown.waiting, /^ChatGPT usage limit: sending resumes at (\w+ )?23:59/);
  const { body } = await w.owner.request('GET', '/v1/status');
  assert.equal(body.status.waiting_sentence, shown.waiting, 'status says the same');
  assert.equal((await fakeState()).clicks, 1);
  const r = await w.owner.request('POST', '/v1/resume', { by: 'e2e' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  await w.until(second, 'completed');
  assert.equal((await fakeState()).clicks, 2);
});

scenario('a_hand_off_in_array_frames_completes_the_send', async (w) => {
  await fakeConfig({ format: 'handoff', frames: 'array' });
  await ready(w);
  const op = await w.queue('A long answer in array frames.', { conversation_id: CONV_A });
  const { send } = await w.until(op, 'completed');
  const st = await fakeState();
  assert.equal(st.requests[0].format, 'handoff');
  assert.equal(send.answer.message_id, st.requests[0].assistant_id, 'the answer came over the WebSocket in arrays');
  assert.match(send.answer.text, /\(websocket stream\)/);
  assert.equal(st.clicks, 1);
});

scenario('hand_off_frames_mixing_two_conversations_complete_the_send_with_its_own_answer', async (w) => {
  await fakeConfig({ format: 'handoff', frames: 'mixed' });
  await ready(w);
  const op = await w.queue('A long answer while another tab gets one.', { conversation_id: CONV_A });
  const { send, timeline } = await w.until(op, 'completed');
  const st = await fakeState();
  assert.equal(st.requests[0].format, 'handoff');
  assert.equal(send.answer.message_id, st.requests[0].assistant_id, 'its own answer, not the other conversation\'s');
  assert.match(send.answer.text, /^Received 41 characters/);
  const notes = (timeline || []).filter((e) => e.kind === 'note').map((e) => e.evidence || '');
  assert.ok(notes.every((n) => !n.includes('not understood')), JSON.stringify(notes));
  assert.equal(st.clicks, 1);
});

scenario('an_answer_cut_by_a_reload_is_picked_up_when_the_tab_shows_the_conversation_again', async (w) => {
  await fakeConfig({ hold: 'answer' });
  const [page] = await ready(w);
  const op = await w.queue('Answer me while I reload.', { conversation_id: CONV_A });
  await w.until(op, 'accepted');
  // F5 while the answer streams: the page's read of the stream is cut.
  await page.reload();
  await page.waitForSelector('html[data-fake-ready="true"]', { timeout: 15_000 });
  // The server writes the rest of the answer into the conversation, which the tab no
  // longer reads: the send keeps waiting, accepted.
  await fakeConfig({ hold: false });
  await fakeRelease();
  assert.equal((await w.send(op)).send.state, 'accepted', 'nothing was seen yet');
  // The person shows the conversation again: the page reads it, and the tab forwards that.
  await page.reload();
  await page.waitForSelector('html[data-fake-ready="true"]', { timeout: 15_000 });
  const { send } = await w.until(op, 'completed');
  const st = await fakeState();
  assert.equal(send.answer.message_id, st.requests[0].assistant_id, 'the answer of its own turn');
  assert.match(send.answer.text, /^Received 25 characters/);
  assert.equal(send.receipt.user_message_id, st.requests[0].message_id);
  assert.equal(st.clicks, 1, 'clicked once');
  assert.equal(st.posts, 1, 'one conversation POST: nothing was sent again');
});

scenario('owner_killed_while_the_answer_streams_completes_it_from_the_stream_the_tab_sends_again', async (w) => {
  await fakeConfig({ hold: 'answer' });
  await ready(w);
  const port = w.owner.port;
  const op = await w.queue('Answer me while the owner dies.', { conversation_id: CONV_A });
  await w.until(op, 'accepted');
  await w.owner.kill('SIGKILL');
  await w.startOwner(port);
  assert.equal((await w.send(op)).send.state, 'accepted', 'the receipt survives the restart');
  // The rest of the answer reaches the tab, which forwards it to an owner that never saw
  // its request: the tab sends the stream again from its request.
  await fakeConfig({ hold: false });
  await fakeRelease();
  const { send } = await w.until(op, 'completed', 30_000);
  const st = await fakeState();
  assert.equal(send.answer.message_id, st.requests[0].assistant_id);
  assert.match(send.answer.text, /^Received 31 characters/);
  assert.equal(st.clicks, 1, 'clicked once');
  assert.equal(st.posts, 1, 'nothing was sent again');
});

// The outbox's bound (content.js; made small here by `test_outbox_bytes`, 16 KiB): a long
// answer streams while the owner is down. Nothing of it is dropped to stay under the bound
// (the old rule dropped the oldest: the answer was lost), and the tab, its outbox full,
// asks for no new send and says why, until the owner took what it held.
scenario('an_outbox_full_while_the_owner_is_down_drops_no_evidence_and_asks_for_no_new_send', async (w) => {
  await fakeConfig({ hold: 'answer', long_answer: 500 });
  await ready(w);
  const sw = await w.worker();
  await sw.evaluate(() => chrome.storage.local.set({ test_outbox_bytes: 16 * 1024 }));
  const port = w.owner.port;
  const op = await w.queue('A long answer while the owner is down.', { conversation_id: CONV_A });
  await w.until(op, 'accepted');
  await w.owner.kill('SIGKILL');
  await fakeConfig({ hold: false });
  await fakeRelease();
  const lastError = async () => (await (await w.worker()).evaluate(() => chrome.storage.session.get('last_error'))).last_error;
  await waitFor(async () => /asks for no new send/.test(JSON.stringify((await lastError()) || '')), {
    what: 'the tab, its outbox full, to say it asks for no new send',
    detail: async () => JSON.stringify(await lastError()),
  });
  await w.startOwner(port);
  const next = await w.queue('Queued while the outbox is full.', { conversation_id: CONV_A });
  const { send, timeline } = await w.until(op, 'completed', 60_000);
  const st = await fakeState();
  assert.equal(send.answer.text, st.requests[0].answer, 'the whole answer was captured: nothing dropped');
  await w.until(next, 'completed', 30_000);
  const claimed = (await w.send(next)).timeline.find((e) => e.to === 'claimed');
  const completed = timeline.find((e) => e.to === 'completed');
  assert.ok(claimed.id > completed.id, 'the second send was handed to the tab only after the first answer was taken');
  const done = await fakeState();
  assert.equal(done.clicks, 2, 'one click each');
  assert.equal(done.posts, 2, 'one POST each: nothing was sent again');
  await sw.evaluate(() => chrome.storage.local.remove('test_outbox_bytes')).catch(() => {});
});

scenario('a_tab_reloaded_right_after_the_post_ends_uncertain_noting_how_many_messages_the_conversation_shows', async (w) => {
  await fakeConfig({ hold: 'response' });
  const [page] = await ready(w, { ownerArgs: ['--receipt-ms', '3000'] });
  const op = await w.queue('Reloaded right after the click.', { conversation_id: CONV_A });
  await waitFor(async () => (await fakeState()).posts === 1, { what: "the page's POST" });
  // F5 before the page's request was answered: nothing of the turn reached the tab.
  await page.reload();
  await page.waitForSelector('html[data-fake-ready="true"]', { timeout: 15_000 });
  await fakeConfig({ hold: false });
  await fakeRelease(); // the server keeps the message all the same
  // The person looks at the conversation again: the page reads it, the tab forwards it.
  await page.reload();
  await page.waitForSelector('html[data-fake-ready="true"]', { timeout: 15_000 });
  const { send, timeline } = await w.until(op, 'uncertain', 30_000);
  assert.equal(send.receipt, null, 'no receipt: whether it went out is a person\'s to decide');
  const notes = timeline.filter((e) => e.kind === 'note').map((e) => e.evidence || '');
  assert.ok(
    notes.some((n) => n.includes('exactly one user message with this text after the dispatch')),
    JSON.stringify(notes),
  );
  const st = await fakeState();
  assert.equal(st.clicks, 1);
  assert.equal(st.posts, 1, 'never sent again');
});

scenario('a_page_without_a_composer_says_why_nothing_goes_out', async (w) => {
  await fakeConfig({ layout: 'no-composer' });
  await w.startOwner();
  await w.startBrowser();
  await w.pair();
  const page = await w.context.newPage();
  await page.goto(`https://chatgpt.com/c/${CONV_A}`);
  await page.waitForSelector('html[data-fake-ready="true"]', { timeout: 15_000 });
  w.pages.push(page);
  const op = await w.queue('Waits for a usable tab.', { conversation_id: CONV_A });
  const first = await w.send(op);
  assert.match(first.waiting, /^no chatgpt\.com tab is leased/, 'from the first second');
  const reported = await waitFor(
    async () => {
      const { body } = await w.owner.request('GET', '/v1/status');
      return body.status.tab_reports.length ? body.status : null;
    },
    { what: 'the tab to report that it has no composer', ms: 40_000 },
  );
  assert.match(reported.waiting_sentence, /^no chatgpt\.com tab can take a send: tab \d+: composer not found after 20 s/);
  assert.match((await w.send(op)).waiting, /composer not found after 20 s/);
  await w.popup.reload();
  await w.popup.waitForSelector('#snapshot-details:not([hidden])');
  await w.screenshot(page, '.no-composer');
  await fakeConfig({ layout: 'standard' });
  await page.reload();
  await w.until(op, 'completed', 30_000);
  const { body } = await w.owner.request('GET', '/v1/status');
  assert.deepEqual(body.status.tab_reports, [], 'the lease cleared the report');
  assert.equal((await fakeState()).clicks, 1);
});

scenario('content_scripts_injected_twice_keep_one_copy_one_lease_and_one_click', async (w) => {
  await ready(w);
  const sw = await w.worker();
  const leasesNow = async () => (await (await w.worker()).evaluate(() => chrome.storage.session.get('leases'))).leases || {};
  const before = Object.values(await leasesNow())[0].lease_id;
  // The scripts run a second time in the same tab while the first copy still runs.
  const injected = await sw.evaluate(async () => {
    const [tab] = await chrome.tabs.query({ url: 'https://chatgpt.com/*' });
    await chrome.scripting.executeScript({ target: { tabId: tab.id }, files: ['page-observer.js'], world: 'MAIN' });
    await chrome.scripting.executeScript({ target: { tabId: tab.id }, files: ['selectors.js', 'content.js'] });
    return tab.id;
  });
  assert.ok(injected, 'the second copy was injected');
  await stopServiceWorker(w);
  // The newer copy's first lease may be taken with its answer lost in the worker stopped
  // here: it then leases once more. Its lease counts once it held for 2 s.
  let settled = before;
  let since = 0;
  await waitFor(async () => {
    const now = Object.values(await leasesNow())[0]?.lease_id;
    if (now !== settled) [settled, since] = [now, Date.now()];
    return settled && settled !== before && Date.now() - since >= 2_000;
  }, { what: 'the newer copy to lease the tab and keep its lease for 2 s' });
  await new Promise((r) => setTimeout(r, 5_000));
  assert.equal(Object.values(await leasesNow())[0].lease_id, settled, 'one lease, not taken back and forth');
  const { body } = await w.owner.request('GET', '/v1/status');
  assert.equal(body.status.lease_epochs.length, 1, 'one active lease');
  const op = await w.queue('Sent by exactly one copy.', { conversation_id: CONV_A });
  await w.until(op, 'completed');
  const st = await fakeState();
  assert.equal(st.clicks, 1, 'one click');
  assert.equal(st.posts, 1);
});

scenario('the_tab_works_within_2_s_of_the_owners_return_after_70_s_down', async (w) => {
  await ready(w);
  const port = w.owner.port;
  await w.owner.kill('SIGKILL');
  await new Promise((r) => setTimeout(r, 70_000));
  const back = Date.now();
  await w.startOwner(port);
  await waitFor(async () => (await w.leaseCount()) > 0, { what: 'the tab to lease again', ms: 15_000 });
  const took = Date.now() - back;
  console.log(`     the tab leased again ${took} ms after the owner was back`);
  assert.ok(took < 5_000, `the tab leased again within seconds of the owner's return (took ${took} ms; the design retries every second)`);
  const op = await w.queue('After the owner came back.', { conversation_id: CONV_A });
  await w.until(op, 'completed');
  assert.equal((await fakeState()).clicks, 1);
});

// ---------------------------------------------------------------- the OpenAI and MCP doors (issues 13, 14)

doorScenarios({ scenario, ready, fakeState, fakeConfig, fakeRelease, conversation: () => CONV_A });
destinationScenarios({ scenario, ready, fakeState, fakeConfig, fakeRelease, conversations: () => ({ a: CONV_A, b: CONV_B, c: CONV_C }) });
if (process.env.SENDLEDGER_BENCH === '1') destinationBench({ scenario, ready, conversations: () => ({ a: CONV_A, b: CONV_B }) });
if (process.env.SENDLEDGER_BENCH === '1') tabBench({ scenario, ready, fakeState, fakeConfig });
stateScenarios({ scenario, ready, fakeState, fakeConfig, conversation: () => CONV_A });
pageScenarios({ scenario, ready, fakeState, fakeConfig, conversation: () => CONV_A });
pageChangedScenarios({ scenario, ready, fakeState, fakeConfig, conversation: () => CONV_A });
reportScenarios({ scenario, ready, fakeState, fakeConfig, conversation: () => CONV_A });
attachmentScenarios({ scenario, ready, fakeState, fakeConfig, fakeRelease, fakeBytes, conversation: () => CONV_A });
fileFlowScenarios({ scenario, ready, fakeState, fakeConfig, fakeBytes, conversation: () => CONV_A });
artifactScenarios({ scenario, ready, fakeState, fakeConfig, fakeRelease, fakeBytes, conversation: () => CONV_A, otherConversation: () => CONV_B });
tabScenarios({ scenario, ready, fakeState, fakeConfig, newConversationId });
newChatScenarios({ scenario, ready, fakeState, fakeConfig, conversations: () => ({ a: CONV_A, b: CONV_B, c: CONV_C }) });
const claudeFake = {
  state: () => fakeCall('GET', '/__test/state', null, 'claude'),
  config: (c) => fakeCall('POST', '/__test/config', c, 'claude'),
  release: () => fakeCall('POST', '/__test/release', null, 'claude'),
};
claudeScenarios({ scenario, ready, fakeState, fakeConfig, fakeRelease, claude: claudeFake, conversation: () => CONV_A, newConversationId: () => CONV_B });

/** Stops the extension's service worker through the DevTools protocol, as Chromium does when idle. */
async function stopServiceWorker(w) {
  const page = w.pages[0];
  const cdp = await w.context.newCDPSession(page);
  const versions = new Map();
  const stopped = new Set(); // versions seen stopped (it may be restarted right after)
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions: vs }) => {
    for (const v of vs) {
      versions.set(v.versionId, v);
      if (v.runningStatus === 'stopped') stopped.add(v.versionId);
    }
  });
  await cdp.send('ServiceWorker.enable');
  const running = await waitFor(
    () => [...versions.values()].find((v) => v.scriptURL.startsWith(`chrome-extension://${EXTENSION_ID}/`) && v.runningStatus === 'running'),
    { what: "the extension's running service worker", ms: 10_000 },
  );
  await cdp.send('ServiceWorker.stopWorker', { versionId: running.versionId });
  await waitFor(() => stopped.has(running.versionId), { what: 'the service worker to stop', ms: 10_000 });
  await cdp.detach();
}

// ---------------------------------------------------------------- the popup, as a person reads it

/** The popup page at the size the toolbar opens it (popup.css: a 420 px body and its padding). */
async function openPopup(w, colorScheme = 'light') {
  const popup = await w.context.newPage();
  await popup.setViewportSize({ width: 448, height: 560 });
  await popup.emulateMedia({ colorScheme });
  await popup.goto(`chrome-extension://${EXTENSION_ID}/popup.html`);
  await popup.waitForFunction(() => document.getElementById('extension-id').textContent !== '');
  return popup;
}

/** Relative luminance (0 black … 1 white) of a computed CSS colour `rgb(r, g, b)`. */
function luminance(css) {
  const [r, g, b] = css.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number).map((c) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

scenario('the_popup_shows_the_pairing_form_until_paired_then_folds_it_away', async (w) => {
  await w.startOwner();
  await w.startBrowser();
  const before = await openPopup(w);
  assert.equal(await before.locator('#state').innerText(), 'not paired');
  assert.equal(await before.evaluate(() => document.getElementById('pair-box').open), true, 'unpaired: the form is in front');
  assert.ok(await before.locator('#code-input').isVisible(), 'the code field is visible');
  await w.screenshot(before, '.popup-unpaired');
  const popup = await w.pair();
  assert.equal(await popup.evaluate(() => document.getElementById('pair-box').open), false, 'paired: the form folds away');
  assert.equal(await popup.locator('#pair-result').innerText(), 'Paired.');
  assert.equal(await popup.locator('#code-input').isVisible(), false, 'no code field in front once paired');
  // Opened again later (a new popup): still folded, with a way to pair again.
  const again = await openPopup(w);
  await again.waitForFunction(() => document.getElementById('pair-summary').textContent === 'Pair again…');
  assert.equal(await again.evaluate(() => document.getElementById('pair-box').open), false, 'a popup opened once paired starts folded');
  assert.equal(await again.locator('#code-input').isVisible(), false);
  await w.screenshot(again, '.popup-paired');
});

scenario('the_popup_says_a_pairing_refusal_once_in_one_place', async (w) => {
  await w.startOwner();
  await w.startBrowser();
  const popup = await openPopup(w);
  await popup.fill('#bridge-input', w.owner.address);
  await popup.fill('#code-input', 'AAAA-BBBB');
  await popup.click('#pair-button');
  await popup.waitForSelector('#pair-result[data-ok="false"]', { timeout: 10_000 });
  const said = (await popup.locator('#pair-result').innerText()).replace(/^Not paired: /, '');
  assert.ok(said.length > 10, `the refusal says what happened: ${said}`);
  // Whatever the service worker also noted (the popup reads it after the answer), the
  // popup says the refusal once: under the form.
  await popup.waitForFunction(() => document.getElementById('state').textContent === 'not paired');
  const page = await popup.evaluate(() => document.body.innerText);
  assert.equal(page.split(said).length - 1, 1, `the refusal is said once, not again under Problem:\n${page}`);
  assert.equal(await popup.locator('#problem').isVisible(), false, 'no second error box for the same refusal');
  assert.equal(await popup.evaluate(() => document.getElementById('pair-box').open), true, 'the form stays open to try again');
  await w.screenshot(popup, '.popup-error');
});

scenario('the_popup_follows_the_dark_theme_and_stays_readable', async (w) => {
  await ready(w);
  const light = await openPopup(w, 'light');
  const dark = await openPopup(w, 'dark');
  const colours = (page) => page.evaluate(() => {
    const body = getComputedStyle(document.body);
    return { bg: body.backgroundColor, fg: body.color, code: getComputedStyle(document.querySelector('#leases code')).color };
  });
  await dark.waitForSelector('#leases tbody tr');
  const l = await colours(light);
  const d = await colours(dark);
  assert.ok(luminance(l.bg) > 0.7, `light: a light background (${l.bg})`);
  assert.ok(luminance(d.bg) < 0.1, `dark: a dark background (${d.bg})`);
  for (const fg of [d.fg, d.code]) {
    const ratio = (luminance(fg) + 0.05) / (luminance(d.bg) + 0.05);
    assert.ok(ratio >= 4.5, `dark: text ${fg} on ${d.bg} is readable (contrast ${ratio.toFixed(1)} >= 4.5)`);
  }
  await w.screenshot(dark, '.popup-dark');
});

scenario('the_popup_names_each_leased_tab_its_conversation_and_state_in_words', async (w) => {
  await ready(w, { conversations: [CONV_A] });
  await w.openChat();
  const popup = await openPopup(w);
  await popup.waitForFunction(() => document.querySelectorAll('#leases tbody tr').length === 2);
  const rows = await popup.evaluate(() => [...document.querySelectorAll('#leases tbody tr')].map((tr) =>
    [...tr.querySelectorAll('td')].map((td) => ({ text: td.innerText.trim(), title: td.querySelector('code').title }))));
  const conversations = rows.map((r) => r[1].text).sort();
  assert.ok(conversations.some((c) => CONV_A.startsWith(c.replace(/…$/, ''))), `one tab shows its conversation: ${conversations}`);
  assert.ok(conversations.includes('a new chat'), `a tab on a new chat says so in words: ${conversations}`);
  for (const r of rows) {
    assert.equal(r[2].text, 'leased', 'the state in a word');
    assert.match(r[2].title, /^leased: sends go out here/, 'and in a sentence on hover');
    assert.ok(!/epoch|lease /.test(r.map((td) => td.text).join(' ')), 'lease ids and epochs stay in the tooltip');
  }
  assert.equal(await popup.locator('#no-leases').isVisible(), false);
  await w.screenshot(popup, '.popup-leased');
});

scenario('the_popup_sets_the_default_destination_and_a_send_naming_none_goes_there', async (w) => {
  await w.startOwner();
  await w.startBrowser();
  await w.pair();
  const chat = await w.openChat(CONV_B);
  const popup = await openPopup(w);
  const words = () => popup.locator('#default-destination').innerText();
  await waitFor(async () => (await words()) === 'a new chat', { what: 'the popup to show the default until one is set' });
  await w.screenshot(popup, '.popup-destination-unset');
  await popup.waitForSelector('#dest-conversation:not([disabled])');
  await popup.click('#dest-conversation');
  await waitFor(async () => (await words()) === `conversation ${CONV_B}`, { what: 'the popup to show the new default' });
  assert.match(await popup.locator('#destination-result').innerText(), /^Saved: sends that name no place now go to conversation/);
  await w.screenshot(popup, '.popup-destination-conversation');
  assert.match(w.cli(['destination', 'show']), new RegExp(`default destination  conversation ${CONV_B}`), 'the profile holds it');
  const op = await w.queue('Naming no place.');
  const sent = await w.until(op, 'completed', 30_000);
  assert.equal(sent.destination.chosen_by, 'default');
  assert.equal(sent.send.receipt.conversation_id, CONV_B, 'went into the conversation the person chose');
  // A Project: the tab shows its new-chat page, the person chooses it.
  await chat.goto('https://chatgpt.com/g/g-p-6a1f0c2e5b7d4c3a9e8f1a2b3c4d5e6f-custody-notes/project');
  await popup.reload();
  await popup.waitForSelector('#dest-project:not([disabled])');
  await popup.click('#dest-project');
  await waitFor(async () => (await words()) === 'a new chat in Project g-p-6a1f0c2e5b7d4c3a9e8f1a2b3c4d5e6f', { what: 'the Project default' });
  await w.screenshot(popup, '.popup-destination-project');
  await popup.click('#dest-new-chat');
  await waitFor(async () => (await words()) === 'a new chat', { what: 'back to a new chat each time' });
});

// ---------------------------------------------------------------- runner

// Side by side: with SENDLEDGER_BROWSER_CLAIMS set to a folder, several runs of this file take
// the chosen scenarios from one queue (scripts/test-browser.sh with SENDLEDGER_BROWSER_RUNS):
// a run takes the next scenario whose claim it is the first to make (mkdir is atomic), so
// each scenario runs once, in one run, and a run that meets a long scenario leaves the rest
// to the others. Each run has its own fakes, owners and Chromium; the fakes' state is per run.
const CLAIMS = process.env.SENDLEDGER_BROWSER_CLAIMS || null;
function claim(index) {
  if (!CLAIMS) return true;
  try {
    fs.mkdirSync(path.join(CLAIMS, String(index)));
    return true;
  } catch (e) {
    if (e.code === 'EEXIST') return false;
    throw e;
  }
}

async function main() {
  const filters = process.argv.slice(2);
  const chosen = filters.length ? scenarios.filter((s) => filters.some((f) => s.name.includes(f) || s.group === f)) : scenarios;
  const certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sendledger-cert-'));
  const pair = selfSignedCert(certDir);
  fakeCert = pair.cert;
  fake = await startFake(pair);
  fakeClaude = await startFakeClaude(pair);
  let passed = 0;
  let failed = 0;
  for (const [index, s] of chosen.entries()) {
    if (!claim(index)) continue;
    const w = new World(s.name);
    CONV_A = newConversationId();
    CONV_B = newConversationId();
    CONV_C = newConversationId();
    const started = Date.now();
    await fakeCall('POST', '/__test/reset');
    await fakeCall('POST', '/__test/reset', null, 'claude');
    try {
      await s.fn(w);
      await w.screenshot();
      passed += 1;
      console.log(`ok   ${s.name} (${Date.now() - started} ms)`);
    } catch (e) {
      failed += 1;
      await w.screenshot().catch(() => {});
      console.log(`FAIL ${s.name} (${Date.now() - started} ms)\n     ${String(e.stack || e).split('\n').join('\n     ')}`);
      console.log(`     owner log: ${w.ownerLog}`);
    } finally {
      await w.close();
    }
  }
  await fake.close();
  await fakeClaude.close();
  fs.rmSync(certDir, { recursive: true, force: true });
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  console.log('0 passed, 1 failed');
  process.exit(1);
});
