// A tab moved to a new chat by the page's own New chat control (issue 39; docs/extension.md,
// "A new chat without a page load"): a route change inside the page, no page load, so this
// content script, its lease and the send it claimed stay. Site-neutral: the control is the
// site's contract fact (`sendledgerSite.facts.newChat`, chatgpt.com: contract/new-chat.js);
// a site without one never takes this way.
//
// The rules: only a recognised control is clicked (anything else: null, and the caller
// loads the page instead); the move counts as done only when the page is positively
// understood afterwards — the address names a new chat, no turn is shown, the composer is
// there, empty and holds no files, no answer is generated, no dialog is open, the surface is
// Chat, and no page-contract fact that every send needs fails. Until then nothing is typed.
//
// Loaded as a classic content script after navigate.js; exposes `globalThis.sendledgerNewChat`.
// Reads the page's structure and the address only — never a message's text.

(() => {
  const S = window.sendledgerSelectors;
  const P = window.sendledgerPlaces;
  const C = window.sendledgerContract;
  const FACT = S.site.facts.newChat ? C.get(S.site.facts.newChat) : null;

  /** Whether the page shows a new chat, ready: everything but the contract's probes. */
  function readyShown(dest) {
    if (!P.shown(dest) || location.search || location.hash) return false;
    if (document.querySelector(S.SELECTORS.turn) || document.querySelector(S.SELECTORS.message)) return false;
    const composer = S.composer();
    const files = window.sendledgerAttach;
    if (!composer || S.composerText(composer) !== '' || (files && files.holdsFiles())) return false;
    return !S.generating() && !S.blockingDialog() && P.surface() === 'chat';
  }

  /** Whether no fact every send needs fails now (each probe run; the picker never opened). */
  async function everyFactHolds() {
    for (const f of C.list()) {
      if (f.needs !== 'every') continue;
      if ((await C.check(f.id, { openPicker: false })).state === 'fails') return false;
    }
    return true;
  }

  window.sendledgerNewChat = Object.freeze({
    /**
     * The page's control that moves the tab to `dest` in place, when it is recognised and
     * `dest` is a plain new chat (no Project; no model or effort, which a page load starts
     * the page with): the element, else null (never clicked: the caller loads the page).
     */
    control(dest) {
      if (!FACT || dest.kind !== 'new_chat' || dest.project_id || dest.model || dest.effort) return null;
      return FACT.read().control;
    },

    /**
     * Clicks `control` once and waits, up to `ms`, until the page positively shows `dest`
     * ready (see above), checking on every DOM change with `until(test, ms)` (content.js's).
     * Resolves true when it does, false when not in time (the caller then loads the page).
     */
    async move(control, dest, { until, ms }) {
      const deadline = Date.now() + ms;
      control.click();
      while (Date.now() < deadline) {
        if (!(await until(() => readyShown(dest), deadline - Date.now()))) return false;
        if (await everyFactHolds()) return readyShown(dest);
        await until(() => false, Math.min(100, Math.max(0, deadline - Date.now()))); // a probe failed: look again shortly
      }
      return false;
    },
  });
})();
