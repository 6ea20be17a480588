// An answer's generated files, back to the owner (issue 29, "files out"; docs/extension.md,
// "Generated files"). Per tab lease, a quick ask every 3 s for the owner's wanted artifacts
// of the conversation the tab shows (`GET /v1/ext/artifacts`, through the service worker,
// which holds the token). An artifact
// is fetched only while this tab shows its conversation, and only through the page's own
// download route — `GET /backend-api/conversation/{c}/attachment/{file id}/download`, with the
// page's own credentials (its `authorization` and `oai-*` headers, noted by
// page-observer.js) — then its bytes from the `download_url` the page answered. The bytes
// go to the owner (`POST /v1/ext/artifacts/{op}/{n}`); the page's refusal goes as the
// artifact's words (`…/unavailable`). Artifacts of a conversation the tab does not show are
// left for when it shows it (or for another tab that does).
//
// Bounds: one artifact at a time; the page's route answers within ROUTE_MS (30 s), the
// bytes arrive within BYTES_MS (120 s); at most 32 MiB are read (past that the reading
// stops and the artifact is reported unavailable with a sentence); a failed download
// (network, the page's 5xx, 401 or 429) is tried MAX_TRIES (3) times, TRY_AGAIN_MS (30 s)
// apart, then reported unavailable. Bytes fetched and not yet taken by the owner (it was
// down, or restarting) are kept in this script's memory and handed again — never fetched
// again — until the owner answers; nothing else keeps them: no storage, no log.
//
// Loaded as a classic content script after selectors.js; exposes `window.sendledgerArtifacts`.

