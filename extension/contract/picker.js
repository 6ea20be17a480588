// The page contract (contract.js): the model picker and the thinking effort (issue 27,
// issue 35; docs/extension.md, "The model picker"). Recognised by structure only — test
// ids, roles, aria state and numbers — never by the items' words, so a picker in any
// language reads the same. The shapes known:
//   - menu: `[role="menuitemradio"]` items `model-switcher-<slug>` / `effort-switcher-<name>`,
//     maybe under a submenu (`[aria-haspopup="menu"]`, the Advanced one);
//   - the Latest model: the one model radio with no test id (a send names it `latest`);
//   - effort as a slider: `[role="slider"]` with aria-valuemin 1, aria-valuemax 4 or 5, and
//     aria-valuenow; a position counts only when aria-valuetext's last two numbers ("… 4 of
//     4", "… 4 von 4", "… 4/4") are aria-valuenow and aria-valuemax. Its stops are named by
//     position (EFFORT_STOPS); the fifth, pro, exists only on a five-stop slider — on a
//     four-stop one Pro is its own row after the slider, greyed out with the page's notice;
//   - none: no picker button and no menu button at all in the page's header.
// Anything else is a model picker this extension does not recognise.
//
// Loaded as a classic content script after contract.js; picker.js reads and moves it.

(() => {
  const C = window.sendledgerContract;
  const SEEN = [
    { source: 'issue 27: the picker as public descriptions show it (not captured; the fake models it)', date: '2026-10' },
    { source: 'issue 35: Latest model, effort slider with four or five stops, Pro row, localised labels (public threads since August)', date: '2026-12' },
  ];

  const SELECTORS = Object.freeze({
    button: '[data-testid="model-switcher-dropdown-button"]',
    menu: '[role="menu"]',
    submenuTrigger: '[role="menu"] [aria-haspopup="menu"]:not([aria-expanded="true"])',
    radio: '[role="menu"] [role="menuitemradio"]',
    modelPrefix: 'model-switcher-',
    effortPrefix: 'effort-switcher-',
    slider: '[role="menu"] [role="slider"]',
    /** A menu button in the header: a picker, known or not, may be any of these. */
    headerMenuButton: 'header [aria-haspopup="menu"], header [aria-haspopup="listbox"], header [aria-haspopup="true"], [role="banner"] [aria-haspopup="menu"]',
  });

  /** The slider's stops by position (1-based): a four-stop slider has the first four. */
  const EFFORT_STOPS = Object.freeze(['light', 'standard', 'extended', 'heavy', 'pro']);
  /** The model a send names for the radio with no test id. */
  const LATEST = 'latest';

  const P = () => window.sendledgerPicker;
  const needsOpen = { state: 'unseen', shows: { opened: false, why: 'the picker is opened only when the person allows it' } };

  C.fact({
    id: 'picker.present',
    meaning: 'the model picker: the button [data-testid="model-switcher-dropdown-button"] opening a [role="menu"] whose items this extension knows — or positively none (no menu button at all in the header)',
    seen: SEEN,
    needs: 'model',
    signals: ['structure'],
    subject: 'a model picker',
    selectors: SELECTORS,
    async probe({ openPicker } = {}) {
      const found = P().find();
      if (found.shape === 'unrecognised' || found.shape === 'none' || !openPicker) {
        return { state: found.shape === 'unrecognised' ? 'fails' : 'holds', shows: found };
      }
      const r = await P().read();
      return { state: r.shape === 'unrecognised' ? 'fails' : 'holds', shows: { shape: r.shape, models: r.models.length, efforts: r.efforts.length } };
    },
  });

  C.fact({
    id: 'picker.model',
    meaning: 'the model shown: the checked [role="menuitemradio"] named model-switcher-<slug>, or the one model radio with no test id (the Latest model, named latest)',
    seen: SEEN,
    needs: 'model',
    signals: ['structure'],
    subject: "a model picker's models",
    latest: LATEST,
    async probe({ openPicker } = {}) {
      if (!openPicker) return needsOpen;
      const r = await P().read();
      if (r.shape === 'none') return { state: 'unseen', shows: { shape: r.shape } };
      return { state: r.model ? 'holds' : 'fails', shows: { shape: r.shape, model: r.model, models: r.models } };
    },
  });

  C.fact({
    id: 'effort.shown',
    meaning: 'the thinking effort shown: the checked effort-switcher-<name> radio, or the slider position whose aria-valuenow and aria-valuetext agree, named by position (light, standard, extended, heavy, pro)',
    seen: SEEN,
    needs: 'effort',
    signals: ['structure'],
    subject: "a model picker's effort",
    /** Beyond tags and non-text attributes (interfaces shape 1): */
    reads: "aria-valuetext's digits only (its words go into a sentence, never into the decision); data-disabled beside aria-disabled for the Pro row",
    stops: EFFORT_STOPS,
    async probe({ openPicker } = {}) {
      if (!openPicker) return needsOpen;
      const r = await P().read();
      const shows = { shape: r.shape, effort: r.effort, efforts: r.efforts, slider: r.slider || null };
      if (r.shape === 'none' || (!r.efforts.length && !r.slider)) return { state: 'unseen', shows };
      return { state: r.effort ? 'holds' : 'fails', shows };
    },
  });
})();
