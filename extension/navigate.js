// Where a tab is and where a send goes (issue 27; docs/extension.md, "The tab goes to the
// destination"): the address of a send's destination, whether the tab shows it now, what
// it shows in words, and whether the page is ChatGPT's Chat surface at all.
//
// Loaded as a classic content script after selectors.js; exposes
// `globalThis.sendledgerPlaces`. Reads the address and the page's structure only — never
// a message's text.

(() => {
  const S = window.sendledgerSelectors;

  /** The Chat surface's fact (contract/surface.js): its two signals, read together. */
  const SURFACE = window.sendledgerContract.get('surface.chat');

  /** A slug or id as it may appear in an address (the owner bounds them; this encodes). */
  const enc = (s) => encodeURIComponent(String(s));

  window.sendledgerPlaces = Object.freeze({
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

    /**
     * Whether the address names `dest`: its conversation id (never the transient
     * `/c/WEB:<request id>` route, which is no conversation id), or — for a new chat — no
     * conversation at all, in the send's Project or in none.
     */
    shown(dest) {
      const here = S.shownPlace();
      const web = !!here.conversation_id && !S.conversationId();
      if (web) return false;
      if (dest.kind === 'conversation') return here.conversation_id === dest.conversation_id;
      if (dest.kind === 'project') return !here.conversation_id && here.project_id === dest.project_id;
      return !here.conversation_id && !here.project_id;
    },

    /** What the tab shows, in words for a sentence (ids, never text). */
    describe() {
      const here = S.shownPlace();
      if (here.conversation_id && !S.conversationId()) return "the page's transient /c/WEB:… route";
      const project = here.project_id ? ` in Project ${here.project_id}` : '';
      if (here.conversation_id) return `conversation ${here.conversation_id}${project}`;
      return `a new chat${project}`;
    },

    /** `dest` in words (as the owner words it). */
    words(dest) {
      if (dest.kind === 'conversation') return `conversation ${dest.conversation_id}`;
      if (dest.kind === 'project') return `a new chat in Project ${dest.project_id}`;
      return 'a new chat';
    },

    /**
     * Which surface the page is: `chat` only when its address is a chat route and its
     * structure says Chat (contract/surface.js); the name of a surface it positively shows
     * otherwise (`work` on the known switch, `codex` by address, …); or `unrecognised` —
     * a doubt (a switch-like control this extension does not know, an address that is no
     * chat route), and a doubt takes no send.
     */
    surface: () => SURFACE.read().surface,

    /** The surface reading with what the page showed (structure only), for a sentence. */
    surfaceShows: () => SURFACE.read(),
  });
})();
