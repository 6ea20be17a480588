// The page, positively understood (issue 35), through the real extension in Chromium: the
// Chat surface confirmed by two signals, and the model picker's shapes — a send goes out
// only when the page is understood; otherwise it fails before dispatch, nothing typed, with
// a sentence naming the page fact as not recognised. Each scenario is named after its rule.
//
// Registered by run.mjs: `pageScenarios({scenario, ready, fakeState, fakeConfig, conversation})`.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { waitFor } from './lib/wait.mjs';

export function pageScenarios({ scenario, ready, fakeState, fakeConfig, conversation }) {
  const composerText = (page) => page.evaluate(() => document.querySelector('#prompt-textarea').textContent);
  /** Nothing reached the page's routes: no click, no Enter, no POST to a chat or any other route. */
  async function nothingSent(page) {
    const st = await fakeState();
    assert.equal(st.clicks + st.enter_submits + st.posts + st.elsewhere_posts, 0, `nothing clicked or posted: ${JSON.stringify({ clicks: st.clicks, posts: st.posts, elsewhere: st.elsewhere_posts })}`);
    assert.equal(await composerText(page), '', 'nothing typed');
  }
  /** The owner was told which page fact failed (`page_fact` in the fail body, logged). */
  const toldFact = (w, id) => waitFor(() => fs.readFileSync(w.ownerLog, 'utf8').includes(`page_fact=Some("${id}")`), { what: `the owner to log page_fact ${id}` });

  scenario('an_unknown_surface_switch_takes_no_send', async (w) => {
    const a = conversation();
    // A Chat/Work switch built differently (a radiogroup with other test ids), Chat selected.
    await fakeConfig({ surface_switch: 'changed', surface: 'chat' });
    const [page] = await ready(w, { conversations: [a] });
    const op = await w.queue('Never typed behind an unknown switch.', { conversation_id: a });
    const { send } = await w.until(op, 'rejected', 30_000);
    assert.match(send.evidence, /^failed before dispatch: a Chat\/Work switch this extension does not recognise \(switch-like controls it does not know: radiogroup mode-toggle, radio mode-option-chat, radio mode-option-agent\) \[page fact surface\.chat\]: nothing was typed; run Check this page/);
    await nothingSent(page);
    await toldFact(w, 'surface.chat');
    await w.screenshot(page);
  });

  scenario('work_mode_behind_a_changed_switch_is_never_typed_into', async (w) => {
    const a = conversation();
    // Work mode selected on a switch the extension does not know; its composer would post
    // to a Work route, not a chat conversation's.
    await fakeConfig({ surface_switch: 'changed', surface: 'work' });
    const [page] = await ready(w, { conversations: [a] });
    const op = await w.queue('Meant for Chat, never for Work mode.', { conversation_id: a });
    const { send } = await w.until(op, 'rejected', 30_000);
    assert.match(send.evidence, /a Chat\/Work switch this extension does not recognise .*\[page fact surface\.chat\]: nothing was typed/);
    await nothingSent(page);
    await toldFact(w, 'surface.chat');
    // surface.chat is needed by every send: the page gate closed, and a send queued now waits.
    const next = await w.queue('Once Chat is shown again.', { conversation_id: a });
    const { body } = await w.owner.request('GET', '/v1/status');
    assert.equal(body.status.page_gate && body.status.page_gate.fact_id, 'surface.chat', 'the page gate names the fact');
    // The page restored (the switch the extension knows, Chat) and a person resumes: it goes, once.
    await fakeConfig({ surface_switch: 'known', surface: 'chat' });
    await page.reload();
    await page.waitForSelector('html[data-fake-ready="true"]');
    w.cli(['resume', '--by', 'a person in the test']);
    await w.until(next, 'completed', 30_000);
    const st = await fakeState();
    assert.equal(st.posts, 1, 'one POST, to the chat conversation route');
    assert.equal(st.elsewhere_posts, 0, 'none to a Work route');
  });

  /** The tab shows the page again after a change of the fake's config. */
  const reloaded = async (page) => {
    await page.reload();
    await page.waitForSelector('html[data-fake-ready="true"]');
  };

  scenario('a_send_with_effort_lands_with_that_effort_or_fails_naming_what_the_slider_showed', async (w) => {
    const a = conversation();
    await fakeConfig({ picker: 'slider' });
    const [page] = await ready(w, { conversations: [a] });
    const op = await w.queue('Thought through at the heaviest stop.', { conversation_id: a, model: 'gpt-5-2-thinking', effort: 'heavy' });
    await w.until(op, 'completed', 30_000);
    let st = await fakeState();
    assert.deepEqual(st.requests.map((r) => [r.model, r.effort]), [['gpt-5-2-thinking', 'heavy']], 'the request carries the slider stop asked for');
    // A slider whose words announce another position than its aria-valuenow: a doubt.
    await fakeConfig({ slider_skew: true });
    await reloaded(page);
    const askew = await w.queue('Never typed under an askew slider.', { conversation_id: a, model: 'gpt-5-2-thinking', effort: 'extended' });
    const { send } = await w.until(askew, 'rejected', 30_000);
    assert.match(send.evidence, /the effort slider at position 3 of 4 announces "Standard, 2 of 4", which does not agree with that position; the send asks for effort extended: nothing was typed/);
    st = await fakeState();
    assert.equal(st.posts, 1, 'no second POST');
    assert.equal(await composerText(page), '', 'nothing typed');
  });

  scenario('never_a_fourth_position_taken_for_pro', async (w) => {
    const a = conversation();
    await fakeConfig({ picker: 'slider' }); // four stops; Pro its own greyed-out row
    const [page] = await ready(w, { conversations: [a] });
    const op = await w.queue('Asked of Pro where the plan has none.', { conversation_id: a, model: 'gpt-5-2-thinking', effort: 'pro' });
    const { send } = await w.until(op, 'rejected', 30_000);
    assert.match(send.evidence, /the picker's effort pro is unavailable \("Pro thinking is available on the Pro plan\."\): queue it again once the page offers it, or ask for another effort; nothing was typed/);
    const shown = await page.evaluate(() => window.__fakePicker.chosen());
    assert.notEqual(shown.effort, 'heavy', 'the slider was not moved to its fourth stop');
    await nothingSent(page);
    // Where the plan has Pro, it is the slider's fifth stop, and the send goes with it.
    await fakeConfig({ pro: true });
    await reloaded(page);
    const pro = await w.queue('Asked of Pro where it is the fifth stop.', { conversation_id: a, model: 'gpt-5-2-thinking', effort: 'pro' });
    await w.until(pro, 'completed', 30_000);
    const st = await fakeState();
    assert.deepEqual(st.requests.map((r) => r.effort), ['pro']);
  });

  scenario('the_latest_model_is_sent_as_latest_once_its_radio_shows_it', async (w) => {
    const a = conversation();
    await fakeConfig({ picker: 'slider' });
    const [page] = await ready(w, { conversations: [a] });
    await page.evaluate(() => window.__fakePicker.set('gpt-5-2-thinking', 'standard'));
    const op = await w.queue('For whatever the page calls Latest.', { conversation_id: a, model: 'latest' });
    const view = await w.until(op, 'completed', 30_000);
    const st = await fakeState();
    assert.equal(st.posts, 1, 'one POST');
    assert.equal(st.requests[0].model, 'gpt-5-5', "the page's request names the model Latest resolves to");
    assert.equal((await page.evaluate(() => window.__fakePicker.chosen())).model, 'gpt-5-5', 'the picker was set to Latest');
    assert.ok(view.send.receipt, 'receipted');
    const alarms = view.timeline.filter((e) => (e.evidence || '').startsWith('destination_mismatch'));
    assert.deepEqual(alarms, [], "the page's resolution of latest is no destination_mismatch");
  });

  scenario('an_unknown_picker_is_said_as_unrecognised_never_as_none', async (w) => {
    const a = conversation();
    // A picker behind a localised "Advanced" menu, with other test ids.
    await fakeConfig({ picker: 'unknown', lang: 'de' });
    const [page] = await ready(w, { conversations: [a] });
    const op = await w.queue('Never typed under an unknown picker.', { conversation_id: a, model: 'gpt-5-instant' });
    const { send } = await w.until(op, 'rejected', 30_000);
    assert.match(send.evidence, /^failed before dispatch: a model picker this extension does not recognise \(the header shows 1 menu button\(s\), none the known one\) \[page fact picker\.present\]: nothing was typed; run Check this page/);
    assert.doesNotMatch(send.evidence, /offers none/);
    await nothingSent(page);
    await toldFact(w, 'picker.present');
  });

  scenario('the_picker_in_german_and_korean_sets_the_same_model_and_effort', async (w) => {
    const a = conversation();
    await fakeConfig({ picker: 'slider', lang: 'de' });
    const [page] = await ready(w, { conversations: [a] });
    const de = await w.queue('Auf Deutsch gewählt.', { conversation_id: a, model: 'gpt-5-2-thinking', effort: 'extended' });
    await w.until(de, 'completed', 30_000);
    await fakeConfig({ lang: 'ko' });
    await reloaded(page);
    await page.evaluate(() => window.__fakePicker.set('latest', 'light'));
    const ko = await w.queue('한국어로 선택.', { conversation_id: a, model: 'gpt-5-2-thinking', effort: 'heavy' });
    await w.until(ko, 'completed', 30_000);
    const st = await fakeState();
    assert.deepEqual(st.requests.map((r) => [r.model, r.effort]), [['gpt-5-2-thinking', 'extended'], ['gpt-5-2-thinking', 'heavy']]);
  });
}
