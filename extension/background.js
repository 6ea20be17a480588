// The extension's service worker: the only part that talks to the sendledger bridge
// (docs/bridge-api.md). A page-context fetch to loopback is blocked for a public site, and
// the page's own scripts can read anything the page can, so the token lives here, in
// extension storage, and every bridge request is made from here.
//
// Chromium stops an idle service worker at any time: nothing lives only in memory.
//   chrome.storage.local   {bridge: "127.0.0.1:27615", token}          (survives restarts)
//   chrome.storage.session {connection, leases, last_error, snapshot, outcomes, observed, artifact_polls, trip:<tab id>}  (this browser session)
// Long-polls are bounded (≤ 25 s) and re-issued by the content script that asked; a request
// whose answer was lost with a stopped worker is reported to the caller as lost. A send's
// attachment bytes pass through here to the tab that holds the send, and an answer's generated
// files from the tab to the owner (never stored, never logged).

const DEFAULT_BRIDGE = '127.0.0.1:27615';
const MAX_WAIT_MS = 25_000;
const SLACK_MS = 10_000; // beyond the long-poll bound before a request counts as lost
const MAX_TRIPS = 64; // `trip:<tab id>` keys kept at most (setTrip)
const TRIP_KEEP_MS = 10 * 60_000; // how long a trip is kept (a claim is failed within 60 s)

const local = chrome.storage.local;
const session = chrome.storage.session;

/** The bridge's address and the extension token, or nulls. */
async function pairing() {
  const { bridge, token } = await local.get(['bridge', 'token']);
  return { bridge: bridge || DEFAULT_BRIDGE, token: token || null };
}

// The connection state last written by this worker (a restarted worker writes it anew):
// a request that finds it unchanged writes nothing, so a bridge request costs no storage
// write in the usual case (an answer's observations go one after another: issue 39).
let lastConnection = null;
async function noteConnection(state, detail) {
  const key = `${state}\n${detail || ''}`;
  if (key === lastConnection) return;
  lastConnection = key;
  await session.set({ connection: { state, detail: detail || null, at: Date.now() } });
}

/** Appends `entry` to the diagnostic log `key` in session storage, keeping the last 20. */
async function appendLog(key, entry) {
  const { [key]: log = [] } = await session.get(key);
  log.push(entry);
  await session.set({ [key]: log.slice(-20) });
}

// The `observed` and `outcomes` diagnostic logs, each written one entry after another; the
// observations' path does not wait for `observed` (issue 39).
let observedLog = Promise.resolve();
let outcomesLog = Promise.resolve();
function noteObserved(entry) {
  observedLog = observedLog.then(() => appendLog('observed', entry)).catch(() => {});
}

async function noteError(message) {
  await session.set({ last_error: { message, at: Date.now() } });
}

/**
 * One bridge request. Answers `{ok: true, status, body}` or
 * `{ok: false, status, code, message}`; `status` 0 means the bridge was not reached.
 */
