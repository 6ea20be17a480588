// The page contract (contract.js): the thread — its turns and messages, the page's own
// error for a turn — and a modal dialog over the page. Their selectors are the facts'
// data (`selectors`); selectors.js uses them from here.
//
// Loaded as a classic content script after contract.js.

(() => {
  const C = window.sendledgerContract;
  const FORMAT = { source: '../shared/fixtures/chatgpt/FORMAT.md §5 and dom_01_chatgpt_thread_turns_2026.html', date: '2026-08-02' };
  const ISSUE = { source: 'issue 27: the page\'s refusals as public threads describe them (not captured)', date: '2026-10' };

  const THREAD = Object.freeze({
    /** One turn of the thread. */
    turn: '[data-testid^="conversation-turn-"]',
    /** One message with its backend id. */
    message: '[data-message-author-role][data-message-id]',
  });
  const ERROR = Object.freeze({ pageError: '[data-testid="conversation-error"]' });
  const DIALOG = Object.freeze({ dialog: '[role="dialog"][aria-modal="true"], [role="alertdialog"]' });

  const shown = (el) => !!el && !el.hidden && el.getClientRects().length > 0;
  const onConversation = () => /\/c\/[0-9a-f-]{36}(\/|$)/.test(location.pathname);

  C.fact({
    id: 'thread.turns',
    meaning: 'the turns of the thread, [data-testid^="conversation-turn-"], each holding messages [data-message-author-role][data-message-id]',
    seen: [FORMAT],
    needs: 'destination',
    signals: ['structure', 'route'],
    subject: "a conversation's turns",
    selectors: THREAD,
    probe() {
      const turns = document.querySelectorAll(THREAD.turn).length;
      const messages = document.querySelectorAll(THREAD.message).length;
      if (turns && messages) return { state: 'holds', shows: { turns, messages } };
      // A conversation's page shows its turns; a new chat has none yet.
      if (!onConversation()) return { state: 'unseen', shows: { turns, messages } };
      return { state: turns || messages ? 'fails' : 'unseen', shows: { turns, messages } };
    },
  });

  C.fact({
    id: 'thread.page_error',
    meaning: "the page's own error for a turn, [data-testid=\"conversation-error\"], whose words end the send page_error (its Retry button is never clicked)",
    seen: [ISSUE],
    needs: 'every',
    signals: ['structure', 'traffic'],
    subject: "the page's error for a turn",
    selectors: ERROR,
    probe() {
      const n = document.querySelectorAll(ERROR.pageError).length;
      return { state: n ? 'holds' : 'unseen', shows: { errors: n } };
    },
  });

  C.fact({
    id: 'dialog.modal',
    meaning: 'a modal dialog over the page (the "Too many requests" one, in any language): [role="dialog"][aria-modal="true"] or [role="alertdialog"], shown; a send waits while one is open',
    seen: [ISSUE],
    needs: 'every',
    signals: ['structure'],
    subject: 'a dialog',
    selectors: DIALOG,
    probe() {
      const open = [...document.querySelectorAll(DIALOG.dialog)].filter(shown).length;
      return { state: open ? 'holds' : 'unseen', shows: { open } };
    },
  });
})();
