// The page contract (contract.js) of claude.ai's model picker (issue 36; docs/extension.md,
// "The model picker"). picker.js reads and moves it, as on chatgpt.com, from these
// selectors: the button [data-testid="model-selector-dropdown"] beside the composer opens a
// [role="menu"] whose models are [role="menuitemradio"] items (more under a submenu). Which
// item is which model: its test id model-option-<the page's model name> — modelled, not
// captured: a page whose items carry no such test id shows a picker this extension does
// not recognise, and a send naming a model fails before anything is typed.
//
// Loaded as a classic content script after contract.js, in claude.ai tabs only.

(() => {
  const C = window.sendledgerContract;
  const PROBED = { source: 'a claude.ai browser-automation script in the code index (repository not named): model-selector-dropdown, menuitemradio models, a "More models" submenu, probed 2026-04-19', date: '2026-04-19' };
  const MODELLED = { source: 'issue 36: the items\' test ids are not captured; the fake claude.ai models them', date: '2026-12' };

  const SELECTORS = Object.freeze({
    button: '[data-testid="model-selector-dropdown"]',
    menu: '[role="menu"]',
    submenuTrigger: '[role="menu"] [aria-haspopup="menu"]:not([aria-expanded="true"])',
    radio: '[role="menu"] [role="menuitemradio"]',
    modelPrefix: 'model-option-',
    effortPrefix: 'effort-option-',
    slider: '[role="menu"] [role="slider"]',
    /** A menu button in the composer: a picker, known or not, may be any of these. */
    headerMenuButton: 'fieldset [aria-haspopup="menu"], fieldset [aria-haspopup="listbox"]',
  });

  const P = () => window.sendledgerPicker;

  C.fact({
    id: 'claude.picker',
    meaning: 'the model picker: [data-testid="model-selector-dropdown"] opening a [role="menu"] of [role="menuitemradio"] models this extension knows — or positively none (no menu button at all in the composer)',
    seen: [PROBED, MODELLED],
    needs: 'model',
    signals: ['structure'],
    subject: 'a claude.ai model picker',
    selectors: SELECTORS,
    async probe({ openPicker } = {}) {
      const found = P().find();
      if (found.shape !== 'menu' || !openPicker) return { state: found.shape === 'unrecognised' ? 'fails' : 'holds', shows: found };
      const r = await P().read();
      return { state: r.shape === 'unrecognised' ? 'fails' : 'holds', shows: { shape: r.shape, models: r.models.length } };
    },
  });

  C.fact({
    id: 'claude.picker_model',
    meaning: "the model shown: the checked [role=\"menuitemradio\"] named model-option-<model>, <model> being the page's own model name (claude-sonnet-4-6, …)",
    seen: [MODELLED],
    needs: 'model',
    signals: ['structure'],
    subject: "a claude.ai model picker's models",
    latest: null, // an item with no test id names no model here
    async probe({ openPicker } = {}) {
      if (!openPicker) return { state: 'unseen', shows: { opened: false, why: 'the picker is opened only when the person allows it' } };
      const r = await P().read();
      if (r.shape === 'none') return { state: 'unseen', shows: { shape: r.shape } };
      return { state: r.model ? 'holds' : 'fails', shows: { shape: r.shape, model: r.model, models: r.models } };
    },
  });
})();
