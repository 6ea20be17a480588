// A changed page (issue 35), through the real extension in Chromium against the chatgpt.com
// fake's *changed page* modes: for each fact every send needs — the composer, the send
// button, the stream's markers — the first send fails (before dispatch where the tab sees
// it; uncertain at once where only the owner can, the stream), the page gate closes naming
// the fact, a queued second send waits with nothing typed, and after the page is restored
// and a person resumes, the queued send goes once (exactly one more POST). And Work mode
// seen only in the page's own traffic: the send is marked at once, never resent.
//
// Registered by run.mjs: `pageChangedScenarios({scenario, ready, fakeState, fakeConfig, conversation})`.

import assert from 'node:assert/strict';

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function pageChangedScenarios({ scenario, ready, fakeState, fakeConfig, conversation }) {
  const queue = (w, text) => w.queue(text, { conversation_id: conversation() });

  /** The page gate is closed naming `fact`, once; its sentence says what to do. */
  async function gateClosedOn(w, fact) {
    const { body } = await w.owner.request('GET', '/v1/status');
    assert.equal(body.status.page_gate && body.status.page_gate.fact_id, fact, JSON.stringify(body.status));
    assert.match(body.status.waiting_sentence, new RegExp(`page fact ${fact.replace('.', '\\.')}, which every send needs`));
    assert.match(body.status.waiting_sentence, /update the extension, or reload that tab and run Check this page/);
    return body.status.page_gate;
  }

  /** A second send waits behind the page gate (nothing typed, no POST), then goes once after a resume. */
  async function waitsThenGoesOnce(w, page, fact, restore) {
    const before = await fakeState();
    const second = await queue(w, 'This one waits for a person.');
    await pause(2_000);
    const shown = await w.send(second);
    assert.equal(shown.send.state, 'queued', 'no tab takes a send while the page gate is closed');
    assert.match(shown.waiting, new RegExp(`page fact ${fact.replace('.', '\\.')}`));
    const after = await fakeState();
    assert.equal(after.posts + after.clicks, before.posts + before.clicks, 'nothing more was clicked or posted');
    assert.equal(await page.evaluate(() => (document.querySelector('[contenteditable="true"]') || {}).textContent || ''), '', 'nothing typed');
    const gate = await gateClosedOn(w, fact);
    await w.screenshot(page, '.gate-closed');
    await fakeConfig(restore);
    await page.reload();
    await page.waitForSelector('html[data-fake-ready="true"]');
    const r = await w.owner.request('POST', '/v1/resume', { by: 'e2e' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await w.until(second, 'completed', 30_000);
    const last = await fakeState();
    assert.equal(last.posts, before.posts + 1, 'the queued send went once: exactly one more POST');
    const { body } = await w.owner.request('GET', '/v1/status');
    assert.equal(body.status.page_gate, null, 'the resume opened the page gate');
    return gate;
  }

  scenario('a_renamed_send_button_fails_the_first_send_and_closes_the_page_gate_until_a_resume', async (w) => {
    await fakeConfig({ layout: 'no-send-button' });
    const [page] = await ready(w);
    const first = await queue(w, 'This meets a renamed send button.');
    const { send } = await w.until(first, 'rejected');
    assert.equal(send.dispatched_at, null, 'failed before dispatch');
    assert.match(send.evidence, /send button not found/);
    assert.equal((await fakeState()).posts, 0);
    await waitsThenGoesOnce(w, page, 'send_button.present', { layout: 'standard' });
  });

  scenario('a_composer_renamed_while_the_tab_is_open_fails_the_first_send_and_closes_the_page_gate', async (w) => {
    const [page] = await ready(w);
    await page.evaluate(() => window.__fakeRerender('composer'));
    const first = await queue(w, 'This meets a renamed composer.');
    const { send } = await w.until(first, 'rejected');
    assert.equal(send.dispatched_at, null, 'failed before dispatch');
    assert.match(send.evidence, /composer not found/);
    await waitsThenGoesOnce(w, page, 'composer.present', {});
  });

  scenario('a_stream_with_renamed_markers_makes_the_send_uncertain_at_once_and_closes_the_page_gate', async (w) => {
    await fakeConfig({ markers: 'renamed' });
    const [page] = await ready(w);
    const first = await queue(w, 'This one is answered in an unknown stream format.');
    const { send } = await w.until(first, 'uncertain');
    assert.match(send.evidence, /traffic\.stream_markers/, 'the fact is named');
    assert.equal((await fakeState()).posts, 1, 'it went out once');
    await waitsThenGoesOnce(w, page, 'traffic.stream_markers', { markers: 'standard' });
    assert.equal((await w.send(first)).send.state, 'uncertain', 'the first is never resent: a person decides it');
  });

  scenario('a_page_post_to_a_work_route_after_the_click_marks_the_send_at_once', async (w) => {
    await fakeConfig({ send_route: 'work' });
    await ready(w);
    const op = await queue(w, 'The page sends this into Work mode.');
    const { send } = await w.until(op, 'uncertain', 10_000);
    assert.match(send.evidence, /^destination_mismatch: after the click the page's own POST went to \/backend-api\/work\/<id>\/messages/);
    const st = await fakeState();
    assert.equal(st.work_posts, 1, 'the page sent it once, to Work');
    assert.equal(st.posts, 0, 'no chat conversation request');
    const rows = (await w.owner.request('GET', '/v1/queue')).body;
    assert.ok(JSON.stringify(rows).includes('/backend-api/work/<id>/messages'), 'the window shows the route as a mismatch');
    await fakeConfig({ send_route: 'chat' });
    const next = await queue(w, 'The queue moved on.');
    await w.until(next, 'completed', 30_000);
    assert.equal((await fakeState()).work_posts, 1, 'never resent');
  });
}
