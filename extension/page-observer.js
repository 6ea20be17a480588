// Runs in the page's own JavaScript world at document_start (manifest "world": "MAIN"), in
// every chat site's tabs (chatgpt.com, claude.ai: SITES below has each one's routes).
// It wraps window.fetch and window.WebSocket to copy, without changing anything the page
// sees, the raw traffic the owner needs:
//   - a conversation POST's request body and its response stream, chunk by chunk (or, when
//     the server refused the request, its status, Retry-After and error body);
//   - a GET of a conversation (the listing used as evidence for uncertain sends);
//   - WebSocket frames of a topic the page was told to follow by `stream_handoff` (a frame
//     is one envelope or a JSON array of envelopes, possibly of several conversations: each
//     envelope is read by its own topic, and a turn ends only with its own topic's
//     `conversation-turn-complete`; while a turn is handed off, a frame whose topic cannot
//     be read is forwarded too, so the owner can say it was not understood);
//   - the page's own file uploads (issue 29): a `POST /backend-api/files` request's name and
//     size with the file id its answer gives (or the status and words of a refusal), and
//     whether `POST /backend-api/files/{id}/uploaded` succeeded — never the bytes. These go
//     to the content script only (`page-file`), which reports the page's file ids with the
//     grant ask (attach.js); they are no observation for the owner.
//   - the page's own POSTs to any other same-site route (issue 35, Work mode): the method, the
//     route as a template (ids and query dropped) and at most 256 KiB of the body, to the
//     content script only (`page-post`), which reports `request_elsewhere` to the owner —
//     never the body — when such a POST after a granted click carries the send's text.
//   - the page's own credentials for its `backend-api` calls (issue 29, files out): the
//     `authorization` and `oai-*` headers of its latest such request, to the content script
//     only (`page-headers`), so that artifacts.js fetches an answer's generated file through
//     the page's download route exactly as the page would. They stay in that script's memory:
//     never in a log, never in storage, never to the owner.
// Observations go to the isolated content script with window.postMessage, after a ready
// handshake (anything posted before the content script listens would be lost, so it is
// buffered here until the content script says it is ready). This script holds no token
// and talks to nothing but the content script; it decides nothing.

