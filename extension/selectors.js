// The helpers that read chatgpt.com's page: the composer's text, the buttons, the thread,
// the address. Every selector comes from the page contract (contract/*.js; docs/extension.md,
// "The page contract"): when chatgpt.com changes its layout, the contract is what changes.
//
// Loaded as a classic content script after the contract files, before content.js; exposes `globalThis.sendledgerSelectors`.
// Nothing here reads or keeps the text of a message except `composerText`, whose result
// stays in the content script's memory.

(() => {
  /**
   * The selectors, each from the page contract's fact that names it (contract/*.js: its
   * meaning, where it was seen, and which sends fail when it does not hold). The file
   * chip's selectors are still here (FORMAT.md §5 gives none; the fake's structure).
   */
  const of = (id) => window.sendledgerContract.get(id).selectors;
  const SELECTORS = Object.freeze({
    /** The ProseMirror composer: a contenteditable div (fact composer.present). */
    composer: of('composer.present').composer,
    /** The send button, present and enabled once the composer holds text (send_button.present). */
    sendButton: of('send_button.present').sendButton,
    /** The stop button, present while an answer is being generated (stop_button.present). */
    stopButton: of('stop_button.present').stopButton,
    /** One turn of the thread (thread.turns). */
    turn: of('thread.turns').turn,
    /** One message with its backend id (thread.turns). */
    message: of('thread.turns').message,
    /** The page's own error for a turn ("Something went wrong", a usage limit) (thread.page_error). */
    pageError: of('thread.page_error').pageError,
    /** A modal over the page ("Too many requests", …): by role and aria, in any language (dialog.modal). */
    dialog: of('dialog.modal').dialog,
    // The file flow's facts (inputs, chips, the drop target) are in contract/files.js (issue 35).
  });

  /** Paths: `/c/<conversation id>`, `/g/<gizmo or project id>/c/<conversation id>`. */
  const CONVERSATION_PATH = /\/c\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\/|$)/;
  const PROJECT_PATH = /^\/g\/(g-[A-Za-z0-9-]+)/;

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

    /** The conversation id in the tab's URL, or null for a new chat. */
    conversationId: () => (location.pathname.match(CONVERSATION_PATH) || [])[1] || null,

    /** The project (gizmo) id in the URL, bound as the lease's thread, or null. */
    threadId: () => (location.pathname.match(PROJECT_PATH) || [])[1] || null,

    /**
     * What the address shows, for the dispatch grant: the conversation (`null`: a new
     * chat), or the raw segment after `/c/` when it is no conversation id — the page's
     * transient `/c/WEB:<request id>` right after a submit, which the owner refuses — and
     * the ChatGPT Project (`g-p-<id>`, its name dropped) or null.
     */
    shownPlace() {
      const raw = (location.pathname.match(/\/c\/([^/]+)/) || [])[1] || null;
      const project = (location.pathname.match(/^\/g\/(g-p-[A-Za-z0-9]+)/) || [])[1] || null;
      return { conversation_id: this.conversationId() || (raw && decodeURIComponent(raw)), project_id: project };
    },

    /** The workspace id: chatgpt.com shows none the extension can read reliably yet. */
    workspaceId: () => null,

    /**
     * The page's structure around the composer, for diagnosing a selector failure:
     * tag names and the attributes the selectors use, never text, never attribute values
     * that could carry text (aria-label, title, value, href), never message ids.
     */
    layoutSnapshot(reason) {
      const KEEP = ['id', 'data-testid', 'data-type', 'data-turn', 'data-message-author-role', 'contenteditable', 'role', 'type'];
      const nodes = [];
      const walk = (el, depth) => {
        if (nodes.length >= 1500 || depth > 40) return;
        const attrs = {};
        for (const a of KEEP) if (el.hasAttribute(a)) attrs[a] = el.getAttribute(a).slice(0, 80);
        if (el.disabled) attrs.disabled = true;
        if (el.hidden) attrs.hidden = true;
        if (el.classList.contains('ProseMirror')) attrs.class = 'ProseMirror';
        nodes.push({ depth, tag: el.tagName.toLowerCase(), ...attrs });
        if (el.matches(SELECTORS.message) || el.isContentEditable) return; // never descend into text
        for (const c of el.children) walk(c, depth + 1);
      };
      const root = document.querySelector('main') || document.body;
      if (root) walk(root, 0);
      return {
        reason,
        at: Date.now(),
        path: location.pathname.replace(CONVERSATION_PATH, '/c/<id>'),
        found: {
          composer: !!document.querySelector(SELECTORS.composer),
          sendButton: !!document.querySelector(SELECTORS.sendButton),
          stopButton: !!document.querySelector(SELECTORS.stopButton),
          turns: document.querySelectorAll(SELECTORS.turn).length,
        },
        nodes,
      };
    },
  });
})();
