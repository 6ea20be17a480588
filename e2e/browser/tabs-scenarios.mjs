// Many tabs at once (issue 39), through the real extension in Chromium against the
// chatgpt.com fake: eight tabs on eight conversations under `max_in_flight` 8, answers
// that take 10 s each. Chromium keeps at most six connections to one host, so the
// extension's service worker holds one long-poll for all its tabs (background.js, "one
// poll for all tabs"); with one poll per tab the seventh tab's lease, and the receipts of
// the tabs behind it, wait for a poll to end.
//
// The scenario asserts the ordering rule only — all eight are in flight together — and
// prints the figures (receipt after the page's first words, completion after the answer's
// end, queue → the page's POST), from the owner's timeline and the fake's log, one clock.
//
// `bench_new_chat_sends` (only with SENDLEDGER_BENCH=1: `SENDLEDGER_BENCH=1 node
// e2e/browser/run.mjs bench_new_chat`, SENDLEDGER_BENCH_ROUNDS, default 10) times new-chat
// sends one after another from one tab — each must leave the conversation the previous one
// made, by the page's New chat control (SENDLEDGER_BENCH_CONTROL=none: a page without one,
// so by a page load) — and prints where the time goes; it asserts nothing about time.
//
// Registered by run.mjs: `tabScenarios({scenario, ready, fakeState, fakeConfig, newConversationId})`.

import assert from 'node:assert/strict';

const TABS = 8;
const ANSWER_MS = 10_000;

/** p50 and max of `xs`, in words. */
const figures = (xs) => {
  const sorted = [...xs].sort((x, y) => x - y);
  return `p50 ${sorted[Math.floor((sorted.length - 1) / 2)]} ms, max ${sorted.at(-1)} ms`;
};

export function tabScenarios({ scenario, ready, fakeState, fakeConfig, newConversationId }) {
  scenario('eight_tabs_on_eight_conversations_are_all_in_flight_together', async (w) => {
    await fakeConfig({ answer_ms: ANSWER_MS });
    const conversations = Array.from({ length: TABS }, newConversationId);
    w.cli(['max-in-flight', String(TABS)]);
    await ready(w, { conversations });
    const ops = [];
    for (const [i, c] of conversations.entries()) ops.push(await w.queue(`Tab ${i}'s question.`, { conversation_id: c }));
    const shown = [];
    for (const op of ops) shown.push(await w.until(op, 'completed', 60_000));
    const at = (s, to) => (s.timeline.find((e) => e.to === to) || {}).at;
    const { requests } = await fakeState();
    assert.equal(requests.length, TABS, 'one POST per send');
    // The ordering rule: every POST arrived before any answer ended, and every receipt was
    // recorded before any send completed.
    const t0 = Math.min(...shown.map((s) => s.timeline[0].at));
    console.log(`     POSTs at ${requests.map((r) => r.at - t0).join(', ')} ms; claimed at ${shown.map((s) => at(s, 'claimed') - t0).join(', ')}; dispatched at ${shown.map((s) => at(s, 'dispatched') - t0).join(', ')} ms after the first queued`);
    const lastPost = Math.max(...requests.map((r) => r.at));
    const firstEnd = Math.min(...requests.map((r) => r.end_at));
    assert.ok(lastPost < firstEnd, `all eight POSTs arrived while the answers were written (the last POST ${lastPost - firstEnd} ms after the first end)`);
    assert.equal(Math.max(...requests.map((r) => r.concurrent)), TABS - 1, 'the eighth POST arrived while seven answers were being written');
    const lastAccepted = Math.max(...shown.map((s) => at(s, 'accepted')));
    const firstCompleted = Math.min(...shown.map((s) => at(s, 'completed')));
    assert.ok(lastAccepted < firstCompleted, 'all eight receipts were recorded before any send completed');
    // The figures (printed, not asserted): one clock, the fake and the owner on one machine.
    const byConversation = new Map(requests.map((r) => [r.conversation_id, r]));
    const receipt = [];
    const completion = [];
    const toPost = [];
    for (const [i, s] of shown.entries()) {
      const r = byConversation.get(conversations[i]);
      receipt.push(at(s, 'accepted') - r.head_at);
      completion.push(at(s, 'completed') - r.end_at);
      toPost.push(r.at - s.timeline[0].at);
    }
    console.log(`     receipt after the page's first words: ${figures(receipt)}; completed after the answer's end: ${figures(completion)}; queue → POST: ${figures(toPost)} (${TABS} tabs)`);
  }, 'tabs');
}