(() => {
  const TAG = '__sendledger';
  if (window[TAG]) return;
  Object.defineProperty(window, TAG, { value: true });

  const MAX_BUFFERED = 2000; // observations kept while the content script is not ready
  let ready = false;
  const buffered = [];

  const deliver = (message) => window.postMessage(message, location.origin);
  const post = (message) => {
    if (ready) deliver(message);
    else if (buffered.length < MAX_BUFFERED) buffered.push(message);
  };
  const emit = (observation) => post({ [TAG]: 'observation', observation });
  const noteFile = (file) => post({ [TAG]: 'page-file', file });

  window.addEventListener('message', (ev) => {
    if (ev.source !== window || !ev.data || ev.data[TAG] !== 'content-ready') return;
    if (!ready) {
      ready = true;
      for (const o of buffered.splice(0)) deliver(o);
    }
    window.postMessage({ [TAG]: 'observer-ready' }, location.origin);
  });
  window.postMessage({ [TAG]: 'observer-hello' }, location.origin);

  const MAX_ERROR_BODY = 8 * 1024; // characters of a refused request's body forwarded
  /**
   * Each site's routes (issue 36), the same RegExp literals as its page contract's traffic
   * facts: `post`, the POSTs copied with their answer (chatgpt.com: the conversation POST;
   * claude.ai: the completion, the retry route and the create call); `get`, the conversation
   * read copied as a `listing`; `org`, the organization in a path (posted once per value to
   * the content script as `page-org`, never a body).
   */
  const SITES = {
    'chatgpt.com': {
      post: [/^\/backend-api\/(?:f\/)?conversation\/?$/],
      get: /^\/backend-api\/conversations?\/[0-9a-f-]{36}\/?$/,
      org: null,
    },
    'claude.ai': {
      post: [
        /^\/api\/organizations\/[0-9a-f-]{36}\/chat_conversations\/[0-9a-f-]{36}\/completion$/,
        /^\/api\/organizations\/[0-9a-f-]{36}\/chat_conversations\/[0-9a-f-]{36}\/retry_completion$/,
        /^\/api\/organizations\/[0-9a-f-]{36}\/chat_conversations\/?$/,
      ],
      get: /^\/api\/organizations\/[0-9a-f-]{36}\/chat_conversations\/[0-9a-f-]{36}\/?$/,
      org: /^\/api\/organizations\/([0-9a-f-]{36})(?:\/|$)/,
    },
  };
  const SITE = SITES[location.hostname] || SITES['chatgpt.com'];
  let org = null;
  /** Tells the content script the organization a same-site path names, when it changed. */
  function noteOrg(url) {
    const found = SITE.org && url.pathname.match(SITE.org);
    if (!found || found[1] === org) return;
    org = found[1];
    post({ [TAG]: 'page-org', org });
  }
  const FILE_CREATE = /^\/backend-api\/files\/?$/;
  const FILE_UPLOADED = /^\/backend-api\/files\/([^/]+)\/uploaded\/?$/;
  const MAX_POST_BODY = 256 * 1024; // characters of another POST's body shown to the content script
  /** A path as a template: words kept, any other segment `<id>` (as the owner's route_template). */
  const routeTemplate = (pathname) =>
    '/' + pathname.split('/').filter(Boolean).map((s) => (s.length <= 32 && /^[a-z_-]+$/.test(s) ? s : '<id>')).join('/');
  let streams = 0;
  // Unique across tabs: the owner follows streams by this id, and two tabs may start one in
  // the same millisecond (eight tabs sending together did: one send's receipt was lost).
  const PAGE_ID = crypto.getRandomValues(new Uint32Array(2)).reduce((a, n) => a + n.toString(36), '');
  const newStreamId = () => `s${Date.now().toString(36)}-${PAGE_ID}-${(streams += 1)}`;

  /** Topics announced by `stream_handoff`, mapped to the HTTP stream that announced them. */
  const topics = new Map();
  /** Recent frames of topics not (yet) announced, replayed when the hand-off is read. */
  const early = [];
  const MAX_EARLY = 256;
  const MAX_TOPICS = 64; // topics followed at once (a turn announces one or two)

  function noteHandoffs(streamId, lines) {
    for (const line of lines) {
      if (!line.startsWith('data:') || !line.includes('stream_handoff')) continue;
      let event;
      try {
        event = JSON.parse(line.slice(5));
      } catch {
        continue;
      }
      if (!event || event.type !== 'stream_handoff' || !Array.isArray(event.options)) continue;
      for (const option of event.options) {
        if (!option || typeof option.topic_id !== 'string' || topics.has(option.topic_id)) continue;
        topics.set(option.topic_id, streamId);
        // Bounded: a turn whose completion never came keeps its topics until MAX_TOPICS
        // newer ones push them out (oldest first); its stream then reads as cut.
        while (topics.size > MAX_TOPICS) topics.delete(topics.keys().next().value);
        for (let i = 0; i < early.length; ) {
          if (early[i].topic === option.topic_id) {
            emit({ kind: 'websocket', stream_id: streamId, message: early[i].message });
            early.splice(i, 1);
          } else i += 1;
        }
      }
    }
  }

  /** The turn handed off by `streamId` is complete: forget its topics, end the stream. */
  function endHandoff(streamId) {
    let known = false;
    for (const [topic, id] of topics) {
      if (id === streamId) {
        topics.delete(topic);
        known = true;
      }
    }
    if (known) emit({ kind: 'stream_end', stream_id: streamId });
  }

  async function bodyText(input, init) {
    const body = init && 'body' in init ? init.body : undefined;
    if (typeof body === 'string') return body;
    if (body instanceof Blob) return body.text();
    if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return new TextDecoder().decode(body);
    if (body instanceof URLSearchParams) return body.toString();
    if (body === undefined && input instanceof Request) return input.clone().text();
    return '';
  }

  async function copyStream(streamId, response) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let seq = 0;
    let partial = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const chunk = decoder.decode(value, { stream: true });
        if (!chunk) continue;
        emit({ kind: 'stream_chunk', stream_id: streamId, seq: seq++, chunk });
        const lines = (partial + chunk).split('\n');
        partial = lines.pop();
        noteHandoffs(streamId, lines);
      }
      const rest = decoder.decode();
      if (rest) emit({ kind: 'stream_chunk', stream_id: streamId, seq: seq++, chunk: rest });
      noteHandoffs(streamId, [partial + rest]);
    } catch {
      // the page's own read was aborted (Stop, navigation): the stream simply ends here
    } finally {
      // A handed-off turn goes on over the WebSocket: its stream ends with the turn.
      if (![...topics.values()].includes(streamId)) emit({ kind: 'stream_end', stream_id: streamId });
    }
  }

  /** JSON of a text, or null. */
  const parsed = (text) => {
    try {
      return JSON.parse(text);
    } catch {
      return null;
    }
  };

  /**
   * The page's upload steps, read from its own requests and their answers: `created` (the
   * name and size it announced, the file id it was given, or the refusal's status and
   * words, at most 300 characters) and `uploaded` (the file id, and whether it was confirmed).
   */
  function watchFile(url, sent, answer) {
    const uploadedId = (url.pathname.match(FILE_UPLOADED) || [])[1] || null;
    answer.then(async (response) => {
      const body = parsed(await response.clone().text().catch(() => ''));
      if (uploadedId) return noteFile({ stage: 'uploaded', file_id: uploadedId, ok: response.ok && !!body && body.status === 'success' });
      const asked = parsed(await sent) || {};
      const words = body && typeof body.detail === 'string' ? body.detail.slice(0, 300) : null;
      noteFile({
        stage: 'created',
        name: typeof asked.file_name === 'string' ? asked.file_name : null,
        size: Number.isSafeInteger(asked.file_size) ? asked.file_size : null,
        file_id: response.ok && body && typeof body.file_id === 'string' ? body.file_id : null,
        status: response.status,
        words,
      });
    }, () => {});
  }

  const MAX_HEADERS = 12; // of the page's own headers noted
  const MAX_HEADER_CHARS = 8 * 1024;
  let notedHeaders = '';

  /** The `authorization` and `oai-*` headers of a request, as `{name: value}` (lower-case names). */
  function credentialHeaders(input, init) {
    let headers;
    try {
      headers = new Headers(init && init.headers ? init.headers : input instanceof Request ? input.headers : undefined);
    } catch {
      return {};
    }
    const out = {};
    for (const [name, value] of headers) {
      if (Object.keys(out).length >= MAX_HEADERS) break;
      if ((name === 'authorization' || name.startsWith('oai-')) && value.length <= MAX_HEADER_CHARS) out[name] = value;
    }
    return out;
  }

  /** Notes the page's credentials when a `backend-api` request carries them (and they changed). */
  function noteCredentials(url, input, init) {
    if (!url.pathname.startsWith('/backend-api/')) return;
    const headers = credentialHeaders(input, init);
    if (!headers.authorization) return;
    const key = JSON.stringify(headers);
    if (key === notedHeaders) return;
    notedHeaders = key;
    post({ [TAG]: 'page-headers', headers });
  }

  const pageFetch = window.fetch;
  window.fetch = function fetch(input, init) {
    let url;
    let method;
    try {
      url = new URL(input instanceof Request ? input.url : String(input), location.href);
      method = String((init && init.method) || (input instanceof Request ? input.method : 'GET')).toUpperCase();
    } catch {
      return pageFetch.apply(this, arguments);
    }
    const sameSite = url.origin === location.origin;
    if (sameSite) noteCredentials(url, input, init);
    if (sameSite) noteOrg(url);
    const isPost = sameSite && method === 'POST' && SITE.post.some((re) => re.test(url.pathname));
    const isListing = sameSite && method === 'GET' && SITE.get.test(url.pathname);
    if (sameSite && method === 'POST' && (FILE_CREATE.test(url.pathname) || FILE_UPLOADED.test(url.pathname))) {
      const sent = bodyText(input, init).catch(() => '');
      const answer = pageFetch.apply(this, arguments);
      watchFile(url, sent, answer);
      return answer;
    }
    if (sameSite && method === 'POST' && !isPost) {
      const route = routeTemplate(url.pathname);
      bodyText(input, init).then(
        (body) => post({ [TAG]: 'page-post', post: { method, route, body: body.slice(0, MAX_POST_BODY) } }),
        () => {},
      );
    }
    if (!isPost && !isListing) return pageFetch.apply(this, arguments);

    const streamId = newStreamId();
    const sent = isPost ? bodyText(input, init).catch(() => '') : null;
    const answer = pageFetch.apply(this, arguments);
    answer.then(
      async (response) => {
        // Clone before anything awaits: once the page starts reading, the body is locked.
        let copy;
        try {
          copy = response.body ? response.clone() : null;
        } catch {
          copy = null;
        }
        if (isListing) {
          if (response.ok && copy) emit({ kind: 'listing', url: url.href, body: await copy.text() });
          return;
        }
        // How the server answered the request itself: a refusal (429 with Retry-After, 403,
        // 431, …) means the message was not taken, and the owner reads its status, header
        // and words (at most 8 KiB of the body) instead of a stream.
        const answered = { status: response.status };
        if (!response.ok) {
          answered.retry_after = response.headers.get('retry-after');
          answered.error_body = copy ? (await copy.text().catch(() => '')).slice(0, MAX_ERROR_BODY) : '';
        }
        emit({ kind: 'request', stream_id: streamId, url: url.href, body: await sent, ...answered });
        if (copy && response.ok) await copyStream(streamId, copy);
        else emit({ kind: 'stream_end', stream_id: streamId });
      },
      async () => {
        if (isPost) {
          emit({ kind: 'request', stream_id: streamId, url: url.href, body: await sent });
          emit({ kind: 'stream_end', stream_id: streamId });
        }
      },
    );
    return answer;
  };

  const PageWebSocket = window.WebSocket;
  const MAX_UNATTRIBUTED = 200; // frames without a readable topic forwarded per hand-off

  /** The envelopes of a frame: one envelope, or a JSON array of envelopes; null: unreadable. */
  function envelopesOf(data) {
    let frame;
    try {
      frame = JSON.parse(data);
    } catch {
      return null;
    }
    return (Array.isArray(frame) ? frame : [frame]).filter((e) => e && typeof e === 'object');
  }

  /** Whether an envelope (or a payload inside it) says its turn is complete. */
  function completesTurn(envelope) {
    let at = envelope;
    for (let depth = 0; depth < 4 && at && typeof at === 'object'; depth += 1) {
      if (at.type === 'conversation-turn-complete') return true;
      at = at.payload;
    }
    return false;
  }

  const unattributed = new Map(); // stream id → frames forwarded without a topic

  function onFrame(data) {
    const envelopes = envelopesOf(data);
    const found = envelopes && envelopes.map((e) => e.topic_id).filter((t) => typeof t === 'string');
    if (found && found.length) {
      const streams = new Set(found.map((t) => topics.get(t)).filter(Boolean));
      if (!streams.size) {
        for (const topic of new Set(found)) {
          early.push({ topic, message: data });
          if (early.length > MAX_EARLY) early.shift();
        }
      }
      // Each envelope is read by its own topic: the user WebSocket carries every turn of the
      // account, so a frame may mix another conversation's envelopes (and its turn's end)
      // with this turn's. The owner reads only the stream's own topics out of the frame.
      const ended = new Set(
        envelopes.filter((e) => typeof e.topic_id === 'string' && completesTurn(e)).map((e) => topics.get(e.topic_id)),
      );
      for (const streamId of streams) {
        emit({ kind: 'websocket', stream_id: streamId, message: data });
        if (ended.has(streamId)) endHandoff(streamId);
      }
      return;
    }
    // While a turn is handed off, a frame whose topic cannot be read goes to that turn's
    // stream, so the owner can say "hand-off frames not understood" instead of nothing.
    for (const streamId of new Set(topics.values())) {
      const n = unattributed.get(streamId) || 0;
      if (n >= MAX_UNATTRIBUTED) continue;
      unattributed.set(streamId, n + 1);
      emit({ kind: 'websocket', stream_id: streamId, message: data });
    }
  }

  class ObservedWebSocket extends PageWebSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (ev) => {
        if (typeof ev.data === 'string') onFrame(ev.data);
      });
    }
  }
  window.WebSocket = ObservedWebSocket;
})();
