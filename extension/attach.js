// A send's attachments, given to the page (issue 29; docs/extension.md, "Attachments"):
// after the tab is at the send's destination and before anything is typed, the bytes of
// each file come from the owner (through the service worker, which holds the token), are
// checked against the send's SHA-256 and size, and go to the page through its own file
// input (a DataTransfer set as `input.files`, then `input` and `change`) — or, with no
// input, dropped on the composer. Never through the page's upload endpoints: the page
// uploads them itself. Then it waits (≤ UPLOAD_MS, 40 s) until the page shows every file as
// uploaded (its chips) and its own traffic gave each a file id (page-observer.js's
// `page-file` notes of `POST /backend-api/files` and `…/uploaded`). A chip in error, a
// missing file or a timeout fails the send before dispatch with the page's words, and the
// chips are removed: nothing typed, nothing clicked.
//
// Loaded as a classic content script after selectors.js; exposes `window.sendledgerAttach`.
// The bytes live only in this script's memory and in the page's own file list.

(() => {
  const S = window.sendledgerSelectors;
  const TAG = '__sendledger';
  // How long the page may take to show every file uploaded: under the owner's claim bound
  // (60 s by default from the claim to the grant ask), which would end the send anyway.
  const UPLOAD_MS = 40_000;
  const IDS_MS = 5_000; // how long the page's file ids may lag behind its chips
  const MAX_NOTES = 200;

  const which = (i, a) => `attachment ${i + 1} ("${a.name}")`;
  const SENTENCES = {
    notFetched: (i, a, why) => `${which(i, a)} could not be fetched from sendledger (${why}): nothing was typed`,
    corrupt: (i, a) => `${which(i, a)} came from sendledger with other bytes than the send recorded (size or SHA-256 differs): nothing was typed`,
    noInput: 'the page shows no file input and no drop target for attachments (chatgpt.com layout changed): nothing was typed',
    refused: (name, words) => `the page refused the attachment "${name}" ("${words}"): nothing was typed`,
    notUploaded: (names) => `the page did not show ${names} as uploaded within ${UPLOAD_MS / 1000} s: nothing was typed`,
    chipsDiffer: (shown, names) => `the composer shows the files ${shown}; the send has ${names}: nothing was typed`,
    noFileId: (i, a) => `the page's own upload of ${which(i, a)} was not seen in its traffic (no file id within ${IDS_MS / 1000} s): nothing was typed`,
  };

  // The page's upload steps, from page-observer.js, numbered as they come.
  const notes = [];
  let seq = 0;
  const noted = new EventTarget();
  window.addEventListener('message', (ev) => {
    if (ev.source !== window || !ev.data || ev.data[TAG] !== 'page-file' || !ev.data.file) return;
    notes.push({ ...ev.data.file, seq: (seq += 1) });
    if (notes.length > MAX_NOTES) notes.shift();
    noted.dispatchEvent(new Event('note'));
  });

  /** Resolves with `test()`'s value once truthy (checked on every note), or null after `ms`. */
  function whenNoted(test, ms) {
    return new Promise((resolve) => {
      const check = () => {
        const value = test();
        if (!value) return;
        noted.removeEventListener('note', check);
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => {
        noted.removeEventListener('note', check);
        resolve(test() || null);
      }, ms);
      noted.addEventListener('note', check);
      check();
    });
  }

  function bytesOf(base64) {
    if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(base64);
    const binary = atob(base64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');

  /** The send's files, fetched and checked: `{files}` or `{reason}`. */
  async function fetchAll(list, held, ask) {
    const files = [];
    for (const [i, a] of list.entries()) {
      const r = await ask('attachment', { lease_id: held.lease_id, sha256: a.sha256 });
      if (!r.ok || !r.body) return { reason: SENTENCES.notFetched(i, a, r.message || r.code || 'no answer') };
      const bytes = bytesOf(r.body.base64);
      const digest = hex(await crypto.subtle.digest('SHA-256', bytes));
      if (bytes.length !== a.size || digest !== a.sha256) return { reason: SENTENCES.corrupt(i, a) };
      files.push(new File([bytes], a.name, { type: a.mime || r.body.mime || 'application/octet-stream' }));
    }
    return { files };
  }

  /** Gives the files to the page: its file input, else a drop on the composer. */
  function giveToPage(files) {
    const dt = new DataTransfer();
    for (const f of files) dt.items.add(f);
    const input = S.fileInput();
    if (input) {
      input.files = dt.files;
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.dispatchEvent(new Event('change', { bubbles: true }));
      return true;
    }
    const target = S.dropTarget();
    if (!target) return false;
    for (const type of ['dragenter', 'dragover', 'drop']) {
      target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    }
    return true;
  }

  /** Removes every file chip from the composer (the page's own remove buttons). */
  function removeAll() {
    for (const chip of S.fileChips()) {
      const button = S.fileChipRemove(chip.el);
      if (button) button.click();
    }
  }

  const quoted = (names) => names.map((n) => `"${n}"`).join(', ');

  /** The chips once settled: null, or the reason to fail. */
  async function chipsSettled(list, until) {
    const settled = () => {
      const chips = S.fileChips();
      return chips.some((c) => c.state === 'error') || (chips.length >= list.length && chips.every((c) => c.state === 'done'));
    };
    await until(settled, UPLOAD_MS);
    const chips = S.fileChips();
    const refused = chips.find((c) => c.state === 'error');
    if (refused) return SENTENCES.refused(refused.name, refused.words);
    const pending = chips.filter((c) => c.state === 'uploading').map((c) => c.name);
    if (pending.length || chips.length < list.length) return SENTENCES.notUploaded(quoted(pending.length ? pending : list.map((a) => a.name)));
    const shown = chips.map((c) => c.name);
    const names = list.map((a) => a.name);
    if (shown.join('\n') !== names.join('\n')) return SENTENCES.chipsDiffer(quoted(shown), quoted(names));
    return null;
  }

  /** The page's file id of each attachment, in order, from its own traffic since `since`. */
  function fileIds(list, since) {
    const used = new Set();
    const ids = [];
    for (const a of list) {
      const created = notes.find((n) => n.seq > since && n.stage === 'created' && n.file_id && !used.has(n.file_id) && n.name === a.name && n.size === a.size);
      if (!created) return null;
      const confirmed = notes.some((n) => n.seq > since && n.stage === 'uploaded' && n.ok && n.file_id === created.file_id);
      if (!confirmed) return null;
      used.add(created.file_id);
      ids.push({ file_id: created.file_id, name: a.name, size: a.size });
    }
    return ids;
  }

  /**
   * Attaches the send's files (none: nothing to do). `tools`: the content script's `ask`
   * and `until`. Resolves `{ok: true, confirmed}` — `confirmed`: `[{file_id, name, size}]`
   * in the send's order, for the grant ask, or null for a send without files — or
   * `{ok: false, reason}` with the chips removed.
   */
  async function attach(send, held, { ask, until }) {
    const list = Array.isArray(send.attachments) ? send.attachments : [];
    if (!list.length) return { ok: true, confirmed: null };
    const fetched = await fetchAll(list, held, ask);
    if (fetched.reason) return { ok: false, reason: fetched.reason };
    const since = seq;
    if (!giveToPage(fetched.files)) return { ok: false, reason: SENTENCES.noInput };
    const failed = (reason) => {
      removeAll();
      return { ok: false, reason };
    };
    const chips = await chipsSettled(list, until);
    if (chips) return failed(chips);
    const ids = await whenNoted(() => fileIds(list, since), IDS_MS);
    if (!ids) {
      const missing = list.findIndex((a, i) => !fileIds(list.slice(0, i + 1), since));
      return failed(SENTENCES.noFileId(missing, list[missing]));
    }
    return { ok: true, confirmed: ids };
  }

  /** Whether the composer still shows exactly the attached files, all uploaded. */
  const stillAttached = (confirmed) => {
    const chips = S.fileChips();
    return chips.length === (confirmed ? confirmed.length : 0) && chips.every((c) => c.state === 'done');
  };

  window.sendledgerAttach = Object.freeze({ attach, removeAll, stillAttached, UPLOAD_MS });
})();
