// The page contract (contract.js): the page's own New chat control (issue 39). chatgpt.com
// is a single-page app: its sidebar's New chat link moves the tab to a new chat in place (a
// route change, no page load), so the content script, its lease and the send it claimed
// stay. The extension clicks it only when it recognises it, by structure: exactly one
// element with the known test id, an anchor whose address is this site's "/" — no query
// (a temporary chat's `?temporary-chat=true` is another place), no fragment, not opening
// elsewhere, not disabled, not inside a menu or dialog. Anything else is a doubt, and a
// doubt is never clicked: the tab is loaded at "/" instead, as before (content.js `goTo`).
// A control that does not hold never fails a send; it costs a page load.
//
// Loaded as a classic content script after contract.js.

(() => {
  const C = window.sendledgerContract;
  const SEEN = [
    {
      source:
        'public browser-automation scripts in the code index (repositories not named): the sidebar\'s New chat link a[data-testid="create-new-chat-button"], clicked as an in-page route change to "/", a load of "/" when the sidebar is collapsed; read 2026-12-07, unverified against the live page (the fake models it)',
      date: '2026-12-07',
    },
  ];

  const SELECTORS = Object.freeze({
    /** The control, by its test id (any element: one built differently is counted, not clicked). */
    control: '[data-testid="create-new-chat-button"]',
    /** Where it must not sit: the page's menus and dialogs. */
    notHere: '[role="menu"], [role="listbox"], [role="dialog"], [role="alertdialog"]',
  });

  /** Whether `el`'s address is this origin's bare "/". */
  function toNewChat(el) {
    const href = el.getAttribute('href');
    if (href === null) return false;
    let url;
    try {
      url = new URL(href, location.origin);
    } catch {
      return false;
    }
    return url.origin === location.origin && url.pathname === '/' && !url.search && !url.hash;
  }

  /**
   * The page's New chat control: `{control, shows}` — `control` the element when it is
   * recognised, else null; `shows` what the page showed (structure only: how many controls,
   * the tag, whether its address is "/", never the address itself).
   */
  function read() {
    const found = [...document.querySelectorAll(SELECTORS.control)];
    const shows = { controls: found.length };
    if (found.length !== 1) return { control: null, shows };
    const el = found[0];
    const target = el.getAttribute('target');
    Object.assign(shows, {
      tag: el.tagName.toLowerCase(),
      address: toNewChat(el) ? 'a new chat' : 'another place',
      opens_elsewhere: !!target && target !== '_self',
      disabled: el.getAttribute('aria-disabled') === 'true' || el.hasAttribute('download'),
      in_menu: !!el.closest(SELECTORS.notHere),
    });
    const known = el.tagName === 'A' && shows.address === 'a new chat' && !shows.opens_elsewhere && !shows.disabled && !shows.in_menu;
    return { control: known ? el : null, shows };
  }

  C.fact({
    id: 'new_chat.control',
    meaning:
      'the page\'s own New chat control: exactly one a[data-testid="create-new-chat-button"] whose address is this site\'s "/" (no query, no fragment, not opening elsewhere), which the page follows in place (no page load); a control not recognised is never clicked — the tab is loaded at "/" instead, and no send fails on it',
    seen: SEEN,
    needs: 'destination',
    signals: ['structure', 'route'],
    subject: 'a New chat control',
    selectors: SELECTORS,
    /** Beyond tags and non-text attributes (interfaces shape 1): */
    reads: 'the control\'s href, as "/" or not (never kept nor reported)',
    read,
    probe() {
      const { control, shows } = read();
      if (control) return { state: 'holds', shows };
      return { state: shows.controls ? 'fails' : 'unseen', shows };
    },
  });
})();
