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
    // The page restored (the switch the extension knows, Chat): the next send goes, once.
    await fakeConfig({ surface_switch: 'known', surface: 'chat' });
    await page.reload();
    await page.waitForSelector('html[data-fake-ready="true"]');
    const next = await w.queue('Once Chat is shown again.', { conversation_id: a });
    await w.until(next, 'completed', 30_000);
    const st = await fakeState();
    assert.equal(st.posts, 1, 'one POST, to the chat conversation route');
    assert.equal(st.elsewhere_posts, 0, 'none to a Work route');
  });
}
