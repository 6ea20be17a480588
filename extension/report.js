// Check this page and the page report (issue 35; docs/extension.md, "Check this page" and
// "The page report"). Runs in the content script's isolated world, after contract/*.js and
// selectors.js; exposes `globalThis.sendledgerReport`.
//
// It keeps, as the page's traffic goes by, the *shape* of the page's last conversation
// request, of its stream's events and of its file calls: key names, value types, event and
// op names, route templates — never a value that could be text, an id or a token. It
// listens to the same window messages page-observer.js posts to content.js (observations,
// `page-file`); the page's credentials (`page-headers`) are never read here. Keeping the
// shapes on this side, not in the page's own world, keeps them out of the page's reach.
//
// A report (`build`):
//   { kind: 'sendledger-page-report', version: 1, extension_version, made_at,
//     contract: [{id, needs, signals}],
//     check: {at, took_ms, results: [{id, needs, state, shows}]},
//     layout: <selectors.layoutSnapshot('page report', {root: 'body'})>,
//     traffic: {request, stream, files} }
// Bounded: 3,000 layout nodes, 64 stream event shapes, 8 file calls, shapes 6 deep and
// 40 keys wide.

(() => {
  const S = window.sendledgerSelectors;
  const TAG = '__sendledger';
  const MAX_DEPTH = 6;
  const MAX_KEYS = 40;
  const MAX_EVENTS = 64;
  const MAX_FILE_CALLS = 8;
  const MAX_PENDING = 64 * 1024; // an SSE line split across chunks, kept until it ends
  /** Keys whose string values are names (an event, an op, a type), kept when they look like one. */
  const NAME_KEYS = new Set(['type', 'o', 'op', 'event', 'kind', 'status', 'content_type', 'role', 'action', 'stage', 'model', 'model_slug', 'recipient', 'channel']);
  const NAME = /^[A-Za-z][A-Za-z0-9_.:/-]{0,47}$/;
  const KEY = /^[A-Za-z_][A-Za-z0-9_-]{0,39}$/;

  const named = (v) => typeof v === 'string' && NAME.test(v) && S.maskIds(v) === v;

  /** The shape of a JSON value: types, keys (id-like keys as `<key>`), names under NAME_KEYS. */
  function shapeOf(v, depth = 0, key = '') {
    if (v === null) return 'null';
    if (Array.isArray(v)) return v.length ? [shapeOf(v[0], depth + 1)] : [];
    if (typeof v === 'string') return NAME_KEYS.has(key) && named(v) ? `string:${v}` : 'string';
    if (typeof v !== 'object') return typeof v;
    if (depth >= MAX_DEPTH) return 'object';
    const out = {};
    for (const [k, inner] of Object.entries(v).slice(0, MAX_KEYS)) {
      const shown = KEY.test(k) && S.maskIds(k) === k ? k : '<key>';
      if (!(shown in out)) out[shown] = shapeOf(inner, depth + 1, k);
    }
    return out;
  }

  const parsed = (text) => {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  };

  /** A route as a template: the path with ids masked, no query, no host. */
  function routeOf(href) {
    try {
      return S.maskedPath(new URL(href, location.href).pathname);
    } catch {
      return '<route>';
    }
  }

  const traffic = { request: null, stream: null, files: [] };
  let pending = '';
  let streamId = null;

  /** One SSE line of the followed stream: its event name, or its data's shape. */
  function streamLine(line, current) {
    if (line.startsWith('event:')) {
      const name = line.slice(6).trim();
      current.event = named(name) ? name : '<event>';
    } else if (line.startsWith('data:')) {
      const data = line.slice(5).trim();
      const json = parsed(data);
      const shape = data === '[DONE]' ? '[DONE]' : json === undefined ? 'text' : shapeOf(json);
      addEvent({ event: current.event || null, data: shape });
      current.event = null;
    }
  }

  function addEvent(e) {
    const s = traffic.stream;
    const key = JSON.stringify(e);
    if (s.events.length >= MAX_EVENTS || s.events.some((x) => JSON.stringify(x) === key)) return;
    s.events.push(e);
  }

  /** The shapes of one observation (kind request, stream_chunk, websocket, stream_end). */
  function observe(o) {
    if (o.kind === 'request') {
      const body = parsed(o.body || '');
      traffic.request = { route: routeOf(o.url), status: typeof o.status === 'number' ? o.status : null, body: body === undefined ? 'text' : shapeOf(body) };
      traffic.stream = { format: null, events: [], ended: false };
      streamId = o.stream_id;
      pending = '';
    } else if (!traffic.stream || o.stream_id !== streamId) {
      return;
    } else if (o.kind === 'stream_chunk') {
      traffic.stream.format = 'sse';
      const lines = (pending + String(o.chunk || '')).split('\n');
      pending = lines.pop().slice(-MAX_PENDING);
      const current = {};
      for (const line of lines) streamLine(line.replace(/\r$/, ''), current);
    } else if (o.kind === 'websocket') {
      traffic.stream.format = 'websocket';
      const json = parsed(String(o.message || ''));
      addEvent({ event: 'frame', data: json === undefined ? 'text' : shapeOf(json) });
    } else if (o.kind === 'stream_end') {
      traffic.stream.ended = true;
    }
  }

  /** A page file call (`page-file`): its stage, status, and which fields it had — no values. */
  function observeFile(f) {
    if (!f || typeof f !== 'object') return;
    const call = { stage: named(f.stage) ? f.stage : '<stage>', fields: shapeOf(Object.fromEntries(Object.entries(f).filter(([k]) => k !== 'stage'))) };
    if (typeof f.status === 'number') call.status = f.status;
    if (typeof f.ok === 'boolean') call.ok = f.ok;
    traffic.files.push(call);
    if (traffic.files.length > MAX_FILE_CALLS) traffic.files.shift();
  }

  window.addEventListener('message', (ev) => {
    if (ev.source !== window || !ev.data || typeof ev.data[TAG] !== 'string') return;
    try {
      if (ev.data[TAG] === 'observation' && ev.data.observation) observe(ev.data.observation);
      else if (ev.data[TAG] === 'page-file') observeFile(ev.data.file);
    } catch {
      // a shape is diagnosis only: a frame it cannot read changes nothing
    }
  });

  /** Every fact's probe (contract.checkAll): nothing typed, nothing sent. */
  async function checkPage(openPicker = false) {
    const contract = window.sendledgerContract;
    if (!contract) return { at: Date.now(), took_ms: 0, results: [] };
    return contract.checkAll({ openPicker: !!openPicker });
  }

  /** The sanitized page report (see the file's head). */
  async function build(openPicker = false) {
    const contract = window.sendledgerContract;
    const check = await checkPage(openPicker);
    return {
      kind: 'sendledger-page-report',
      version: 1,
      extension_version: chrome.runtime.getManifest().version,
      made_at: Date.now(),
      // Which facts this extension knows, by id (their sources and words stay in the extension).
      contract: contract ? contract.list().map(({ id, needs, signals }) => ({ id, needs, signals })) : [],
      check,
      layout: S.layoutSnapshot('page report', { root: 'body' }),
      traffic: JSON.parse(JSON.stringify(traffic)),
    };
  }

  /**
   * A check the owner asked this tab for (`page_check` in the answer of `POST /v1/ext/next`:
   * `{request_id, open_picker, report}`), run and answered with `POST /v1/ext/page-check`
   * through the service worker. `held`: the lease the ask came under.
   */
  async function answer(request, held, ask) {
    const openPicker = !!request.open_picker;
    const report = request.report ? await build(openPicker) : null;
    const check = report ? report.check : await checkPage(openPicker);
    const body = { lease_id: held.lease_id, request_id: String(request.request_id || ''), check };
    if (report) body.report = report;
    return ask('pageCheck', body);
  }

  // The popup asks the tab it shows a check or a report for (chrome.tabs.sendMessage).
  chrome.runtime.onMessage.addListener((m, sender, reply) => {
    if (sender.id !== chrome.runtime.id || !m || (m.type !== 'checkPage' && m.type !== 'pageReport')) return false;
    const work = m.type === 'checkPage' ? checkPage(m.openPicker) : build(m.openPicker);
    work.then((value) => reply({ ok: true, value }), (e) => reply({ ok: false, message: String((e && e.name) || 'Error') }));
    return true;
  });

  window.sendledgerReport = Object.freeze({ checkPage, build, answer, shapeOf, routeOf });
})();
