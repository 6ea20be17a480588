// A send's attachments, given to the page (issue 29, issue 35; docs/extension.md,
// "Attachments (files in)"): after the tab is at the send's destination and before
// anything is typed, the bytes of each file come from the owner (through the service
// worker, which holds the token), are checked against the send's SHA-256 and size, and go
// to the page through a file input of its composer whose `accept` takes the file (a
// DataTransfer set as `input.files`, then `input` and `change`; a document never goes into
// an images-only input) — or, with no input at all, dropped on the composer. Never through
// the page's upload endpoints: the page uploads them itself. Then it watches the chips the
// page shows, recognised by meaning (contract/files.js): a chip in error fails the send at
// once with the page's words; a file with no chip this extension recognises within
// CHIP_MS fails it as unrecognised (page fact files.chip); every chip uploaded, and the
// page's own traffic gave each a file id (page-observer.js's `page-file` notes of `POST
// /backend-api/files` and `…/uploaded`) → typed and granted with the file ids. A page
// whose chips wait for the Send click (a bar at its minimum, nothing busy, no upload in
// its traffic for QUIET_MS): the grant names the files with no file id, and that one
// click is the send — the page uploads and sends by itself; never a second click. Else a
// timeout (UPLOAD_MS) fails the send before dispatch, and the chips are removed: nothing
// typed, nothing clicked.
//
// Loaded as a classic content script after contract/files.js; exposes
// `window.sendledgerAttach`. The bytes live only in this script's memory and in the page's
// own file list.

