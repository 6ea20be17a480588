// The helpers that read a chat site's page: the composer's text, the buttons, the thread,
// the address. Site-neutral (issue 36): every selector comes from the page contract's fact
// that the site (sites/<site>.js, `sendledgerSite.facts`) names for each part
// (contract/*.js; docs/extension.md, "The page contract"): when a site changes its layout,
// its contract is what changes.
//
// Loaded as a classic content script after the contract files and the site file, before
// content.js; exposes `globalThis.sendledgerSelectors`.
// Nothing here reads or keeps the text of a message except `composerText`, whose result
// stays in the content script's memory.

(() => {
  /**
   * The selectors, each from the page contract's fact that names it (contract/*.js: its
   * meaning, where it was seen, and which sends fail when it does not hold). The file
   * chip's selectors are still here (FORMAT.md §5 gives none; the fake's structure).
   */
  const SITE = window.sendledgerSite;
  const of = (part) => window.sendledgerContract.get(SITE.facts[part]).selectors;
  const SELECTORS = Object.freeze({
    /** The ProseMirror composer: a contenteditable div (chatgpt.com: composer.present). */
    composer: of('composer').composer,
    /** The send button, present and enabled once the composer holds text (send_button.present). */
    sendButton: of('sendButton').sendButton,
    /** The stop button, present while an answer is being generated (stop_button.present). */
    stopButton: of('stopButton').stopButton,
    /** One turn of the thread (thread.turns). */
    turn: of('thread').turn,
    /** One message with its backend id (thread.turns). */
    message: of('thread').message,
    /** The page's own error for a turn ("Something went wrong", a usage limit) (thread.page_error). */
    pageError: of('pageError').pageError,
    /** A modal over the page ("Too many requests", …): by role and aria, in any language (dialog.modal). */
    dialog: of('dialog').dialog,
    // The file flow's facts (inputs, chips, the drop target) are in contract/files.js (issue 35).
  });

  const visible = (el) => !!el && !el.hidden && el.getClientRects().length > 0;

  /** Block elements whose boundaries are line breaks in the composer's text. */
  const BLOCK = /^(P|DIV|LI|PRE|BLOCKQUOTE|H[1-6])$/;

  /** Text of an inline run: text nodes as they are, `<br>` as LF except a block's last one. */
  function inlineText(node) {
    let out = '';
    node.childNodes.forEach((child, i) => {
      if (child.nodeType === Node.TEXT_NODE) out += child.data;
      else if (child.nodeName === 'BR') {
        const last = i === node.childNodes.length - 1;
        if (!last && !child.classList.contains('ProseMirror-trailingBreak')) out += '\n';
      } else if (child.nodeType === Node.ELEMENT_NODE) out += inlineText(child);
    });
    return out;
  }

  /**
   * The attributes a layout snapshot keeps (interfaces.md, shape 1): structure a probe
   * decides from, never words. `aria-valuetext` is kept reduced (snapshotAttributes).
   */
  const SNAPSHOT_KEEP = Object.freeze([
    'id', 'data-testid', 'data-type', 'data-turn', 'data-message-author-role', 'data-message-id', 'data-state',
    'contenteditable', 'role', 'type', 'accept', 'multiple', 'disabled', 'hidden',
    'aria-checked', 'aria-selected', 'aria-pressed', 'aria-expanded', 'aria-haspopup',
    'aria-disabled', 'aria-busy', 'aria-modal', 'aria-orientation', 'aria-valuemin',
    'aria-valuemax', 'aria-valuenow',
  ]);

  /** Ids a value may hold: UUIDs, `file-…`, `g-p-…`, `g-…`, 16+ hex digits, 24+ characters of letters and digits mixed (a token). */
  const ID_LIKE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b(?:file|g-p|g)-(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{6,}|[0-9a-fA-F]{16,}|(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{24,}/g;
  const maskIds = (v) => String(v).replace(ID_LIKE, '<id>');
  const maskedPath = (p) => maskIds(p).slice(0, 200);

  /** An element's kept attributes: SNAPSHOT_KEEP, ids masked, values at most 80 characters. */
  function snapshotAttributes(el) {
    const attrs = {};
    // A message's id is kept only as being there (`<id>`): the turns' structure, never the id.
    for (const a of SNAPSHOT_KEEP) if (el.hasAttribute(a)) attrs[a] = a === 'data-message-id' ? '<id>' : maskIds(el.getAttribute(a)).slice(0, 80);
    if (el.hasAttribute('aria-valuetext')) {
      // "Extra High, 4 of 4" → ", 4 4": the position, never the words (any language).
      attrs['aria-valuetext'] = el.getAttribute('aria-valuetext').replace(/[^\d\s.,:;/%+-]/gu, '').replace(/\s+/g, ' ').trim().slice(0, 40);
    }
    if (el.disabled) attrs.disabled = true;
    if (el.hidden) attrs.hidden = true;
    if (el.classList.contains('ProseMirror')) attrs.class = 'ProseMirror';
    if (el.tagName === 'A' && bareRoot(el)) attrs.href = '/'; // the New chat control's address (new_chat.control): no other href is kept
    return attrs;
  }

  /** Whether a link's address is this origin's bare "/" (no query, no fragment): it holds no id. */
  function bareRoot(el) {
    try {
      const url = new URL(el.getAttribute('href') || '', location.origin);
      return el.hasAttribute('href') && url.origin === location.origin && url.pathname === '/' && !url.search && !url.hash;
    } catch {
      return false;
    }
  }

  window.sendledgerSelectors = Object.freeze({
    SELECTORS,

    /** The composer element, or null. */
    composer: () => document.querySelector(SELECTORS.composer),

    /** The send button, or null. */
    sendButton: () => document.querySelector(SELECTORS.sendButton),

    /** The stop button when it is shown, or null. */
    stopButton: () => {
      const b = document.querySelector(SELECTORS.stopButton);
      return visible(b) ? b : null;
    },

    /** Every error the page shows for a turn. */
    pageErrors: () => [...document.querySelectorAll(SELECTORS.pageError)],

    /** A modal dialog shown over the page (it takes the composer's focus), or null. */
    blockingDialog: () => [...document.querySelectorAll(SELECTORS.dialog)].find(visible) || null,

    /** The page's own words in a dialog (its title, then its text; buttons left out), at most 300 characters. */
    dialogText(el) {
      const copy = el.cloneNode(true);
      copy.querySelectorAll('button').forEach((b) => b.remove());
      const title = el.getAttribute('aria-labelledby') && copy.querySelector(`#${CSS.escape(el.getAttribute('aria-labelledby'))}`);
      const head = title ? title.textContent.trim() : '';
      if (title) title.remove();
      const rest = (copy.textContent || '').replace(/\s+/g, ' ').trim();
      return (head && rest ? `${head}: ${rest}` : head || rest).slice(0, 300);
    },

    /** The page's own words in an error element, trimmed, at most 300 characters. */
    pageErrorText: (el) => (el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 300),

    /** Whether an answer is being generated (the stop button is shown). */
    generating: () => visible(document.querySelector(SELECTORS.stopButton)),

    /**
     * The composer's text as the page will send it: paragraphs joined by LF, `<br>` hard
     * breaks as LF, a paragraph's placeholder `<br>` ignored.
     */
    composerText(el) {
      const blocks = [...el.children].filter((c) => BLOCK.test(c.nodeName));
      if (blocks.length === 0) return inlineText(el);
      return blocks.map(inlineText).join('\n');
    },

    /** The site (sites/<site>.js): its name, words, facts and addresses. */
    site: SITE,

    /** The conversation id in the tab's URL, or null for a new chat (the site's). */
    conversationId: () => SITE.conversationId(),

    /** The Project id in the URL, bound as the lease's thread, or null (the site's). */
    threadId: () => SITE.threadId(),

    /** What the address shows, for the dispatch grant: `{conversation_id, project_id}` (the site's). */
    shownPlace: () => SITE.shownPlace(),

    /** The workspace (organization) id the page showed, or null (the site's). */
    workspaceId: () => SITE.workspaceId(),

    /**
     * The page's structure, for diagnosing a selector failure and for page reports
     * (docs/extension.md, "The page report"): tag names and the non-text attributes of
     * SNAPSHOT_KEEP, values with ids masked (`<id>`), `aria-valuetext` reduced to its digits
     * and separators; never text, never aria-label, title, value, href, placeholder or alt,
     * never message ids, never inside a message or the composer. `options.root`: 'main'
     * (the default: the composer's surroundings) or 'body' (the whole page: menus and
     * dialogs the page puts outside main). Bounded: 3,000 nodes, depth 40.
     */
    layoutSnapshot(reason, options = {}) {
      const nodes = [];
      const walk = (el, depth) => {
        if (nodes.length >= 3000 || depth > 40) return;
        nodes.push({ depth, tag: el.tagName.toLowerCase(), ...snapshotAttributes(el) });
        if (el.matches(SELECTORS.message) || el.isContentEditable) return; // never descend into text
        for (const c of el.children) walk(c, depth + 1);
      };
      const root = options.root === 'body' ? document.body : document.querySelector('main') || document.body;
      if (root) walk(root, 0);
      return {
        reason,
        at: Date.now(),
        root: options.root === 'body' ? 'body' : 'main',
        path: maskedPath(location.pathname),
        found: {
          composer: !!document.querySelector(SELECTORS.composer),
          sendButton: !!document.querySelector(SELECTORS.sendButton),
          stopButton: !!document.querySelector(SELECTORS.stopButton),
          turns: document.querySelectorAll(SELECTORS.turn).length,
        },
        nodes,
      };
    },

    /** A value with every id in it masked (`<id>`): conversation, message, file, Project ids. */
    maskIds,
    /** A page path with its ids masked, e.g. `/c/<id>`, `/g/<id>/c/<id>`. */
    maskedPath,
  });
})();
