// The page contract (contract.js) of claude.ai (issue 36; docs/extension.md, "Sites" and
// "The page contract"): its chat surface, composer, send and stop buttons, thread, the
// page's error, a dialog, and its model picker. None of it is verified against the live
// page by this project: each fact names the public description it rests on, and a doubt is
// a no, as on chatgpt.com. Its traffic is in contract/claude-traffic.js.
//
// Where claude.ai offers no test id, a fact names the page by its English aria-label (the
// send and stop buttons): a page in another language is then not recognised and takes no
// send — said as such, never guessed.
//
// Loaded as a classic content script after contract.js, in claude.ai tabs only.

(() => {
  const C = window.sendledgerContract;
  const PROBED = { source: 'a claude.ai browser-automation script in the code index (repository not named): selectors probed on the live page on 2026-04-19, read 2026-12-07', date: '2026-04-19' };
  const README = { source: 'jcaMx/claude-extension README, "Claude Selectors" (ProseMirror composer, Send message)', date: '2025-04-27' };
  const MODELLED = { source: 'issue 36: not captured; the fake claude.ai models it (e2e/browser/fake-claude/)', date: '2026-12' };

  const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
  /** Chat routes, as templates: a new chat, a conversation, a Project's page (its new chat). */
  const CHAT_ROUTES = Object.freeze([
    ['/new', /^\/new\/?$/],
    ['/chat/<id>', new RegExp(`^/chat/${UUID}/?$`)],
    ['/project/<id>', new RegExp(`^/project/${UUID}/?$`)],
  ]);
  /** claude.ai's pages that are no chat (lists, settings, Claude Code): no send there. */
  const OTHER_SURFACE_PATH = /^\/(code|projects|recents|settings|artifacts|customize|upgrade|login|files)(\/|$)/;

  const COMPOSER = Object.freeze({ composer: 'fieldset div.ProseMirror[contenteditable="true"]', form: 'fieldset' });
  const SEND = Object.freeze({ sendButton: 'fieldset button[aria-label="Send message"]' });
  const STOP = Object.freeze({ stopButton: 'button[aria-label="Stop response"]' });
  const THREAD = Object.freeze({ turn: '[data-testid="user-message"], .font-claude-response', message: '[data-testid="user-message"], .font-claude-response' });
  const ERROR = Object.freeze({ pageError: '[role="alert"]' });
  const DIALOG = Object.freeze({ dialog: '[role="dialog"][aria-modal="true"], [role="alertdialog"]' });

  const shown = (el) => !!el && !el.hidden && el.getClientRects().length > 0;
  const count = (sel) => document.querySelectorAll(sel).length;

  /** What the page is: `{surface: 'chat' | <other> | 'unrecognised', route, switch, selected, switch_like}`. */
  function read() {
    const path = location.pathname;
    const route = (CHAT_ROUTES.find(([, re]) => re.test(path)) || [null])[0];
    const other = path.match(OTHER_SURFACE_PATH);
    const shows = { route: route || (other ? `/${other[1]}` : 'not a chat route'), switch: 'none', selected: null, switch_like: [] };
    if (other) return { surface: other[1], ...shows };
    return { surface: route && document.querySelector(COMPOSER.composer) ? 'chat' : 'unrecognised', ...shows };
  }

  C.fact({
    id: 'claude.surface',
    meaning: "the page is claude.ai's chat: its address is a chat route (/new, /chat/<uuid>, /project/<uuid>) and it shows the composer; Claude Code, the lists and settings take no send",
    seen: [PROBED, MODELLED],
    needs: 'every',
    signals: ['route', 'structure'],
    subject: 'a claude.ai chat page',
    routes: CHAT_ROUTES.map(([template]) => template),
    reads: "the address's path (a report carries it with ids masked)",
    read,
    probe() {
      const { surface, ...s } = read();
      return { state: surface === 'chat' ? 'holds' : 'fails', shows: { surface, ...s } };
    },
  });

  C.fact({
    id: 'claude.composer',
    meaning: 'the composer: a contenteditable ProseMirror div (div.ProseMirror[contenteditable="true"]) inside the composer\'s fieldset',
    seen: [README, PROBED],
    needs: 'every',
    signals: ['structure'],
    subject: 'a claude.ai composer',
    selectors: COMPOSER,
    probe() {
      const el = document.querySelector(COMPOSER.composer);
      return { state: el ? 'holds' : 'fails', shows: { composer: !!el, form: !!document.querySelector(COMPOSER.form) } };
    },
  });

  C.fact({
    id: 'claude.send_button',
    meaning: 'the send button in the composer\'s fieldset, button[aria-label="Send message"] (English page only: no test id is known), enabled once the composer holds text',
    seen: [README, PROBED],
    needs: 'every',
    signals: ['structure'],
    subject: 'a claude.ai send button',
    selectors: SEND,
    reads: 'the button\'s aria-label, compared whole with "Send message" (never kept); whether the composer is empty (never its text)',
    probe() {
      const b = document.querySelector(SEND.sendButton);
      if (b) return { state: 'holds', shows: { found: true, disabled: !!b.disabled } };
      const el = document.querySelector(COMPOSER.composer);
      const empty = !el || (el.textContent || '') === '';
      return { state: empty ? 'unseen' : 'fails', shows: { found: false, composer_empty: empty } };
    },
  });

  C.fact({
    id: 'claude.stop_button',
    meaning: 'the stop button button[aria-label="Stop response"], shown while an answer streams (it is how the extension knows one does, and what a remote Stop presses)',
    seen: [PROBED],
    needs: 'every',
    signals: ['structure'],
    subject: 'a claude.ai stop button',
    selectors: STOP,
    probe() {
      const b = document.querySelector(STOP.stopButton);
      return { state: shown(b) ? 'holds' : 'unseen', shows: { found: !!b, shown: shown(b) } };
    },
  });

  C.fact({
    id: 'claude.thread',
    meaning: 'the thread\'s messages: the person\'s [data-testid="user-message"] and the answers .font-claude-response (never read: a layout snapshot stops at them)',
    seen: [PROBED, MODELLED],
    needs: 'destination',
    signals: ['structure', 'route'],
    subject: "a claude.ai conversation's messages",
    selectors: THREAD,
    probe() {
      const n = count(THREAD.message);
      if (n) return { state: 'holds', shows: { messages: n } };
      return { state: 'unseen', shows: { messages: 0 } };
    },
  });

  C.fact({
    id: 'claude.page_error',
    meaning: "the page's own error for a turn, [role=\"alert\"], whose words end the send page_error (its retry is never clicked)",
    seen: [MODELLED],
    needs: 'every',
    signals: ['structure', 'traffic'],
    subject: "claude.ai's error for a turn",
    selectors: ERROR,
    probe: () => ({ state: count(ERROR.pageError) ? 'holds' : 'unseen', shows: { errors: count(ERROR.pageError) } }),
  });

  C.fact({
    id: 'claude.dialog',
    meaning: 'a modal dialog over the page: [role="dialog"][aria-modal="true"] or [role="alertdialog"], shown; a send waits while one is open',
    seen: [MODELLED],
    needs: 'every',
    signals: ['structure'],
    subject: 'a claude.ai dialog',
    selectors: DIALOG,
    probe() {
      const open = [...document.querySelectorAll(DIALOG.dialog)].filter(shown).length;
      return { state: open ? 'holds' : 'unseen', shows: { open } };
    },
  });
})();
