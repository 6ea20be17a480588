// A new chat without a page load (issue 39), through the real extension in Chromium against
// the chatgpt.com fake: the tab moves to a new chat by the page's own New chat control (the
// fake's sidebar link, followed in place with history.pushState, as the single-page app
// does), keeping its content script, and types only once the page is positively a new chat;
// a control the extension does not recognise is never clicked, and the tab is loaded at "/"
// instead, as is one whose page shows no control. Each scenario is named after its rule.
//
// Registered by run.mjs: `newChatScenarios({scenario, ready, fakeState, fakeConfig, conversations})`.

import assert from 'node:assert/strict';
import { waitFor } from './lib/wait.mjs';

export function newChatScenarios({ scenario, ready, fakeState, fakeConfig, conversations }) {
  /** The content script's copy in the tab (content.js marks <html> with its id). */
  const copy = (page) => page.evaluate(() => document.documentElement.getAttribute('data-sendledger-copy'));

  /** Queues a new-chat send and waits for it; returns it with the fake's state and the page loads since. */
  async function newChat(w, text) {
    const loads = (await fakeState()).pages.length;
    const op = await w.queue(text, { new_chat: true });
    const view = await w.until(op, 'completed', 30_000);
    const st = await fakeState();
    return { ...view, st, loaded: st.pages.slice(loads) };
  }

  scenario('a_new_chat_by_the_pages_control_sends_once_into_the_new_conversation', async (w) => {
    const { a } = conversations();
    const [page] = await ready(w, { conversations: [a] });
    const before = await copy(page);
    const { send, timeline, st, loaded } = await newChat(w, 'Into a new chat, by the page.');
    assert.equal(st.new_chat_clicks, 1, "the page's New chat control was clicked once");
    assert.deepEqual(loaded, [], 'no page load: the tab moved in place');
    assert.deepEqual(st.requests.map((r) => [r.new_chat, r.text]), [[true, 'Into a new chat, by the page.']], 'one POST, naming no conversation');
    assert.equal(st.clicks, 1, 'one click on Send');
    assert.notEqual(send.receipt.conversation_id, a, 'a new conversation');
    assert.equal(await copy(page), before, 'the same content script typed it');
    assert.ok(timeline.some((e) => /claim moved to lease/.test(e.evidence || '')), 'the claim moved to the lease of the new chat, nothing clicked before');
    await waitFor(() => page.url().endsWith(`/c/${send.receipt.conversation_id}`), { what: 'the tab to show the new conversation' });
    // From that conversation, the next new chat goes the same way.
    const second = await newChat(w, 'Another new chat.');
    assert.equal(second.st.new_chat_clicks, 2);
    assert.deepEqual(second.loaded, [], 'no page load the second time either');
    assert.notEqual(second.send.receipt.conversation_id, send.receipt.conversation_id);
  });

  scenario('an_unrecognised_new_chat_control_is_never_clicked_and_the_page_is_loaded_instead', async (w) => {
    const { a } = conversations();
    // The same test id, but its address is a temporary chat's: not the control this extension knows.
    await fakeConfig({ new_chat_control: 'changed' });
    const [page] = await ready(w, { conversations: [a] });
    const first = await newChat(w, 'Into a new chat, by a page load.');
    assert.equal(first.st.new_chat_clicks, 0, 'the control not recognised was never clicked');
    assert.deepEqual(first.loaded.slice(0, 1), ['/'], 'the tab was loaded at /');
    assert.deepEqual(first.st.requests.map((r) => r.new_chat), [true], 'one POST, naming no conversation');
    assert.ok(!page.url().includes('temporary-chat'), `not a temporary chat: ${page.url()}`);
    // A page with no control at all: loaded at / too.
    await fakeConfig({ new_chat_control: 'none' });
    await page.reload();
    await page.waitForSelector('html[data-fake-ready="true"]');
    const second = await newChat(w, 'Again by a page load.');
    assert.equal(second.st.new_chat_clicks, 0);
    assert.ok(second.loaded.includes('/'), `the tab was loaded at /: ${second.loaded}`);
    assert.deepEqual(second.st.requests.map((r) => r.new_chat), [true, true], 'one POST each, each a new chat');
    assert.equal(second.st.clicks, 2);
  });

  scenario('nothing_is_typed_before_the_new_chat_the_pages_control_opened_is_shown', async (w) => {
    const { a } = conversations();
    // The address changes at once; the new chat is rendered 1.5 s later (the old thread meanwhile).
    await fakeConfig({ new_chat_render_ms: 1500 });
    await ready(w, { conversations: [a] });
    await w.until(await w.queue('A turn in conversation A first.', { conversation_id: a }), 'completed', 30_000);
    const { send, st, loaded } = await newChat(w, 'Typed only into the new chat.');
    assert.equal(st.new_chat_clicks, 1);
    assert.deepEqual(loaded, [], 'no page load');
    const [, second] = st.requests;
    assert.deepEqual([second.new_chat, second.text], [true, 'Typed only into the new chat.'], 'one POST, into a new chat, the text whole');
    assert.equal(st.requests.length, 2);
    assert.ok(st.new_chat_rendered_at && second.at >= st.new_chat_rendered_at, 'the POST came after the new chat was rendered');
    assert.notEqual(send.receipt.conversation_id, a);
  });
}
