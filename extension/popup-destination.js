// The popup's "Where sends go": the profile's default destination — where a send that
// names no place goes — shown in words and set with one click: "Send into this
// conversation" / "A new chat each time" / "This Project", through the owner's
// `PUT /v1/ext/default-destination` (asked by the service worker, which holds the token).
// "This" is the chatgpt.com tab the person looks at: the active one, else the one used last.

(() => {
  const $ = (id) => document.getElementById(id);
  const CONVERSATION = /\/c\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[/?#]|$)/;
  const PROJECT = /^\/g\/(g-p-[A-Za-z0-9]+)/;
  const tail = (id) => `…${id.slice(-6)}`;

  /** The conversation and Project the person's chatgpt.com tab shows (nulls when none). */
  async function shownByTheTab() {
    const tabs = await chrome.tabs.query({ url: 'https://chatgpt.com/*' });
    const tab = tabs.find((t) => t.active) || tabs.sort((x, y) => (y.lastAccessed || 0) - (x.lastAccessed || 0))[0];
    if (!tab || !tab.url) return { conversation: null, project: null };
    const path = new URL(tab.url).pathname;
    return { conversation: (path.match(CONVERSATION) || [])[1] || null, project: (path.match(PROJECT) || [])[1] || null };
  }

  function say(ok, words) {
    $('destination-result').dataset.ok = String(ok);
    $('destination-result').textContent = words;
  }

  function show(r) {
    if (!r || !r.ok) {
      $('default-destination').textContent = 'unknown';
      say(false, r && r.message ? r.message : 'the app did not answer');
      return;
    }
    const d = r.body.default_destination;
    $('default-destination').textContent = r.body.words;
    $('dest-conversation').setAttribute('aria-pressed', String(d.kind === 'conversation'));
    $('dest-new-chat').setAttribute('aria-pressed', String(d.kind === 'new_chat'));
    $('dest-project').setAttribute('aria-pressed', String(d.kind === 'project'));
  }

  async function refresh() {
    const shown = await shownByTheTab();
    $('dest-conversation').disabled = !shown.conversation;
    $('dest-conversation').textContent = shown.conversation ? `Send into this conversation (${tail(shown.conversation)})` : 'Send into this conversation';
    $('dest-project').disabled = !shown.project;
    $('dest-project').textContent = shown.project ? `This Project (${tail(shown.project)})` : 'This Project';
    show(await chrome.runtime.sendMessage({ type: 'destination' }));
  }

  async function choose(named) {
    const r = await chrome.runtime.sendMessage({ type: 'setDestination', named });
    show(r);
    if (r && r.ok) say(true, `Saved: sends that name no place now go to ${r.body.words}. Queued sends keep theirs.`);
  }

  $('dest-conversation').addEventListener('click', async () => choose({ conversation_id: (await shownByTheTab()).conversation }));
  $('dest-new-chat').addEventListener('click', () => choose({ new_chat: true }));
  $('dest-project').addEventListener('click', async () => choose({ project_id: (await shownByTheTab()).project }));
  refresh();
})();
