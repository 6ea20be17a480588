// A site without the file flow (issue 36: claude.ai for now): the two file parts of the
// custody flow, attach.js (a send's files given to the page) and artifacts.js (an answer's
// generated files), as a site that takes none. A send carrying files is failed before
// anything is typed, saying so; nothing is ever fetched. Exposes the same
// `globalThis.sendledgerAttach` and `globalThis.sendledgerArtifacts` as those files.
//
// Loaded as a classic content script before content.js.

(() => {
  const SITE = window.sendledgerSite;

  window.sendledgerAttach = Object.freeze({
    /** A send with files is refused here; one without goes on with no files. */
    async attach(send) {
      const n = Array.isArray(send.attachments) ? send.attachments.length : 0;
      if (!n) return { ok: true, confirmed: null };
      return { ok: false, reason: `this extension does not attach files on ${SITE.host} yet; the send carries ${n} file(s): nothing was typed (send it without files, or to ChatGPT)` };
    },
    removeAll: () => {},
    /** Files the person left in the composer are not read on this site (docs/extension.md, "Sites"). */
    holdsFiles: () => false,
    stillAttached: () => true,
    deferred: () => false,
    refusedAfterClick: async () => null,
  });

  window.sendledgerArtifacts = Object.freeze({ watch: () => {} });
})();
