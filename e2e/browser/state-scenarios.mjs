// Page states that end a send (issue 27), through the real extension in Chromium against
// the chatgpt.com fake's states (fake-chatgpt/states.mjs), in English and German: each
// send ends with the page's words, nothing is retried (the page's POSTs, send clicks and
// Retry clicks are counted), and the limit gate holds where it should (the next send
// waits and is not sent into the limit).
//
// Registered by run.mjs: `stateScenarios({scenario, ready, fakeState, fakeConfig, conversation})`.

import assert from 'node:assert/strict';
import { WORDS, DOWNGRADED_MODEL, REQUESTED_MODEL, DISABLED_EFFORT } from './fake-chatgpt/states.mjs';

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the page counted: send clicks, conversation POSTs, Retry clicks. */
async function counted(fakeState) {
  const st = await fakeState();
  return { clicks: st.clicks, posts: st.posts, retry_clicks: st.retry_clicks };
}

/** The composer's text, as the page holds it. */
const composerText = (page) => page.evaluate(() => document.querySelector('#prompt-textarea').textContent);

/** The last state change of a send's timeline, as [from, to]. */
const lastEdge = (timeline) => {
  const t = timeline.filter((e) => e.to);
  return [t.at(-1).from, t.at(-1).to];
};

export function stateScenarios({ scenario, ready, fakeState, fakeConfig, conversation }) {
  const queue = (w, text) => w.queue(text, { conversation_id: conversation() });

  /** The second send waits behind the gate: still queued, nothing more posted. */
  async function waitsBehindTheGate(w, op, sentence) {
    await pause(2_000);
    const shown = await w.send(op);
    assert.equal(shown.send.state, 'queued', 'the next send is not sent into the limit');
    assert.match(shown.waiting, sentence);
    assert.deepEqual(await counted(fakeState), { clicks: 1, posts: 1, retry_clicks: 0 });
  }

  scenario('a_429_to_the_pages_request_ends_the_send_with_its_words_and_holds_the_gate_for_retry_after', async (w) => {
    await fakeConfig({ state: 'too_many_requests', lang: 'de', retry_after: '120' });
    const [page] = await ready(w);
    const first = await queue(w, 'This one meets the rate limit.');
    const { send, timeline } = await w.until(first, 'page_error');
    assert.equal(
      send.evidence,
      `the server refused the page's conversation request (HTTP 429), so the message was not taken: ${WORDS.de.too_many_requests}`,
    );
    assert.deepEqual(lastEdge(timeline), ['dispatched', 'page_error'], 'refused, never uncertain');
    await page.waitForSelector('[role="dialog"][aria-modal="true"]');
    const second = await queue(w, 'This one waits for Retry-After.');
    await waitsBehindTheGate(w, second, /^ChatGPT usage limit: sending resumes at (\w+ )?\d\d:\d\d/);
    // A person resumes; the page's dialog is still open over the composer: the tab types
    // nothing until it is closed (20 s at most, then the send fails before dispatch).
    const r = await w.owner.request('POST', '/v1/resume', { by: 'e2e' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await pause(2_000);
    assert.ok(['queued', 'claimed'].includes((await w.send(second)).send.state), 'nothing is typed while the dialog is shown');
    assert.deepEqual(await counted(fakeState), { clicks: 1, posts: 1, retry_clicks: 0 });
    await w.screenshot(page, '.dialog');
    await fakeConfig({ state: null });
    await page.click('[role="dialog"] [data-testid="close-button"]');
    await w.until(second, 'completed');
    assert.deepEqual(await counted(fakeState), { clicks: 2, posts: 2, retry_clicks: 0 });
  });

  scenario('a_send_handed_to_a_tab_whose_page_shows_a_dialog_fails_before_anything_is_typed', async (w) => {
    const [page] = await ready(w);
    const first = await queue(w, 'The tab takes this one.');
    await w.until(first, 'completed');
    // The dialog appears while the tab already waits for its next send (its long-poll is open).
    await page.evaluate(() => {
      const d = document.createElement('div');
      d.setAttribute('role', 'dialog');
      d.setAttribute('aria-modal', 'true');
      d.innerHTML = '<h2 id="t">Zu viele Anfragen</h2><p>Warte ein paar Minuten.</p><button>OK</button>';
      d.setAttribute('aria-labelledby', 't');
      document.body.appendChild(d);
    });
    const second = await queue(w, 'Handed out under the dialog.');
    // The tab waits up to 20 s (content.js IDLE_MS) for the dialog to close before it gives
    // up: wait past that bound.
    const { send } = await w.until(second, 'rejected', 40_000);
    assert.equal(
      send.evidence,
      'failed before dispatch: the page shows a dialog ("Zu viele Anfragen: Warte ein paar Minuten."): close it in the ChatGPT tab, then queue again; nothing was typed',
    );
    assert.deepEqual(await counted(fakeState), { clicks: 1, posts: 1, retry_clicks: 0 });
  });

  scenario('something_went_wrong_ends_the_send_with_the_pages_words_and_retry_is_never_clicked', async (w) => {
    await fakeConfig({ state: 'something_went_wrong', lang: 'de' });
    const [page] = await ready(w);
    const first = await queue(w, 'This turn goes wrong on the page.');
    const { send, timeline } = await w.until(first, 'page_error');
    assert.equal(send.evidence, `the page answered with an error: ${WORDS.de.something_went_wrong}`);
    assert.ok(send.receipt, 'received: the page gave it its ids');
    assert.deepEqual(lastEdge(timeline), ['accepted', 'page_error']);
    await page.waitForSelector('[data-testid="regenerate-thread-error-button"]');
    await fakeConfig({ state: null });
    const next = await queue(w, 'The next send goes out, the failed one is never retried.');
    await w.until(next, 'completed');
    await pause(1_000);
    assert.deepEqual(await counted(fakeState), { clicks: 2, posts: 2, retry_clicks: 0 }, 'Retry was never clicked');
  });

  scenario('a_403_unusual_activity_ends_the_send_and_holds_the_queue_until_a_person_resumes', async (w) => {
    await fakeConfig({ state: 'unusual_activity', lang: 'en' });
    const [page] = await ready(w);
    const first = await queue(w, 'This one meets the unusual-activity check.');
    const { send, timeline } = await w.until(first, 'page_error');
    assert.ok(send.evidence.endsWith(WORDS.en.unusual_activity), send.evidence);
    assert.deepEqual(lastEdge(timeline), ['dispatched', 'page_error']);
    await page.waitForSelector('[data-testid="conversation-error"]');
    const second = await queue(w, 'This one waits for a person.');
    await waitsBehindTheGate(w, second, /when a person resumes/);
  });

  scenario('a_431_headers_too_large_ends_the_send_naming_the_status_and_holds_the_queue', async (w) => {
    await fakeConfig({ state: 'headers_too_large', lang: 'de' });
    const [page] = await ready(w);
    const first = await queue(w, 'This one carries too many cookies.');
    const { send } = await w.until(first, 'page_error');
    assert.ok(send.evidence.endsWith('HTTP 431 (request headers too large)'), send.evidence);
    await page.waitForSelector('[data-testid="conversation-error"]');
    const second = await queue(w, 'This one waits for the cookies to be cleared.');
    await waitsBehindTheGate(w, second, /when a person resumes/);
  });

  scenario('a_usage_limit_in_german_is_known_by_its_code_and_holds_the_queue_until_the_date_it_names', async (w) => {
    await fakeConfig({ state: 'usage_limit', lang: 'de' });
    await ready(w);
    const first = await queue(w, 'This one meets the limit on a German page.');
    const { send } = await w.until(first, 'page_error');
    assert.equal(send.evidence, `the page answered with its usage limit: ${WORDS.de.usage_limit}`);
    const second = await queue(w, 'This one waits for the fourth of December.');
    // 2099-12-04 09:12 local: a day of its own, never today at 09:12.
    await waitsBehindTheGate(w, second, /^ChatGPT usage limit: sending resumes at Fri 09:12/);
  });

  scenario('a_model_downgrade_is_no_failure_the_send_completes_and_the_downgrade_is_noted', async (w) => {
    await fakeConfig({ state: 'downgrade', lang: 'de' });
    const [page] = await ready(w);
    const op = await queue(w, 'Answered by another model.');
    const { send, timeline } = await w.until(op, 'completed');
    assert.ok(send.answer, 'the answer completes the send');
    const notes = timeline.map((e) => e.evidence || '').filter((e) => e.startsWith('model downgrade'));
    assert.deepEqual(notes, [
      `model downgrade: the page's request asked for model ${REQUESTED_MODEL}; the answer came from ${DOWNGRADED_MODEL}`,
    ]);
    await page.waitForSelector('[data-testid="model-downgrade-notice"]');
    assert.deepEqual(await counted(fakeState), { clicks: 1, posts: 1, retry_clicks: 0 });
    const next = await queue(w, 'Sending goes on.');
    await w.until(next, 'completed');
  });

  scenario('a_disabled_effort_tier_fails_before_dispatch_with_its_reset_notice_and_is_never_clicked', async (w) => {
    // English, the top-level picker: the notice beside the item (aria-describedby).
    await fakeConfig({ state: 'effort_limit', lang: 'en', picker: 'top' });
    const [page] = await ready(w);
    const ask = (text, effort) => w.queue(text, { conversation_id: conversation(), model: REQUESTED_MODEL, effort });
    const first = await ask('Asked of the disabled tier.', DISABLED_EFFORT);
    const { send } = await w.until(first, 'rejected');
    assert.equal(
      send.evidence,
      `failed before dispatch: the picker's effort ${DISABLED_EFFORT} is unavailable ("${WORDS.en.effort_limit}"): queue it again once the page offers it, or ask for another effort; nothing was typed`,
    );
    assert.equal(await composerText(page), '', 'nothing typed');
    // Only that tier is out: a send asking for another effort goes out, once.
    const other = await ask('Asked of the standard tier.', 'standard');
    await w.until(other, 'completed');
    let st = await fakeState();
    assert.deepEqual(st.requests.map((r) => [r.model, r.effort]), [[REQUESTED_MODEL, 'standard']]);
    // German, under Advanced: the notice inside the item.
    await fakeConfig({ lang: 'de', picker: 'advanced' });
    await page.reload();
    await page.waitForSelector('html[data-fake-ready="true"]');
    const third = await ask('Asked of the disabled tier on a German page.', DISABLED_EFFORT);
    const again = (await w.until(third, 'rejected')).send;
    assert.ok(again.evidence.endsWith(`${WORDS.de.effort_limit}"): queue it again once the page offers it, or ask for another effort; nothing was typed`), again.evidence);
    assert.match(again.evidence, new RegExp(`the picker's effort ${DISABLED_EFFORT} is unavailable \\("`));
    st = await fakeState();
    assert.deepEqual({ clicks: st.clicks, posts: st.posts, disabled_clicks: st.disabled_clicks }, { clicks: 1, posts: 1, disabled_clicks: 0 }, 'the disabled item never clicked, nothing posted for it');
    assert.equal(await composerText(page), '', 'nothing typed');
  });
}
