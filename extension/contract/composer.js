// The page contract (contract.js): the composer, the send button and the stop button.
// Their selectors are the facts' data (`selectors`); selectors.js uses them from here.
//
// Loaded as a classic content script after contract.js.

(() => {
  const C = window.sendledgerContract;
  const FORMAT = { source: '../shared/fixtures/chatgpt/FORMAT.md §5 ([S3] chatgpt.js selectors, [A8], [A19])', date: '2026-08-02' };

  /** The composer form and its ProseMirror editor. */
  const COMPOSER = Object.freeze({
    composer: '#prompt-textarea[contenteditable="true"]',
    form: 'form[data-type="unified-composer"]',
  });
  const SEND = Object.freeze({ sendButton: 'button[data-testid="send-button"]' });
  const STOP = Object.freeze({ stopButton: 'button[data-testid="stop-button"]' });

  const shown = (el) => !!el && !el.hidden && el.getClientRects().length > 0;
  const composerEmpty = () => {
    const el = document.querySelector(COMPOSER.composer);
    return !el || (el.textContent || '') === '';
  };

  C.fact({
    id: 'composer.present',
    meaning: 'the chat composer: a contenteditable ProseMirror div #prompt-textarea, inside the composer form form[data-type="unified-composer"]',
    seen: [FORMAT],
    needs: 'every',
    signals: ['structure'],
    subject: 'a composer',
    selectors: COMPOSER,
    probe() {
      const el = document.querySelector(COMPOSER.composer);
      const form = document.querySelector(COMPOSER.form);
      const inForm = !!el && !!form && form.contains(el);
      return { state: inForm ? 'holds' : 'fails', shows: { composer: !!el, form: !!form, composer_in_form: inForm } };
    },
  });

  C.fact({
    id: 'send_button.present',
    meaning: 'the send button button[data-testid="send-button"]: shown once the composer holds text, enabled when the page would send',
    seen: [FORMAT],
    needs: 'every',
    signals: ['structure'],
    subject: 'a send button',
    selectors: SEND,
    /** Beyond tags and non-text attributes (interfaces shape 1): */
    reads: 'whether the composer is empty (never its text): the live page shows its send button only once the composer holds text',
    probe() {
      const b = document.querySelector(SEND.sendButton);
      if (b) return { state: 'holds', shows: { found: true, disabled: !!b.disabled || b.getAttribute('aria-disabled') === 'true' } };
      // The live page shows its send button only once the composer holds text.
      return { state: composerEmpty() ? 'unseen' : 'fails', shows: { found: false, composer_empty: composerEmpty() } };
    },
  });

  C.fact({
    id: 'stop_button.present',
    meaning: 'the stop button button[data-testid="stop-button"], shown while an answer is generated (it is also how the extension knows one is)',
    seen: [FORMAT],
    needs: 'every',
    signals: ['structure'],
    subject: 'a stop button',
    selectors: STOP,
    probe() {
      const b = document.querySelector(STOP.stopButton);
      return { state: shown(b) ? 'holds' : 'unseen', shows: { found: !!b, shown: shown(b) } };
    },
  });
})();
