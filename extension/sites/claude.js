// The claude.ai site (issue 36; docs/extension.md, "Sites"): what the site-neutral custody
// flow (content.js, selectors.js, navigate.js, picker.js) needs to know of claude.ai — its
// name, the page-contract facts that play each part (contract/claude.js), its addresses
// and the ids in them, the organization its traffic shows, and which of the page's
// requests is the send (the completion; the create call and the retry route are not).
//
// Addresses (docs/claude-provider.md's sources; unverified against the live page): a
// conversation is `/chat/<uuid>`, a new chat `/new`, a Project's page `/project/<uuid>`; a
// Project's conversation is shown at `/chat/<uuid>` too. The organization is the uuid in
// the page's own `/api/organizations/<uuid>/…` requests (page-observer.js posts it).
//
// Loaded as a classic content script after the contract files, before selectors.js;
// exposes `globalThis.sendledgerSite`.

(() => {
  const TAG = '__sendledger';
  const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
  const CONVERSATION_PATH = new RegExp(`^/chat/(${UUID})/?$`);
  const PROJECT_PATH = new RegExp(`^/project/(${UUID})/?$`);
  const ORG = new RegExp(`^${UUID}$`);
  /** The send's own request: the completion of one conversation (contract/claude-traffic.js). */
  const COMPLETION = new RegExp(window.sendledgerContract.get('claude.traffic_route').routes.completion);
  const enc = (s) => encodeURIComponent(String(s));

  let org = null; // the organization the page's traffic named last
  window.addEventListener('message', (ev) => {
    if (ev.source !== window || !ev.data || ev.data[TAG] !== 'page-org') return;
    if (typeof ev.data.org === 'string' && ORG.test(ev.data.org)) org = ev.data.org;
  });

  const conversationId = () => (location.pathname.match(CONVERSATION_PATH) || [])[1] || null;
  const projectId = () => (location.pathname.match(PROJECT_PATH) || [])[1] || null;

  window.sendledgerSite = Object.freeze({
    /** The site's name in the bridge (`site` of a lease, a destination). */
    name: 'claude',
    /** The site in a person's sentence, and its host. */
    title: 'Claude',
    host: 'claude.ai',
    /** The page-contract fact playing each part of the flow (contract/claude.js). */
    facts: Object.freeze({
      surface: 'claude.surface',
      composer: 'claude.composer',
      sendButton: 'claude.send_button',
      stopButton: 'claude.stop_button',
      thread: 'claude.thread',
      pageError: 'claude.page_error',
      dialog: 'claude.dialog',
      picker: 'claude.picker',
      pickerModel: 'claude.picker_model',
      effort: null, // claude.ai's picker shows no effort this extension reads
    }),

    /** The conversation uuid of `/chat/<uuid>`, or null (a new chat, a Project's page). */
    conversationId,
    /** The Project uuid of `/project/<uuid>` (the lease's thread), or null. */
    threadId: projectId,
    /** The organization uuid the page's traffic showed, or null until it did. */
    workspaceId: () => org,

    /** What the address shows, for the dispatch grant: `{conversation_id, project_id}`. */
    shownPlace: () => ({ conversation_id: conversationId(), project_id: projectId() }),

    /**
     * The address a tab goes to for `dest` (`{kind, conversation_id, project_id}`):
     * `/chat/<uuid>`, `/project/<uuid>` (a new chat in the Project), else `/new`. A model
     * is chosen on the page's picker, never in the address.
     */
    url(dest) {
      if (dest.kind === 'conversation') return `${location.origin}/chat/${enc(dest.conversation_id)}`;
      if (dest.kind === 'project') return `${location.origin}/project/${enc(dest.project_id)}`;
      return `${location.origin}/new`;
    },

    /** Whether a `request` observation is the send itself: the completion, by its path. */
    isSendRequest(o) {
      try {
        return COMPLETION.test(new URL(o.url).pathname);
      } catch {
        return false;
      }
    },
  });
})();