async function bridgeRequest(method, path, body, { timeoutMs = 15_000, auth = true, contentType = null, label = path, quietIfAbsent = false, signal = null } = {}) {
  const { bridge, token } = await pairing();
  if (auth && !token) {
    return { ok: false, status: 0, code: 'not_paired', message: 'not paired: open the sendledger extension popup and enter a pairing code' };
  }
  const headers = {};
  if (auth) headers.authorization = `Bearer ${token}`;
  // A body is JSON, or raw bytes (a Uint8Array) sent as `contentType`.
  const raw = body instanceof Uint8Array;
  if (body !== undefined) headers['content-type'] = raw ? contentType || 'application/octet-stream' : 'application/json';
  let response;
  try {
    response = await fetch(`http://${bridge}${path}`, {
      method,
      headers,
      body: body === undefined || raw ? body : JSON.stringify(body),
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs),
      cache: 'no-store',
    });
  } catch {
    // Given up by the caller (`signal`: a shared poll replaced by a newer one): no news of the bridge.
    if (signal && signal.aborted) return { ok: false, status: 0, code: 'aborted', message: 'the request was given up' };
    const message = `sendledger is not reachable at ${bridge}: start the app (or \`sendledger serve\`)`;
    await noteConnection('unreachable', message);
    return { ok: false, status: 0, code: 'unreachable', message };
  }
  let answer;
  try {
    answer = await response.json();
  } catch {
    answer = {};
  }
  if (response.ok) {
    await noteConnection('connected');
    return { ok: true, status: response.status, body: answer };
  }
  const code = answer.code || `http_${response.status}`;
  const message = answer.message || `the bridge answered ${response.status}`;
  if (response.status === 401 || code === 'unauthorized') {
    await noteConnection('unpaired', message);
  } else {
    await noteConnection('connected');
  }
  // A lease that ended because its tab leased again (a navigation, a new chat's id) is
  // routine — the tab's next page holds the new lease — and no problem to show a person.
  // An owner older than a route (`quietIfAbsent`: 404) is no problem either.
  if (code !== 'lease_ended' && !(quietIfAbsent && response.status === 404)) await noteError(`${label}: ${message}`);
  return { ok: false, status: response.status, code, message };
}

/** The most bytes one attachment may have (the owner's own bound, docs/bridge-api.md). */
const MAX_ATTACHMENT_BYTES = 32 * 1024 * 1024;

/** Base64 of bytes, in slices (String.fromCharCode takes a bounded argument list). */
function base64Of(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * An attachment's bytes for the send a lease holds claimed: `GET /v1/ext/attachments/{sha}
 * ?lease_id=`. Answers `{ok: true, status, body: {mime, size, base64}}` (base64: extension
 * messages carry JSON only) or a refusal like `bridgeRequest`'s. The bytes are in no log
 * and no storage: they go to the tab that asked, which gives them to the page's file input.
 */
async function attachmentBytes(leaseId, sha256) {
  if (!/^[0-9a-f]{64}$/.test(String(sha256))) return { ok: false, status: 0, code: 'bad_attachment', message: 'the send names an attachment that is not a SHA-256 digest' };
  const { bridge, token } = await pairing();
  if (!token) return { ok: false, status: 0, code: 'not_paired', message: 'not paired: open the sendledger extension popup and enter a pairing code' };
  let response;
  try {
    response = await fetch(`http://${bridge}/v1/ext/attachments/${sha256}?lease_id=${encodeURIComponent(leaseId)}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(60_000),
      cache: 'no-store',
    });
    if (!response.ok) {
      const answer = await response.json().catch(() => ({}));
      return { ok: false, status: response.status, code: answer.code || `http_${response.status}`, message: answer.message || `the bridge answered ${response.status}` };
    }
    const declared = Number(response.headers.get('content-length'));
    if (declared > MAX_ATTACHMENT_BYTES) return { ok: false, status: response.status, code: 'attachment_too_large', message: `the attachment has ${declared} bytes, more than the ${MAX_ATTACHMENT_BYTES} an attachment may have` };
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length > MAX_ATTACHMENT_BYTES) return { ok: false, status: response.status, code: 'attachment_too_large', message: `the attachment has more than the ${MAX_ATTACHMENT_BYTES} bytes an attachment may have` };
    const mime = response.headers.get('content-type') || 'application/octet-stream';
    return { ok: true, status: response.status, body: { mime, size: bytes.length, base64: base64Of(bytes) } };
  } catch {
    const message = `sendledger is not reachable at ${bridge}: start the app (or \`sendledger serve\`)`;
    await noteConnection('unreachable', message);
    return { ok: false, status: 0, code: 'unreachable', message };
  }
}

