// The chatgpt.com site (issue 36; docs/extension.md, "Sites"): what the site-neutral custody
// flow (content.js, selectors.js, navigate.js, picker.js) needs to know of chatgpt.com — its
// name, the page-contract facts that play each part, its addresses and the ids in them, and
// which of the page's requests is a send. Every other chatgpt.com fact is in contract/*.js.
//
// Loaded as a classic content script after the contract files, before selectors.js;
// exposes `globalThis.sendledgerSite`.

(() => {
  /** Paths: `/c/<conversation id>`, `/g/<gizmo or project id>/c/<conversation id>`. */
  const CONVERSATION_PATH = /\/c\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\/|$)/;
  const PROJECT_PATH = /^\/g\/(g-[A-Za-z0-9-]+)/;
  /** A slug or id as it may appear in an address (the owner bounds them; this encodes). */
  const enc = (s) => encodeURIComponent(String(s));

  const conversationId = () => (location.pathname.match(CONVERSATION_PATH) || [])[1] || null;

  window.sendledgerSite = Object.freeze({
    /** The site's name in the bridge (`site` of a lease, a destination). */
    name: 'chatgpt',
    /** The site in a person's sentence, and its host. */
    title: 'ChatGPT',
    host: 'chatgpt.com',
    /** The page-contract fact playing each part of the flow (contract/*.js). */
    facts: Object.freeze({
      surface: 'surface.chat',
      composer: 'composer.present',
      sendButton: 'send_button.present',
      stopButton: 'stop_button.present',
      thread: 'thread.turns',
      pageError: 'thread.page_error',
      dialog: 'dialog.modal',
      picker: 'picker.present',
      pickerModel: 'picker.model',
      effort: 'effort.shown',
      newChat: 'new_chat.control',
    }),

    /** The conversation id in the tab's URL, or null for a new chat. */
    conversationId,

    /** The project (gizmo) id in the URL, bound as the lease's thread, or null. */
    threadId: () => (location.pathname.match(PROJECT_PATH) || [])[1] || null,

    /** The workspace id: chatgpt.com shows none the extension can read reliably yet. */
    workspaceId: () => null,

    /**
     * What the address shows, for the dispatch grant: the conversation (`null`: a new
     * chat), or the raw segment after `/c/` when it is no conversation id — the page's
     * transient `/c/WEB:<request id>` right after a submit, which the owner refuses — and
     * the ChatGPT Project (`g-p-<id>`, its name dropped) or null.
     */
    shownPlace() {
      const raw = (location.pathname.match(/\/c\/([^/]+)/) || [])[1] || null;
      const project = (location.pathname.match(/^\/g\/(g-p-[A-Za-z0-9]+)/) || [])[1] || null;
      return { conversation_id: conversationId() || (raw && decodeURIComponent(raw)), project_id: project };
    },

    /**
     * The address a tab goes to for `dest` (`{kind, conversation_id, project_id, model}`):
     * `/c/<id>` for a conversation (chatgpt.com sends a Project's conversation on to its
     * `/g/…/c/<id>` address), `/g/<project>/project` for a new chat in a Project, `/` for
     * a new chat — the last two with the page's own `?model=<slug>` start when the send
     * names a model.
     */
    url(dest) {
      const model = dest.model ? `?model=${enc(dest.model)}` : '';
      if (dest.kind === 'conversation') return `${location.origin}/c/${enc(dest.conversation_id)}`;
      if (dest.kind === 'project') return `${location.origin}/g/${enc(dest.project_id)}/project${model}`;
      return `${location.origin}/${model}`;
    },

    /** Whether a `request` observation is the send itself: every conversation POST is. */
    isSendRequest: () => true,
  });
})();
