// The page contract (contract.js): the Chat surface (issue 35; docs/extension.md, "Chat,
// not Work mode"). A send is typed only when two independent signals agree that the page
// is ChatGPT's Chat: its address is a chat route, and its structure says Chat — the known
// surface switch with its Chat tab selected, or no switch-like control at all. A control
// that looks like a surface switch but is not the one this extension knows is a doubt,
// and a doubt is a no.
//
// Switch-like, by structure only (never words): inside the page's header (`header`,
// `[role="banner"]`) or the composer form's container, an element with role `tablist`,
// `tab`, `radiogroup`, `radio` or `switch`, or two or more `[aria-pressed]` buttons with
// the same parent (a segmented toggle; one alone is a tool toggle) — leaving out what is
// inside an open menu, listbox or dialog (the model picker's items), inside the thread's
// turns and messages, and the known switch.
//
// Loaded as a classic content script after contract.js.

(() => {
  const C = window.sendledgerContract;
  const SEEN = [
    { source: 'issue 27: the Chat / Work switch as public descriptions show it (not captured; the fake models it)', date: '2026-10' },
    { source: 'issue 35: a Work mode behind a switch built differently took a send (independent page)', date: '2026-12' },
  ];

  const SELECTORS = Object.freeze({
    /** The switch this extension knows, and its tabs (`surface-<name>`). */
    knownSwitch: '[data-testid="surface-switcher"][role="tablist"]',
    knownTab: '[role="tab"][data-testid^="surface-"]',
    /** Where a surface switch sits: the header, and the composer form's container. */
    scopes: 'header, [role="banner"]',
    composerForm: 'form[data-type="unified-composer"]',
    /** Switch-like by role; `[aria-pressed]` counts only as a group of two or more. */
    switchLike: '[role="tablist"], [role="tab"], [role="radiogroup"], [role="radio"], [role="switch"]',
    pressed: '[aria-pressed]',
    /** Controls inside these are the page's menus (the picker) or the thread's messages, not a surface switch. */
    notASwitch: '[role="menu"], [role="listbox"], [role="dialog"], [role="alertdialog"], [data-testid^="conversation-turn-"], [data-message-author-role]',
  });

  /** Chat routes, as templates: a new chat, a conversation, a Project's new chat or conversation. */
  const CHAT_ROUTES = Object.freeze([
    ['/', /^\/$/],
    ['/c/<id>', /^\/c\/[^/]+\/?$/],
    ['/g/<project>/project', /^\/g\/g-p-[A-Za-z0-9-]+\/project\/?$/],
    ['/g/<gizmo>/c/<id>', /^\/g\/g-[A-Za-z0-9-]+\/c\/[^/]+\/?$/],
  ]);
  /** Product surfaces other than Chat, by address (no chat composer there). */
  const OTHER_SURFACE_PATH = /^\/(codex|gpts|library|images|sora|tasks|apps)(\/|$)/;

  const inMenu = (el) => !!el.closest(SELECTORS.notASwitch);

  /** The switch-like controls in the scopes, the known switch left out: `[{role, testid}]`. */
  function switchLike(known) {
    const form = document.querySelector(SELECTORS.composerForm);
    const roots = [...document.querySelectorAll(SELECTORS.scopes), form && (form.parentElement || form)].filter(Boolean);
    const found = new Set();
    const mine = (el) => !inMenu(el) && !(known && known.contains(el));
    for (const root of roots) {
      root.querySelectorAll(SELECTORS.switchLike).forEach((el) => mine(el) && found.add(el));
      const groups = new Map();
      root.querySelectorAll(SELECTORS.pressed).forEach((el) => {
        if (mine(el)) groups.set(el.parentElement, [...(groups.get(el.parentElement) || []), el]);
      });
      for (const els of groups.values()) if (els.length >= 2) els.forEach((el) => found.add(el));
    }
    return [...found].slice(0, 20).map((el) => ({ role: el.getAttribute('role') || (el.hasAttribute('aria-pressed') ? 'aria-pressed' : el.tagName.toLowerCase()), testid: el.getAttribute('data-testid') || null }));
  }

  /** The known switch's selected surface (`chat`, `work`, …), or null when it shows none readable. */
  function knownSelection(known) {
    const tabs = [...known.querySelectorAll(SELECTORS.knownTab)];
    const selected = tabs.filter((t) => t.getAttribute('aria-selected') === 'true');
    if (selected.length !== 1) return null;
    return selected[0].getAttribute('data-testid').slice('surface-'.length) || null;
  }

  /**
   * What the page is, from both signals: `{surface, route, switch, selected, switch_like}`.
   * `surface`: `chat` (both agree); the name of another surface the page positively shows
   * (`work` on the known switch, `codex` by address, …); or `unrecognised` (a doubt: a
   * switch-like control this extension does not know, an address that is no chat route,
   * the known switch without one readable selection, or no composer form).
   */
  function read() {
    const path = location.pathname;
    const route = (CHAT_ROUTES.find(([, re]) => re.test(path)) || [null])[0];
    const other = path.match(OTHER_SURFACE_PATH);
    const known = document.querySelector(SELECTORS.knownSwitch);
    const selected = known ? knownSelection(known) : null;
    const unknown = switchLike(known);
    const shows = { route: route || (other ? `/${other[1]}` : 'not a chat route'), switch: known ? 'known' : unknown.length ? 'unknown' : 'none', selected, switch_like: unknown };
    if (other) return { surface: other[1], ...shows };
    if (known && selected && selected !== 'chat' && !unknown.length) return { surface: selected, ...shows };
    const structureSaysChat = !unknown.length && (known ? selected === 'chat' : !!document.querySelector(SELECTORS.composerForm));
    return { surface: route && structureSaysChat ? 'chat' : 'unrecognised', ...shows };
  }

  C.fact({
    id: 'surface.chat',
    meaning: "the page is ChatGPT's Chat surface: its address is a chat route (/, /c/<id>, /g/<project>/project, /g/…/c/<id>) and its structure says Chat (the known switch [data-testid=\"surface-switcher\"] with surface-chat selected, or no switch-like control in the header or beside the composer)",
    seen: SEEN,
    needs: 'every',
    signals: ['route', 'structure'],
    subject: 'a Chat/Work switch',
    selectors: SELECTORS,
    routes: CHAT_ROUTES.map(([template]) => template),
    /** Beyond tags and non-text attributes (interfaces shape 1): */
    reads: "the address's path (a report carries it with ids masked), the route signal",
    read,
    probe() {
      const r = read();
      const { surface, ...shows } = r;
      return { state: surface === 'chat' ? 'holds' : 'fails', shows: { surface, ...shows } };
    },
  });
})();