/** Bytes from base64 (a generated file's, from the tab). */
function bytesOf(base64) {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * An answer's generated file, fetched by the tab through the page's download route, to the
 * owner: `POST /v1/ext/artifacts/{op}/{n}?lease_id=&name=` with the raw bytes as `mime`
 * (issue 29, contract §2). Checked here against its size and the 32 MiB bound first. The
 * bytes pass through, never stored, never logged; the error note names no file.
 */
async function artifactUpload(m) {
  const at = `/v1/ext/artifacts/${encodeURIComponent(String(m.op_id))}/${encodeURIComponent(String(Number(m.n)))}`;
  let bytes;
  try {
    bytes = bytesOf(String(m.base64 || ''));
  } catch {
    return { ok: false, status: 0, code: 'bad_artifact', message: 'the tab handed a generated file that is not base64' };
  }
  if (bytes.length !== Number(m.size) || bytes.length > MAX_ATTACHMENT_BYTES) {
    return { ok: false, status: 0, code: 'bad_artifact', message: `the tab handed a generated file of ${bytes.length} bytes (said ${Number(m.size)}, at most ${MAX_ATTACHMENT_BYTES})` };
  }
  const name = typeof m.name === 'string' && m.name ? `&name=${encodeURIComponent(m.name.slice(0, 255))}` : '';
  const mime = /^[\w.+-]+\/[\w.+-]+$/.test(String(m.mime)) ? String(m.mime) : 'application/octet-stream';
  return bridgeRequest('POST', `${at}?lease_id=${encodeURIComponent(m.lease_id)}${name}`, bytes, { timeoutMs: 60_000, contentType: mime, label: `${at} (a generated file)` });
}

// Every change of the stored leases goes through this chain, one at a time: a release of
// the old lease finishing after the new lease was stored must not erase the new one.
let leaseWrites = Promise.resolve();
function updateLeases(change) {
  const next = leaseWrites.then(async () => {
    const { leases = {} } = await session.get('leases');
    change(leases);
    await session.set({ leases });
  });
  leaseWrites = next.catch(() => {});
  return next;
}

function setLease(tabId, lease) {
  return updateLeases((leases) => {
    if (lease) leases[tabId] = lease;
    else delete leases[tabId];
  });
}

/** Forgets the tab's lease only if it is still `leaseId` (compare and delete, in order). */
function forgetLeaseIf(tabId, leaseId) {
  return updateLeases((leases) => {
    if (leases[tabId] && leases[tabId].lease_id === leaseId) delete leases[tabId];
  });
}

async function leaseOf(tabId) {
  const { leases = {} } = await session.get('leases');
  return leases[tabId] || null;
}

/** Exchanges a pairing code for the extension token. */
async function pair({ bridge, code }) {
  const address = String(bridge || DEFAULT_BRIDGE).trim().replace(/^https?:\/\//, '').replace(/\/+$/, '');
  if (!/^(127\.0\.0\.1|localhost|\[::1\]):\d{1,5}$/.test(address)) {
    return { ok: false, code: 'bad_address', message: 'the bridge address must be a loopback address with a port, like 127.0.0.1:27615' };
  }
  await local.set({ bridge: address });
  const r = await bridgeRequest('POST', '/v1/pair', { code: String(code || '').trim().toUpperCase() }, { auth: false });
  if (!r.ok) return r;
  await local.set({ token: r.body.token });
  await session.set({ leases: {}, last_error: null });
  await noteConnection('connected');
  // Tell the chat sites' tabs, so they lease and start taking sends.
  const tabs = await chrome.tabs.query({ url: CHAT_SITES });
  for (const tab of tabs) chrome.tabs.sendMessage(tab.id, { type: 'paired' }).catch(() => {});
  return { ok: true };
}

async function status() {
  const { bridge, token } = await pairing();
  const s = await session.get(['connection', 'leases', 'last_error', 'snapshot']);
  return {
    ok: true,
    bridge,
    paired: !!token,
    extension_id: chrome.runtime.id,
    connection: s.connection || { state: token ? 'unknown' : 'unpaired', at: null },
    leases: s.leases || {},
    last_error: s.last_error || null,
    snapshot: s.snapshot || null,
  };
}

// ---------------------------------------------------------------- one poll for all tabs

// Chromium keeps at most six connections to one host: one long-poll per tab would leave the
// seventh and eighth tab's observations, receipts and grant asks waiting behind the polls
// (issue 39). So the tabs' long-polls — `next` (a send or a page check) and `remoteStops`
// with a wait (while an answer is generating) — become one poll, `POST /v1/ext/next` with
// `lease_ids` and `stop_lease_ids` (docs/bridge-api.md, `POST /v1/ext/next` (many tabs)): the owner
// answers as soon as any of them has something, and each entry goes to the tab that asked.
// A tab that asks while the poll is open replaces it (the open one is given up: a claim it
// made is handed again to its lease by the next poll). Kept in memory only: a stopped
// worker loses the waiting asks, and their tabs, told `lost`, ask again.
const POLL_GATHER_MS = 10; // asks arriving this close together go into one poll
const POLL_MAX_LEASES = 64; // the owner's bound per poll (ext_poll.rs MAX_POLL_LEASES)
const waiting = new Map(); // `${wants}:${lease_id}` → {lease_id, wants, deadline, resolve}
let openPoll = null; // {controller, keys}
let pollTimer = null;

/** What a tab is told when its wait ran out with nothing for it (as the one-lease poll). */
const emptyAnswer = (wants) => ({ ok: true, status: 200, body: wants === 'send' ? { send: null } : { remote_stops: [] } });

/** A tab's long-poll, answered by the shared poll. `wants`: `send` or `stops`. */
function pollFor(leaseId, wants, waitMs) {
  const key = `${wants}:${leaseId}`;
  const earlier = waiting.get(key);
  if (earlier) earlier.resolve(emptyAnswer(wants)); // the same tab asked again: the newer ask waits
  return new Promise((resolve) => {
    waiting.set(key, { lease_id: String(leaseId), wants, deadline: Date.now() + waitMs, resolve });
    schedulePoll();
  });
}

function schedulePoll() {
  if (!pollTimer) pollTimer = setTimeout(runPoll, POLL_GATHER_MS);
}

/** Answers the asks whose wait ran out. */
function expireAsks() {
  const now = Date.now();
  for (const [key, w] of waiting) {
    if (w.deadline > now) continue;
    waiting.delete(key);
    w.resolve(emptyAnswer(w.wants));
  }
}

async function runPoll() {
  pollTimer = null;
  expireAsks();
  const asks = [...waiting.entries()].slice(0, POLL_MAX_LEASES);
  if (openPoll) {
    if (asks.every(([key]) => openPoll.keys.has(key))) return; // the open poll carries them all
    openPoll.controller.abort();
  }
  if (!asks.length) return;
  const mine = { controller: new AbortController(), keys: new Set(asks.map(([key]) => key)) };
  openPoll = mine;
  const wait = Math.max(0, Math.min(MAX_WAIT_MS, ...asks.map(([, w]) => w.deadline - Date.now())));
  const body = {
    lease_ids: asks.filter(([, w]) => w.wants === 'send').map(([, w]) => w.lease_id),
    stop_lease_ids: asks.filter(([, w]) => w.wants === 'stops').map(([, w]) => w.lease_id),
    wait_ms: wait,
  };
  const r = await bridgeRequest('POST', '/v1/ext/next', body, { timeoutMs: wait + SLACK_MS, signal: mine.controller.signal, label: '/v1/ext/next' });
  if (openPoll === mine) openPoll = null;
  if (mine.controller.signal.aborted) return; // a newer poll carries these asks
  deliverPoll(r, mine.keys);
  schedulePoll();
}

/** Each entry of the poll's answer to the tab that asked; a refused poll to all its asks. */
function deliverPoll(r, keys) {
  const answer = (key, a) => {
    const w = waiting.get(key);
    if (!w || !keys.has(key)) return;
    waiting.delete(key);
    w.resolve(a);
  };
  if (!r.ok) {
    for (const key of keys) answer(key, r);
  } else {
    for (const e of Array.isArray(r.body.answers) ? r.body.answers : []) {
      const key = `${e.wants}:${e.lease_id}`;
      if (e.error) answer(key, { ok: false, status: e.error.status, code: e.error.code, message: e.error.message });
      else if (e.wants === 'stops') answer(key, { ok: true, status: 200, body: { remote_stops: e.remote_stops } });
      else answer(key, { ok: true, status: 200, body: { send: e.send, ...(e.page_check ? { page_check: e.page_check } : {}) } });
    }
  }
  expireAsks();
}
/** The chat sites' tabs (issue 36): a tab's site is its origin's, `null` for any other page. */
const CHAT_SITES = ['https://chatgpt.com/*', 'https://claude.ai/*'];
const siteOf = (sender) => ({ 'https://chatgpt.com': 'chatgpt', 'https://claude.ai': 'claude' })[sender && sender.origin ? sender.origin : String((sender && sender.url) || '').replace(/^(https:\/\/[^/]+).*$/, '$1')] || null;

/** What a content script may ask for; `tabId` comes from the sender, never the message. */
const handlers = {
  async lease(tabId, m, sender) {
    const binding = {
      tab_id: String(tabId),
      site: siteOf(sender), // the tab's own site, never the message's word for it
      conversation_id: m.conversation_id ?? null,
      thread_id: m.thread_id ?? null,
      workspace_id: m.workspace_id ?? null,
    };
    const r = await bridgeRequest('POST', '/v1/ext/lease', binding);
    if (r.ok) await setLease(tabId, { lease_id: r.body.lease_id, epoch: r.body.epoch, site: binding.site, conversation_id: binding.conversation_id, project_id: binding.thread_id, at: Date.now() });
    return r;
  },
  async next(tabId, m) {
    const wait = Math.min(Number(m.wait_ms) || MAX_WAIT_MS, MAX_WAIT_MS);
    return pollFor(m.lease_id, 'send', wait); // the one poll of all tabs
  },
  async dispatch(tabId, m) {
    const body = { lease_id: m.lease_id, op_id: m.op_id };
    if (m.confirmed) body.confirmed = m.confirmed;
    return bridgeRequest('POST', '/v1/ext/dispatch', body);
  },
  async attachment(tabId, m) {
    return attachmentBytes(m.lease_id, m.sha256);
  },
  async fail(tabId, m) {
    await noteError(m.reason);
    const body = { lease_id: m.lease_id, op_id: m.op_id, stage: m.stage, reason: m.reason };
    // The page-contract fact that did not hold (issue 35): `needs: "every"` closes the page gate.
    if (m.page_fact) body.page_fact = { id: m.page_fact.id, needs: m.page_fact.needs };
    return bridgeRequest('POST', '/v1/ext/fail', body);
  },
  async observe(tabId, m) {
    const r = await bridgeRequest('POST', '/v1/ext/observations', m.observation, { timeoutMs: 30_000 });
    // For diagnosis: what the owner made of the latest observations (facts, never text).
    noteObserved({ kind: m.observation.kind, stream_id: m.observation.stream_id || null, op_id: m.observation.op_id || null, status: r.status, answer: r.ok ? r.body.applied : r.code });
    return r;
  },
  async remoteStops(tabId, m) {
    const wait = Math.min(Number(m.wait_ms) || 0, 25_000);
    if (wait > 0) return pollFor(m.lease_id, 'stops', wait); // a long-poll: in the one poll of all tabs
    return bridgeRequest('GET', `/v1/ext/remote-stops?lease_id=${encodeURIComponent(m.lease_id)}&wait_ms=${wait}`);
  },
  async remoteStopPhase(tabId, m) {
    const body = { lease_id: m.lease_id, phase: m.phase };
    if (m.evidence) body.evidence = m.evidence;
    return bridgeRequest('POST', `/v1/ext/remote-stops/${encodeURIComponent(m.op_id)}`, body);
  },
  // An answer's generated files (artifacts.js): the wanted ones, a file's bytes, the page's refusal.
  async artifacts(tabId, m, sender) {
    const wait = Math.min(Number(m.wait_ms) || 0, MAX_WAIT_MS);
    const shown = m.conversation_id ? `&conversation_id=${encodeURIComponent(m.conversation_id)}` : '';
    const r = await bridgeRequest('GET', `/v1/ext/artifacts?lease_id=${encodeURIComponent(m.lease_id)}&wait_ms=${wait}${shown}`, undefined, { timeoutMs: wait + SLACK_MS });
    // For diagnosis: how many artifacts each answered poll of a page named (facts only, no file ids).
    const { artifact_polls: polls = [] } = await session.get('artifact_polls');
    polls.push({ tab_id: tabId, document_id: sender.documentId || null, status: r.status, wanted: r.ok && r.body && Array.isArray(r.body.artifacts) ? r.body.artifacts.length : null, at: Date.now() });
    await session.set({ artifact_polls: polls.slice(-20) });
    return r;
  },
  async artifactUpload(tabId, m) {
    return artifactUpload(m);
  },
  async artifactUnavailable(tabId, m) {
    const at = `/v1/ext/artifacts/${encodeURIComponent(String(m.op_id))}/${encodeURIComponent(String(Number(m.n)))}/unavailable`;
    return bridgeRequest('POST', at, { lease_id: m.lease_id, words: String(m.words || '').slice(0, 500) });
  },
  async release(tabId, m) {
    const r = await bridgeRequest('POST', '/v1/ext/release', { lease_id: m.lease_id, reason: m.reason });
    await forgetLeaseIf(tabId, m.lease_id);
    return r;
  },
  async outcome(tabId, m) {
    // What the tab did with a send (no text): clicked, refused, lost, failed before dispatch.
    // One entry after another (a tab need not wait for one before sending the next).
    const entry = { tab_id: tabId, op_id: m.op_id, outcome: m.outcome, detail: m.detail || null, at: Date.now() };
    outcomesLog = outcomesLog.then(() => appendLog('outcomes', entry)).catch(() => {});
    await outcomesLog;
    return { ok: true };
  },
  async snapshot(tabId, m) {
    await session.set({ snapshot: { ...m.snapshot, tab_id: tabId } });
    return { ok: true };
  },
  // A check of the page (report.js): asked by the owner (`request_id`), or sent with a send
  // that failed on a page fact (`op_id`, interfaces.md shape 2). An owner without the route
  // answers 404: nothing to do.
  async pageCheck(tabId, m) {
    const body = { lease_id: m.lease_id, check: m.check };
    if (m.op_id) body.op_id = String(m.op_id);
    if (m.request_id) body.request_id = String(m.request_id);
    if (m.report) body.report = m.report;
    return bridgeRequest('POST', '/v1/ext/page-check', body, { timeoutMs: 15_000, label: '/v1/ext/page-check', quietIfAbsent: true });
  },
  async tabReport(tabId, m) {
    // A tab that cannot take a send (or, reason null, can again): kept by the owner so that
    // status and a queued send can say why nothing goes out.
    const body = { tab_id: String(tabId), reason: m.reason ?? null, path: m.path ?? null };
    if (m.reason) await noteError(m.reason);
    return bridgeRequest('POST', '/v1/ext/tab-report', body);
  },
  // A tab's trip to a send's destination (docs/extension.md, "The tab goes to the
  // destination"): the page that leaves is gone when the next one asks, so the worker keeps,
  // per tab, the op id it went for. `trip` answers whether this tab went for `op_id`.
  // Bounded: a trip older than TRIP_KEEP_MS is forgotten, and at most MAX_TRIPS are kept
  // (the oldest go first); a forgotten trip makes the next page type as if it had not gone.
  async setTrip(tabId, m) {
    const all = await session.get(null);
    const trips = Object.entries(all).filter(([k, v]) => k.startsWith('trip:') && k !== `trip:${tabId}` && v);
    trips.sort((a, b) => (b[1].at || 0) - (a[1].at || 0));
    const stale = trips.filter(([, v], i) => i >= MAX_TRIPS - 1 || !(Date.now() - (v.at || 0) < TRIP_KEEP_MS));
    if (stale.length) await session.remove(stale.map(([k]) => k));
    await session.set({ [`trip:${tabId}`]: { op_id: String(m.op_id), at: Date.now() } });
    return { ok: true, status: 200, body: {} };
  },
  async trip(tabId, m) {
    const key = `trip:${tabId}`;
    const { [key]: trip } = await session.get(key);
    const went = !!trip && trip.op_id === String(m.op_id) && Date.now() - (trip.at || 0) < TRIP_KEEP_MS;
    return { ok: true, status: 200, body: { went } };
  },
  async forgetLease(tabId, m) {
    await forgetLeaseIf(tabId, m.lease_id);
    return { ok: true };
  },
};

/** What the popup may ask for. */
const popupHandlers = {
  status: () => status(),
  pair: (m) => pair(m),
  // The profile's default destination: where a send naming no place goes (the popup's
  // "send into this conversation" / "a new chat each time" / "this Project").
  destination: () => bridgeRequest('GET', '/v1/ext/default-destination'),
  setDestination: (m) => bridgeRequest('PUT', '/v1/ext/default-destination', m.named || {}),
  unpair: async () => {
    await local.remove('token');
    await session.set({ leases: {} });
    await noteConnection('unpaired');
    return { ok: true };
  },
};

chrome.runtime.onMessage.addListener((message, sender, reply) => {
  if (sender.id !== chrome.runtime.id || !message || typeof message.type !== 'string') return false;
  // The popup is an extension page (it may also be open in a tab); content scripts run
  // in the chat sites' tabs. Each gets only its own set of requests.
  const fromExtensionPage = typeof sender.url === 'string' && sender.url.startsWith(`chrome-extension://${chrome.runtime.id}/`);
  const fromChatTab = !fromExtensionPage && sender.tab && typeof sender.tab.id === 'number' && !!siteOf(sender);
  let work;
  if (fromChatTab && handlers[message.type]) {
    work = handlers[message.type](sender.tab.id, message, sender);
  } else if (fromExtensionPage && popupHandlers[message.type]) {
    work = popupHandlers[message.type](message);
  } else {
    return false;
  }
  work.then(reply, (e) => reply({ ok: false, status: 0, code: 'extension_error', message: String(e && e.message) }));
  return true; // the answer comes asynchronously
});

// After an install or update, the chat sites' tabs that are already open get the content
// scripts again, each site its own (the manifest's entries, in order; Chromium does not
// re-inject them): the copy that was there stands down (content.js, "One copy per tab"),
// the page observer runs once per page.
chrome.runtime.onInstalled.addListener(async () => {
  for (const entry of chrome.runtime.getManifest().content_scripts) {
    const tabs = await chrome.tabs.query({ url: entry.matches });
    const world = entry.world === 'MAIN' ? { world: 'MAIN' } : {};
    for (const tab of tabs) chrome.scripting.executeScript({ target: { tabId: tab.id }, files: entry.js, ...world }).catch(() => {});
  }
});

chrome.tabs.onRemoved.addListener(async (tabId) => {
  const { token } = await pairing();
  if (token) bridgeRequest('POST', '/v1/ext/tab-report', { tab_id: String(tabId), reason: null, path: null });
  const lease = await leaseOf(tabId);
  if (!lease) return;
  await forgetLeaseIf(tabId, lease.lease_id);
  await bridgeRequest('POST', '/v1/ext/release', { lease_id: lease.lease_id, reason: 'tab closed' });
});
