// Where a tab is and where a send goes (issue 27; docs/extension.md, "The tab goes to the
// destination"): the address of a send's destination, whether the tab shows it now, what
// it shows in words, and whether the page is the site's Chat surface at all. Site-neutral:
// the addresses and the surface fact are the site's (sites/<site>.js, issue 36).
//
// Loaded as a classic content script after selectors.js; exposes
// `globalThis.sendledgerPlaces`. Reads the address and the page's structure only — never
// a message's text.

(() => {
  const S = window.sendledgerSelectors;

  /** The site's Chat surface fact (chatgpt.com: contract/surface.js): its signals, read together. */
  const SURFACE = window.sendledgerContract.get(S.site.facts.surface);

  window.sendledgerPlaces = Object.freeze({
    /** The address a tab goes to for `dest` (`{kind, conversation_id, project_id, model}`): the site's. */
    url: (dest) => S.site.url(dest),

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