(() => {
  const S = window.sendledgerSelectors;
  const TAG = '__sendledger';
  // A quick ask every POLL_MS (or at once when the tab shows another conversation), never a
  // held long-poll: the browser keeps at most 6 connections to the owner, and each tab
  // already holds its `next` long-poll (and a remote-stop one while an answer is written)
  // — one more per tab stalled the page's observations behind them (browser scenario
  // two_tabs_in_two_conversations_…).
  const POLL_MS = 3_000;
  const RETRY_MS = 1_000; // while the owner is unreachable or the tab has no lease
  const REFUSED_MS = 5_000; // after another refusal of the ask
  const ROUTE_MS = 30_000;
  const BYTES_MS = 120_000;
  const MAX_BYTES = 32 * 1024 * 1024;
  const MAX_TRIES = 3;
  const TRY_AGAIN_MS = 30_000;
  const MAX_WORDS = 500;
  const MAX_NAME = 255;
  const MAX_SEEN = 500;

  const SENTENCES = {
    tooLarge: `the generated file is larger than the ${MAX_BYTES / (1024 * 1024)} MiB sendledger keeps of one file: open the conversation in ChatGPT to get it`,
    notFetched: (why) => `the page's download of the generated file failed ${MAX_TRIES} times (last: ${why}): open the conversation in ChatGPT to get it`,
    routeStatus: (status) => `the page's download route answered HTTP ${status} without words of its own`,
    badUrl: "the page's download route answered no usable download address",
    badId: 'the owner named a file id or conversation the page does not use',
    hostStatus: (status) => `the host of the page's download address answered HTTP ${status}`,
  };

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  // The page's own credentials for its backend-api calls (memory only).
  let pageHeaders = null;
  window.addEventListener('message', (ev) => {
    if (ev.source !== window || !ev.data || ev.data[TAG] !== 'page-headers') return;
    const h = ev.data.headers;
    if (!h || typeof h !== 'object') return;
    const kept = {};
    for (const [name, value] of Object.entries(h).slice(0, 12)) {
      if ((name === 'authorization' || name.startsWith('oai-')) && typeof value === 'string') kept[name] = value;
    }
    pageHeaders = kept;
  });

  /** Base64 of bytes, in slices (String.fromCharCode takes a bounded argument list). */
  function base64Of(bytes) {
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(binary);
  }

  /** The page's words, bounded; `fallback` when it gave none. */
  const wordsOf = (answer, fallback) => {
    const w = answer && typeof answer.error_message === 'string' && answer.error_message.trim() ? answer.error_message.trim() : fallback;
    return w.slice(0, MAX_WORDS);
  };

  /**
   * The page's download route for an artifact. Answers `{ok: true, url, name}`, `{final:
   * words}` (the page refused it: unavailable with its words) or `{again: why}` (try later).
   */
  async function route(a) {
    const path = `/backend-api/conversation/${a.conversation_id}/attachment/${a.file_id}/download`;
    let r;
    try {
      r = await fetch(path, { headers: pageHeaders || {}, credentials: 'include', cache: 'no-store', signal: AbortSignal.timeout(ROUTE_MS) });
    } catch {
      return { again: `the page's download route did not answer within ${ROUTE_MS / 1000} s` };
    }
    const answer = await r.json().catch(() => null);
    if (r.status >= 500 || r.status === 401 || r.status === 408 || r.status === 429) return { again: `the page's download route answered HTTP ${r.status}` };
    if (!r.ok || !answer || answer.status !== 'success') return { final: wordsOf(answer, SENTENCES.routeStatus(r.status)) };
    let url;
    try {
      url = new URL(String(answer.download_url));
    } catch {
      return { final: SENTENCES.badUrl };
    }
    if (url.protocol !== 'https:') return { final: SENTENCES.badUrl };
    const name = typeof answer.file_name === 'string' ? answer.file_name.slice(0, MAX_NAME) : null;
    return { ok: true, url: url.href, name };
  }

  /** Reads a response's body, at most MAX_BYTES: the bytes, or null past the bound. */
  async function boundedBytes(response) {
    const declared = Number(response.headers.get('content-length'));
    if (declared > MAX_BYTES) {
      response.body.cancel().catch(() => {});
      return null;
    }
    const reader = response.body.getReader();
    const parts = [];
    let n = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      n += value.length;
      if (n > MAX_BYTES) {
        reader.cancel().catch(() => {});
        return null;
      }
      parts.push(value);
    }
    const bytes = new Uint8Array(n);
    let at = 0;
    for (const p of parts) {
      bytes.set(p, at);
      at += p.length;
    }
    return bytes;
  }

  /**
   * Fetches an artifact the page's way. Answers `{ok: true, base64, size, mime, name}`,
   * `{final: words}` or `{again: why}` like `route`.
   */
  async function download(a) {
    const found = await route(a);
    if (!found.ok) return found;
    let response;
    try {
      response = await fetch(found.url, { cache: 'no-store', credentials: 'omit', signal: AbortSignal.timeout(BYTES_MS) });
    } catch {
      return { again: `the generated file's bytes did not arrive within ${BYTES_MS / 1000} s` };
    }
    if (!response.ok) return response.status >= 500 ? { again: SENTENCES.hostStatus(response.status) } : { final: SENTENCES.hostStatus(response.status) };
    let bytes;
    try {
      bytes = await boundedBytes(response);
    } catch {
      return { again: `the generated file's bytes did not arrive within ${BYTES_MS / 1000} s` };
    }
    if (!bytes) return { final: SENTENCES.tooLarge };
    const mime = (response.headers.get('content-type') || 'application/octet-stream').split(';')[0].trim();
    return { ok: true, base64: base64Of(bytes), size: bytes.length, mime, name: found.name };
  }

  // ---------------------------------------------------------------- the loop

  /** The one report not yet taken by the owner: `{a, bytes: {base64, size, mime, name}}` or `{a, words}`. */
  let pending = null;
  const tries = new Map(); // "op/n" → {n: failed downloads, next: when to try again (ms)}
  const settled = new Set(); // "op/n" this tab handed to the owner (bounded)
  const keyOf = (a) => `${a.op_id}/${a.n}`;
  const wellFormed = (a) => /^[0-9a-f-]{36}$/.test(String(a.conversation_id)) && /^file[-_][A-Za-z0-9]{1,64}$/.test(String(a.file_id));

  /** The owner answered in a way that ends this report (stored, or refused for good). */
  const decided = (r) => r.ok || (r.status >= 400 && r.status !== 401 && r.status !== 408 && r.status !== 410 && r.status !== 429 && r.status < 500 && r.code !== 'unknown_lease' && r.code !== 'lease_ended');

  /**
   * Hands the pending report to the owner under `lease`. True when the owner decided (its
   * answer ends the report), false when it must be handed again (owner down, lease gone).
   */
  async function handOver(lease, ask) {
    const { a } = pending;
    const at = { lease_id: lease.lease_id, op_id: String(a.op_id), n: Number(a.n) };
    const r = pending.bytes ? await ask('artifactUpload', { ...at, ...pending.bytes }) : await ask('artifactUnavailable', { ...at, words: pending.words });
    if (r.code === 'bad_artifact') {
      pending = { a, words: r.message.slice(0, MAX_WORDS) }; // the worker would never hand these bytes: say so instead
      return false;
    }
    if (!decided(r)) return false;
    settled.add(keyOf(a));
    if (settled.size > MAX_SEEN) settled.delete(settled.values().next().value);
    pending = null;
    return true;
  }

  /** Fetches one artifact the tab shows, into `pending` (or leaves it for a later try). */
  async function take(a) {
    const key = keyOf(a);
    if (!wellFormed(a)) {
      pending = { a, words: SENTENCES.badId };
      return;
    }
    const got = await download(a);
    if (got.ok) pending = { a, bytes: { base64: got.base64, size: got.size, mime: got.mime, name: got.name } };
    else if (got.final) pending = { a, words: got.final };
    else {
      const t = tries.get(key) || { n: 0 };
      t.n += 1;
      t.next = Date.now() + TRY_AGAIN_MS;
      tries.set(key, t);
      if (t.n >= MAX_TRIES) pending = { a, words: SENTENCES.notFetched(got.again) };
    }
    if (pending) tries.delete(key);
  }

  /** Resolves when the tab shows another conversation than `shown`, or after `ms`. */
  async function shownChanges(shown, ms, alive) {
    const until = Date.now() + ms;
    while (Date.now() < until && alive() && S.conversationId() === shown) await sleep(500);
  }

  /** The wanted artifacts of the conversation this tab shows, not settled, not waiting for a retry. */
  function forThisTab(wanted) {
    const now = Date.now();
    return wanted.filter((a) => a && a.conversation_id === S.conversationId() && !settled.has(keyOf(a)) && !((tries.get(keyOf(a)) || {}).next > now));
  }

  /**
   * The tab's artifact loop: `held()` is the tab's lease (or null), `ask` the content
   * script's request to the service worker, `alive()` whether this copy still runs.
   */
  async function watch(held, ask, alive) {
    while (alive()) {
      const lease = held();
      if (!lease) {
        await sleep(RETRY_MS);
        continue;
      }
      if (pending && !(await handOver(lease, ask))) {
        await sleep(RETRY_MS);
        continue;
      }
      // Only the conversation this tab shows (none on a new chat's page: nothing to fetch).
      const shown = S.conversationId();
      if (!shown) {
        await shownChanges(shown, POLL_MS, alive);
        continue;
      }
      const r = await ask('artifacts', { lease_id: lease.lease_id, wait_ms: 0, conversation_id: shown });
      if (!r.ok) {
        await sleep(r.lost || r.status === 0 || r.status === 503 ? RETRY_MS : REFUSED_MS);
        continue;
      }
      const wanted = Array.isArray(r.body && r.body.artifacts) ? r.body.artifacts.slice(0, 10) : [];
      const mine = forThisTab(wanted);
      // None this tab can fetch now: ask again when the tab shows another conversation, or
      // after POLL_MS.
      if (!mine.length) await shownChanges(S.conversationId(), POLL_MS, alive);
      for (const a of mine) {
        if (!alive() || held() !== lease || a.conversation_id !== S.conversationId()) break;
        await take(a);
        if (pending && !(await handOver(lease, ask))) break;
      }
    }
  }

  window.sendledgerArtifacts = { watch };
})();