/**
 * Where a new-chat send's time goes, from the owner's timeline, the extension's outcome log
 * (`outcomes` in its session storage: what the tab did, when) and the fake's log.
 */
function newChatFigures(shown, request, outcomes) {
  const at = (to) => (shown.timeline.find((e) => e.to === to) || {}).at;
  const did = (what) => (outcomes.find((o) => o.op_id === shown.send.op_id && o.outcome === what) || {}).at;
  const queued = shown.timeline[0].at;
  // The tab leaves by the page's own New chat control, or by a page load (docs/extension.md).
  const leaves = did('new_chat_control') || did('navigating');
  return {
    claim: at('claimed') - queued,
    leave: leaves ? leaves - at('claimed') : 0,
    arrive: did('asking_grant') - (leaves || at('claimed')),
    grant: at('dispatched') - did('asking_grant'),
    page: request.at - at('dispatched'),
    post: request.at - queued,
    completed: at('completed') - request.end_at,
  };
}

export function tabBench({ scenario, ready, fakeState, fakeConfig }) {
  const rounds = Number(process.env.SENDLEDGER_BENCH_ROUNDS || 10);
  scenario('bench_new_chat_sends', async (w) => {
    // SENDLEDGER_BENCH_CONTROL=none: a page without the New chat control (each new chat a page load).
    if (process.env.SENDLEDGER_BENCH_CONTROL) await fakeConfig({ new_chat_control: process.env.SENDLEDGER_BENCH_CONTROL });
    // SENDLEDGER_BENCH_ANSWER_MS=N: each answer written over N ms (default 0: all at once, so
    // "answer end → completed" holds the whole answer's observations, the receipt's too).
    if (process.env.SENDLEDGER_BENCH_ANSWER_MS) await fakeConfig({ answer_ms: Number(process.env.SENDLEDGER_BENCH_ANSWER_MS) });
    // The profile's default destination: a new chat (no conversation named in ready()).
    await ready(w, { conversations: [null] });
    const last = await timeRounds(w, rounds, 'new chat', () => ({}));
    // The same, into the conversation the tab shows (the last new chat's: no page load).
    const conversation = last.send.receipt.conversation_id;
    await timeRounds(w, rounds, 'the shown conversation', () => ({ conversation_id: conversation }));
  });

  async function timeRounds(w, rounds, kind, place) {
    const got = { claim: [], leave: [], arrive: [], grant: [], page: [], post: [], completed: [] };
    let control = 0;
    let shown;
    for (let i = 0; i < rounds; i += 1) {
      const before = (await fakeState()).requests.length;
      const op = await w.queue(`${kind} number ${i}.`, place());
      shown = await w.until(op, 'completed', 30_000);
      const request = (await fakeState()).requests[before];
      const { outcomes = [] } = await (await w.worker()).evaluate(() => chrome.storage.session.get('outcomes'));
      const f = newChatFigures(shown, request, outcomes);
      if (outcomes.some((o) => o.op_id === shown.send.op_id && o.outcome === 'new_chat_control')) control += 1;
      for (const k of Object.keys(got)) got[k].push(f[k]);
    }
    const parts = {
      claim: 'queued → claimed',
      leave: 'claimed → the tab leaves',
      arrive: 'leaves → the tab asks for the grant',
      grant: 'grant ask → dispatched',
      page: "dispatched → the page's POST (the click, the page's own submit)",
      post: 'queue → POST',
      completed: 'answer end → completed',
    };
    for (const [k, words] of Object.entries(parts)) console.log(`     ${kind}, ${words}: ${figures(got[k])}`);
    console.log(`     (${rounds} sends, one tab; ${control} left by the page's New chat control)`);
    return shown;
  }
}
