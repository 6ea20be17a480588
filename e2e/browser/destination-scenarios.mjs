// Where a send goes (issue 27), through the real extension in Chromium: the tab goes to
// the send's conversation, Project or new chat, proves it, sets the model picker, and only
// then types — or fails before dispatch, nothing typed, with a sentence naming what the
// page showed. Each scenario is named after its rule.
//
// Registered by run.mjs: `destinationScenarios({scenario, ready, fakeState, fakeConfig,
// fakeRelease, conversations})`; `conversations()` gives this scenario's `{a, b, c}`.

import assert from 'node:assert/strict';
import { waitFor } from './lib/wait.mjs';

/** A ChatGPT Project id of the project's own (`g-p-` and 32 hex digits). */
const PROJECT = 'g-p-6a1f0c2e5b7d4c3a9e8f1a2b3c4d5e6f';

export function destinationScenarios({ scenario, ready, fakeState, fakeConfig, fakeRelease, conversations }) {
  /** Waits until the fake holds a page load (the tab on its way somewhere). */
  const pageHeld = () => waitFor(async () => (await fakeState()).held_pages > 0, { what: 'the tab to ask for the held page' });
  const composerText = (page) => page.evaluate(() => document.querySelector('#prompt-textarea').textContent);

  scenario('a_send_for_another_conversation_takes_the_tab_there_and_posts_only_in_it', async (w) => {
    const { a, b } = conversations();
    const [page] = await ready(w, { conversations: [a] });
    const op = await w.queue('Meant for conversation B.', { conversation_id: b });
    const { send } = await w.until(op, 'completed', 30_000);
    const st = await fakeState();
    assert.deepEqual(st.requests.map((r) => [r.conversation_id, r.text]), [[b, 'Meant for conversation B.']], 'one POST, in B only');
    assert.equal(st.clicks, 1);
    assert.equal(send.receipt.conversation_id, b);
    assert.ok(page.url().endsWith(`/c/${b}`), `the tab shows B: ${page.url()}`);
  });

  scenario('a_project_send_posts_once_into_a_new_chat_in_that_project_and_the_next_continues_there', async (w) => {
    const { a } = conversations();
    const [page] = await ready(w, { conversations: [a] });
    const op = await w.queue('The first words of a Project chat.', { project_id: PROJECT });
    const { send } = await w.until(op, 'completed', 30_000);
    let st = await fakeState();
    assert.equal(st.posts, 1, 'one POST');
    assert.equal(st.requests[0].project, PROJECT, 'a new chat inside that Project (conversation_mode gizmo_interaction)');
    const created = send.receipt.conversation_id;
    assert.equal(st.requests[0].conversation_id, created, "the new chat's id from the page's traffic is recorded");
    await waitFor(() => page.url().includes(`/g/${PROJECT}`) && page.url().endsWith(`/c/${created}`), { what: "the tab to show the Project's new chat" });
    // Elsewhere first, then a send to the new chat by its id: the tab goes back into the Project.
    const away = await w.queue('Meanwhile in conversation A.', { conversation_id: a });
    await w.until(away, 'completed', 30_000);
    const next = await w.queue('A second turn in the Project chat.', { conversation_id: created });
    await w.until(next, 'completed', 30_000);
    st = await fakeState();
    assert.deepEqual(st.requests.map((r) => r.conversation_id), [created, a, created], 'the next send continued the same chat');
    assert.equal(st.clicks, 3);
    assert.ok(page.url().includes(`/g/${PROJECT}`), `the tab shows it inside its Project: ${page.url()}`);
  });

  scenario('a_new_chat_send_with_a_model_starts_the_page_with_it_and_the_request_names_it', async (w) => {
    const { a } = conversations();
    await fakeConfig({ picker: 'advanced' });
    const [page] = await ready(w, { conversations: [a] });
    const op = await w.queue('A new chat on a thinking model.', { new_chat: true, model: 'gpt-5-2-thinking', effort: 'extended' });
    const { send, page_destination: seen } = await w.until(op, 'completed', 30_000);
    const st = await fakeState();
    assert.equal(st.posts, 1);
    assert.equal(st.requests[0].model, 'gpt-5-2-thinking', "the request's model follows the picker");
    assert.equal(st.requests[0].effort, 'extended', 'the effort chosen under Advanced');
    assert.equal(seen.model, 'gpt-5-2-thinking', "the page's request recorded with the receipt");
    assert.equal(seen.mismatch, null, 'no destination_mismatch');
    assert.ok(page.url().endsWith(`/c/${send.receipt.conversation_id}`));
  });

  scenario('a_picker_the_page_mounts_after_its_composer_is_waited_for_not_taken_for_none', async (w) => {
    const { a } = conversations();
    await fakeConfig({ picker_mount_ms: 1500 });
    await ready(w, { conversations: [a] });
    const op = await w.queue('A new chat on a thinking model, picker late.', { new_chat: true, model: 'gpt-5-2-thinking' });
    await w.until(op, 'completed', 30_000);
    const st = await fakeState();
    assert.equal(st.posts, 1);
    assert.equal(st.requests[0].model, 'gpt-5-2-thinking', 'the picker, mounted late, was used');
  });

  scenario('the_page_answering_with_another_model_completes_once_with_the_destination_mismatch_shown', async (w) => {
    const { a } = conversations();
    await fakeConfig({ answer_model: 'gpt-5-instant' });
    await ready(w, { conversations: [a] });
    const op = await w.queue('Asked of a thinking model, answered by another.', { conversation_id: a, model: 'gpt-5-2-thinking' });
    const view = await w.until(op, 'completed', 30_000);
    const st = await fakeState();
    assert.equal(st.posts, 1, 'one POST');
    assert.equal(st.requests[0].model, 'gpt-5-2-thinking', 'the request asked for the model the send named');
    const notes = view.timeline.filter((e) => (e.evidence || '').startsWith('destination_mismatch'));
    assert.equal(notes.length, 1, JSON.stringify(view.timeline));
    assert.match(notes[0].evidence, /the page answered with model gpt-5-instant; the send asked for gpt-5-2-thinking \(sent once; never resent\)/);
    const shown = w.cli(['show', op]);
    assert.match(shown, /destination_mismatch: the page answered with model gpt-5-instant/, '`show` prints it');
  });

  scenario('a_model_the_picker_cannot_show_fails_before_dispatch_with_what_it_shows', async (w) => {
    const { a } = conversations();
    const [page] = await ready(w, { conversations: [a] });
    const op = await w.queue('Never typed.', { conversation_id: a, model: 'gpt-9-imaginary' });
    const { send } = await w.until(op, 'rejected', 30_000);
    assert.match(send.evidence, /the picker shows Auto \(auto\); the send asks for gpt-9-imaginary \(the picker offers no such model\): nothing was typed/);
    // An account whose page has no picker at all.
    await fakeConfig({ picker: 'none' });
    await page.reload();
    const none = await w.queue('Never typed either.', { conversation_id: a, model: 'gpt-5-instant' });
    const second = (await w.until(none, 'rejected', 30_000)).send;
    assert.match(second.evidence, /this page shows no model picker .*the send asks for model gpt-5-instant: nothing was typed/);
    const st = await fakeState();
    assert.equal(st.clicks + st.posts + st.enter_submits, 0, 'nothing clicked, posted or submitted');
    assert.equal(await composerText(page), '', 'nothing typed');
  });

  scenario('the_picker_showing_another_model_at_grant_time_is_refused_and_nothing_is_clicked', async (w) => {
    const { a } = conversations();
    // The page switches its model by itself once the composer holds text: after the
    // extension set the picker, before it asks for the grant.
    await fakeConfig({ picker_drift: 'gpt-5-instant' });
    const [page] = await ready(w, { conversations: [a] });
    const op = await w.queue('Asked of a thinking model.', { conversation_id: a, model: 'gpt-5-2-thinking' });
    const { send } = await w.until(op, 'rejected', 30_000);
    assert.match(send.evidence, /the picker shows model gpt-5-instant; the send asks for gpt-5-2-thinking: nothing was clicked/);
    const st = await fakeState();
    assert.equal(st.clicks + st.posts, 0, 'refused in the grant: nothing clicked');
    await waitFor(async () => (await composerText(page)) === '', { what: 'the composer to be cleared' });
  });

  scenario('the_person_opening_their_own_chat_while_the_tab_goes_to_a_send_gets_nothing_typed_there', async (w) => {
    const { a, b, c } = conversations();
    await fakeConfig({ new_chat_control: 'none' }); // the new chat below by a page load, which is held
    const [page] = await ready(w, { conversations: [a] });
    // A send for B: the tab leaves for B, whose page is held; the person opens C meanwhile.
    await fakeConfig({ hold_page: `/c/${b}` });
    const forB = await w.queue('For conversation B only.', { conversation_id: b });
    await pageHeld();
    await page.goto(`https://chatgpt.com/c/${c}`);
    await page.waitForSelector('html[data-fake-ready="true"]');
    const first = (await w.until(forB, 'rejected', 30_000)).send;
    assert.match(first.evidence, /nothing was clicked/);
    // A send for a new chat: held on its way to /, the person opens their own chat again.
    await fakeConfig({ hold_page: '/' });
    await fakeRelease();
    const fresh = await w.queue('For a new chat only.', { new_chat: true });
    await waitFor(async () => (await fakeState()).held_pages > 1, { what: 'the tab to ask for the new-chat page' });
    await page.goto(`https://chatgpt.com/c/${c}`);
    const second = (await w.until(fresh, 'rejected', 30_000)).send;
    assert.match(second.evidence, new RegExp(`the tab was sent to a new chat but shows conversation ${c}.*nothing was typed`));
    const st = await fakeState();
    assert.equal(st.clicks + st.posts + st.enter_submits, 0, "nothing typed or posted in the person's chat");
    assert.equal(await composerText(page), '');
    await fakeConfig({ hold_page: false });
    await fakeRelease();
  });

  scenario('owner_killed_while_the_tab_goes_to_a_destination_clicks_nothing_and_the_send_is_rejected_or_uncertain', async (w) => {
    const { a, b } = conversations();
    await ready(w, { conversations: [a] });
    await fakeConfig({ hold_page: `/c/${b}` });
    const op = await w.queue('Caught mid-trip.', { conversation_id: b });
    await pageHeld();
    const port = w.owner.port;
    await w.owner.kill('SIGKILL');
    await fakeConfig({ hold_page: false });
    await fakeRelease(); // the page arrives with no owner
    await w.startOwner(port);
    const { send } = await w.until(op, ['rejected', 'uncertain']);
    await waitFor(async () => (await w.leaseCount()) > 0, { what: 'the tab at B to lease the new owner' });
    const st = await fakeState();
    assert.equal(st.clicks + st.posts, 0, 'nothing clicked');
    assert.ok(send.evidence, 'the usual evidence');
    // The tab works on: the next send for B goes out there, once.
    const next = await w.queue('After the restart.', { conversation_id: b });
    await w.until(next, 'completed', 30_000);
    assert.equal((await fakeState()).clicks, 1);
  });

  scenario('a_tab_in_work_mode_takes_no_send_and_says_so', async (w) => {
    const { a } = conversations();
    await fakeConfig({ surface: 'work' });
    await w.startOwner();
    await w.startBrowser();
    await w.pair();
    const page = await w.context.newPage();
    await page.goto(`https://chatgpt.com/c/${a}`);
    await page.waitForSelector('html[data-fake-ready="true"]');
    w.pages.push(page);
    const op = await w.queue('Waits for a Chat tab.', { conversation_id: a });
    const status = await waitFor(
      async () => {
        const { body } = await w.owner.request('GET', '/v1/status');
        return body.status.tab_reports.length ? body.status : null;
      },
      { what: 'the tab to report Work mode' },
    );
    assert.match(status.waiting_sentence, /this tab shows ChatGPT's Work mode, not Chat/);
    assert.equal((await w.send(op)).send.state, 'queued', 'no tab took it');
    await w.popup.reload();
    await w.screenshot(w.popup, '.popup-work-mode');
    await fakeConfig({ surface: 'chat' });
    await page.reload();
    await w.until(op, 'completed', 30_000);
    assert.equal((await fakeState()).clicks, 1);
  });
}

/**
 * Figures, on demand (`SENDLEDGER_BENCH=1 node e2e/browser/run.mjs bench_`): queue → click
 * for sends that must navigate — to the other of two conversations, into a Project's new
 * chat, to a new chat with a model — `rounds` each, from the ledger's own timestamps
 * (queued → dispatched; the click follows the grant in one `click()` call). Prints p50,
 * min and max in ms; asserts nothing about time.
 */
export function destinationBench({ scenario, ready, conversations }) {
  const rounds = Number(process.env.SENDLEDGER_BENCH_ROUNDS || 10);
  const p50 = (xs) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)];
  scenario('bench_queue_to_click_for_sends_that_navigate', async (w) => {
    const { a, b } = conversations();
    await ready(w, { conversations: [a] });
    const kinds = {
      conversation: (i) => ({ conversation_id: i % 2 ? a : b }),
      project: () => ({ project_id: PROJECT }),
      'new chat with a model': () => ({ new_chat: true, model: 'gpt-5-2-thinking' }),
    };
    for (const [kind, place] of Object.entries(kinds)) {
      const took = [];
      for (let i = 0; i < rounds; i += 1) {
        // From a conversation each time, so every send of the kind must navigate.
        if (kind !== 'conversation') await w.until(await w.queue(`Back to A, ${i}.`, { conversation_id: a }), 'completed', 30_000);
        const op = await w.queue(`Round ${i} for ${kind}.`, place(i));
        const { timeline } = await w.until(op, 'completed', 30_000);
        const at = (to) => timeline.find((e) => e.to === to).at;
        took.push(at('dispatched') - timeline[0].at);
      }
      console.log(`     queue → click, ${kind}: p50 ${p50(took)} ms, min ${Math.min(...took)}, max ${Math.max(...took)} (${rounds} sends)`);
    }
  });
}