(() => {
  const F = window.sendledgerFiles;
  const C = window.sendledgerContract;
  const TAG = '__sendledger';
  // How long the page may take to show every file uploaded: under the owner's claim bound
  // (60 s by default from the claim to the grant ask), which would end the send anyway.
  const UPLOAD_MS = 40_000;
  const IDS_MS = 5_000; // how long the page's file ids may lag behind its chips
  const CHIP_MS = 5_000; // how long the page may take to show a chip this extension recognises
  const QUIET_MS = 2_000; // chips waiting with no upload in the traffic this long: the page waits for the click
  const POLL_MS = 200;
  const MAX_NOTES = 200;

  const which = (i, a) => `attachment ${i + 1} ("${a.name}")`;
  const SENTENCES = {
    notFetched: (i, a, why) => `${which(i, a)} could not be fetched from sendledger (${why}): nothing was typed`,
    corrupt: (i, a) => `${which(i, a)} came from sendledger with other bytes than the send recorded (size or SHA-256 differs): nothing was typed`,
    noInput: 'the page shows no file input and no drop target for attachments (chatgpt.com layout changed): nothing was typed',
    noInputTakes: (i, a, accepts) =>
      `no file input of the page takes ${which(i, a)}, of type ${a.mime || 'unknown'}: its inputs accept only ${accepts} (a file never goes into an input that does not take it, where the page stalls it); nothing was typed`,
    refused: (name, words) => `the page refused the attachment "${name}" ("${words}"): nothing was typed`,
    refusedNoWords: (name) => `the page refused the attachment "${name}" (its chip shows an error without words): nothing was typed`,
    unrecognised: (i, a) => C.refusal('files.chip', `no chip with a name, a readable state and a remove button for ${which(i, a)} within ${CHIP_MS / 1000} s`),
    notUploaded: (names) => `the page did not show ${names} as uploaded within ${UPLOAD_MS / 1000} s: nothing was typed`,
    chipsDiffer: (shown, names) => `the composer shows the files ${shown}; the send has ${names}: nothing was typed`,
    noFileId: (i, a) => `the page's own upload of ${which(i, a)} was not seen in its traffic (no file id within ${IDS_MS / 1000} s): nothing was typed`,
  };
  /** A failure the page contract names: `{reason, fact: {id, needs}}`. */
  const factFailure = (reason, id) => ({ reason, fact: { id, needs: 'files' } });

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

  /** Sets `files` on `input` as a person's pick does (one at a time unless it takes several). */
  function pick(input, files) {
    for (const batch of input.multiple ? [files] : files.map((f) => [f])) {
      const dt = new DataTransfer();
      for (const f of batch) dt.items.add(f);
      input.files = dt.files;
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.dispatchEvent(new Event('change', { bubbles: true }));
    }
  }

  /** Drops `files` on the composer; false when there is none. */
  function drop(files) {
    const target = F.dropTarget();
    if (!target) return false;
    const dt = new DataTransfer();
    for (const f of files) dt.items.add(f);
    for (const type of ['dragenter', 'dragover', 'drop']) {
      target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    }
    return true;
  }

  /**
   * Gives the files to the page: each through an input whose `accept` takes it (one input
   * that takes them all when there is one, those with fewer limits first), else — with no
   * input at all — a drop on the composer. Nothing is given when one file has no input
   * that takes it. Returns null, or the failure.
   */
  function giveToPage(files, list) {
    const inputs = F.inputs();
    if (!inputs.length) return drop(files) ? null : factFailure(SENTENCES.noInput, 'files.inputs');
    const takers = files.map((f) => F.inputsFor(f));
    const none = takers.findIndex((t) => !t.length);
    if (none >= 0) {
      const accepts = [...new Set(inputs.map((i) => i.getAttribute('accept') || 'every file'))].join('; ');
      const id = files[none].type.startsWith('image/') ? 'files.inputs' : 'files.document_input';
      return factFailure(SENTENCES.noInputTakes(none, list[none], accepts), id);
    }
    const common = takers[0].find((i) => takers.every((t) => t.includes(i)));
    const groups = new Map();
    files.forEach((f, k) => {
      const input = common || takers[k][0];
      groups.set(input, [...(groups.get(input) || []), f]);
    });
    for (const [input, group] of groups) pick(input, group);
    return null;
  }

  // Names of files given to the page whose chips could not be removed (not recognised):
  // while the composer still shows one, it holds files (content.js's pageIdle).
  let stranded = [];

  /** Removes every file chip from the composer (the page's own remove buttons). */
  function removeAll(given = []) {
    const chips = F.chips();
    for (const c of chips) if (c.remove) c.remove.click();
    const removed = (name) => chips.some((c) => c.remove && F.names(c, name));
    stranded = [...stranded, ...given.filter((name) => !removed(name))].slice(-20);
  }

  /** Whether the composer shows files: a chip, or the name of a file it could not remove. */
  function holdsFiles() {
    if (F.chips().length) return true;
    const form = F.composer();
    const shown = form ? form.textContent || '' : '';
    stranded = stranded.filter((name) => shown.includes(name));
    return stranded.length > 0;
  }

  const quoted = (names) => names.map((n) => `"${n}"`).join(', ');

  /** Each of the send's files matched with a distinct chip that shows its name (null: none). */
  function matchChips(list, chips) {
    const used = new Set();
    return list.map((a) => {
      const c = chips.find((x) => !used.has(x) && F.names(x, a.name));
      if (c) used.add(c);
      return c || null;
    });
  }

  /** Whether the page's traffic shows an upload of `name` begun since note `since`. */
  const begun = (name, since) => notes.some((n) => n.seq > since && n.name === name);

  /** Resolves with `test()`'s value once truthy (on every page change, and every POLL_MS), or null after `ms`. */
  function poll(test, ms) {
    return new Promise((resolve) => {
      const end = (value) => {
        observer.disconnect();
        clearInterval(tick);
        clearTimeout(timer);
        resolve(value);
      };
      const check = () => {
        const value = test();
        if (value) end(value);
      };
      const observer = new MutationObserver(check);
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      const tick = setInterval(check, POLL_MS);
      const timer = setTimeout(() => end(test() || null), ms);
      check();
    });
  }

  /**
   * What the chips say, once they say it: `{reason, fact?}` (a refusal, a file with no
   * chip recognised within CHIP_MS, other files shown), `{done: true}` (every file
   * uploaded), `{deferred: true}` (every file waiting for the Send click, no upload begun
   * in the traffic for QUIET_MS), or null while undecided.
   */
  function chipVerdict(list, since, t0, quiet) {
    const chips = F.chips();
    const refused = chips.find((c) => c.state === 'error');
    if (refused) return { reason: refused.words ? SENTENCES.refused(refused.name, refused.words) : SENTENCES.refusedNoWords(refused.name) };
    const m = matchChips(list, chips);
    const missing = m.indexOf(null);
    if (missing >= 0) return Date.now() - t0 >= CHIP_MS ? factFailure(SENTENCES.unrecognised(missing, list[missing]), 'files.chip') : null;
    if (chips.length > list.length) {
      const names = list.map((a) => a.name);
      return { reason: SENTENCES.chipsDiffer(quoted(chips.map((c) => c.name)), quoted(names)) };
    }
    if (m.every((c) => c.state === 'done')) return { done: true };
    const waits = m.every((c) => c.state === 'done' || c.state === 'waiting') && !list.some((a, i) => m[i].state === 'waiting' && begun(a.name, since));
    if (!waits) {
      quiet.from = null;
      return null;
    }
    quiet.from = quiet.from || Date.now();
    return Date.now() - quiet.from >= QUIET_MS ? { deferred: true } : null;
  }

  /** The chips once settled (chipVerdict), or the reason the page did not upload in time. */
  async function chipsSettled(list, since) {
    const t0 = Date.now();
    const quiet = { from: null };
    const verdict = await poll(() => chipVerdict(list, since, t0, quiet), UPLOAD_MS);
    if (verdict) return verdict;
    const m = matchChips(list, F.chips());
    const pending = list.filter((a, i) => !m[i] || m[i].state !== 'done').map((a) => a.name);
    return { reason: SENTENCES.notUploaded(quoted(pending.length ? pending : list.map((a) => a.name))) };
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
   * Attaches the send's files (none: nothing to do). `tools`: the content script's `ask`.
   * Resolves `{ok: true, confirmed}` — `confirmed`: `[{file_id, name, size}]` for the grant
   * ask (`file_id` null for each file when the page waits for the Send click to upload
   * them), or null for a send without files — or `{ok: false, reason, fact?}` with the chips
   * removed (`fact`: `{id, needs}`, the page-contract fact that failed).
   */
  async function attach(send, held, { ask }) {
    const list = Array.isArray(send.attachments) ? send.attachments : [];
    if (!list.length) return { ok: true, confirmed: null };
    const fetched = await fetchAll(list, held, ask);
    if (fetched.reason) return { ok: false, reason: fetched.reason };
    const since = seq;
    const given = giveToPage(fetched.files, list);
    if (given) return { ok: false, ...given };
    const failed = (f) => {
      removeAll(list.map((a) => a.name));
      return { ok: false, ...f };
    };
    const chips = await chipsSettled(list, since);
    if (chips.reason) return failed(chips);
    if (chips.deferred) return { ok: true, confirmed: list.map((a) => ({ file_id: null, name: a.name, size: a.size })) };
    const ids = await whenNoted(() => fileIds(list, since), IDS_MS);
    if (!ids) {
      const missing = list.findIndex((a, i) => !fileIds(list.slice(0, i + 1), since));
      return failed({ reason: SENTENCES.noFileId(missing, list[missing]) });
    }
    return { ok: true, confirmed: ids };
  }

  /**
   * Whether the composer still shows exactly the attached files, all uploaded — or, for
   * files that wait for the Send click (no file id), still waiting or uploaded.
   */
  const stillAttached = (confirmed) => {
    const list = confirmed || [];
    const chips = F.chips();
    const m = matchChips(list, chips);
    const ok = (c, f) => c && (c.state === 'done' || (f.file_id === null && c.state === 'waiting'));
    return chips.length === list.length && m.every((c, i) => ok(c, list[i]));
  };

  /** Whether `confirmed` names files that waited for the Send click (no file ids). */
  const deferred = (confirmed) => !!confirmed && confirmed.some((f) => f.file_id === null);

  /**
   * After the one click on a page that uploads on it: the sentence when a chip of the send's
   * files shows an error before the page's request was seen (`sent()`), within UPLOAD_MS —
   * the page then does not send — or null.
   */
  async function refusedAfterClick(confirmed, sent) {
    const refused = () => {
      if (sent()) return 'sent';
      const c = matchChips(confirmed, F.chips()).find((x) => x && x.state === 'error');
      return c ? c : null;
    };
    const c = await poll(refused, UPLOAD_MS);
    if (!c || c === 'sent') return null;
    return `the page refused the attachment "${c.name}" ("${c.words || 'no words'}") after the one Send click that started its upload: the page did not send the message (its request was not seen); the click is not repeated`;
  }

  /** What the page's traffic showed of its uploads (counts only), for files.upload_route. */
  const seenUploads = () => ({
    created: notes.filter((n) => n.stage === 'created' && n.file_id).length,
    uploaded: notes.filter((n) => n.stage === 'uploaded' && n.ok).length,
  });

  window.sendledgerAttach = Object.freeze({ attach, removeAll: () => removeAll(), holdsFiles, stillAttached, deferred, refusedAfterClick, seenUploads, UPLOAD_MS });
})();
