// The page contract (contract.js): the page's own traffic that page-observer.js copies and
// the owner reads — the conversation routes and the stream's markers. page-observer.js runs
// in the page's world and cannot read this file: its patterns are these facts' `routes`
// (e2e/browser/contract-check.mjs checks they are the same strings). The probes are
// passive: they read what the observer has passed to this (isolated) world since the page
// loaded — never a body, only whether a marker was seen — and answer `unseen` until a
// conversation request or a stream was seen.
//
// Loaded as a classic content script after contract.js.

(() => {
  const C = window.sendledgerContract;
  const TAG = '__sendledger';
  const FORMAT = { source: '../shared/fixtures/chatgpt/FORMAT.md §1–§4 (requests, delta v1, hand-off, listing)', date: '2026-08-02' };

  /** The routes page-observer.js copies, as RegExp sources (the same strings are in it). */
  const ROUTES = Object.freeze({
    conversationPost: '^\\/backend-api\\/(?:f\\/)?conversation\\/?$',
    conversationGet: '^\\/backend-api\\/conversations?\\/[0-9a-f-]{36}\\/?$',
  });
  /** Markers of the stream formats the owner decodes (src/provider/chatgpt/stream.rs). */
  const MARKERS = Object.freeze({
    deltaEncoding: 'event: delta_encoding',
    legacySnapshot: 'data: {"message"',
    done: 'data: [DONE]',
    handoff: '"stream_handoff"',
    turnComplete: '"conversation-turn-complete"',
    topic: '"topic_id"',
  });
  const KNOWN_FORMAT = [MARKERS.deltaEncoding, MARKERS.legacySnapshot];

  // What has been seen since the page loaded: counts and booleans only.
  const seen = { requests: 0, listings: 0, elsewhere: null, streams: 0, chunked: 0, known: 0, unknown: 0, handoffs: 0, frames: 0, framesWithTopic: 0, turnCompletes: 0 };
  const open = new Map(); // stream id → {chunks, known, handoff, tail}; at most 16

  function onObservation(o) {
    if (o.kind === 'request') {
      seen.requests += 1;
      seen.elsewhere = null;
      open.set(o.stream_id, { chunks: 0, known: false, handoff: false, tail: '' });
      while (open.size > 16) open.delete(open.keys().next().value);
    } else if (o.kind === 'listing') seen.listings += 1;
    else if (o.kind === 'request_elsewhere') seen.elsewhere = typeof o.route === 'string' ? o.route.slice(0, 120) : 'a route';
    else if (o.kind === 'stream_chunk') onChunk(open.get(o.stream_id), String(o.chunk || ''));
    else if (o.kind === 'websocket') onFrame(String(o.message || ''));
    else if (o.kind === 'stream_end') onEnd(o.stream_id);
  }

  function onChunk(s, chunk) {
    if (!s) return;
    s.chunks += 1;
    const text = s.tail + chunk; // a marker split across two chunks is still seen
    s.tail = chunk.slice(-32);
    if (KNOWN_FORMAT.some((m) => text.includes(m))) s.known = true;
    if (!s.handoff && text.includes(MARKERS.handoff)) {
      s.handoff = true;
      seen.handoffs += 1;
    }
  }

  function onFrame(frame) {
    seen.frames += 1;
    if (frame.includes(MARKERS.topic)) seen.framesWithTopic += 1;
    if (frame.includes(MARKERS.turnComplete)) seen.turnCompletes += 1;
  }

  function onEnd(id) {
    const s = open.get(id);
    if (!s) return;
    open.delete(id);
    seen.streams += 1;
    if (!s.chunks) return; // refused or aborted: no stream to judge
    seen.chunked += 1;
    if (s.known) seen.known += 1;
    else seen.unknown += 1;
  }

  window.addEventListener('message', (ev) => {
    if (ev.source !== window || !ev.data || ev.data[TAG] !== 'observation' || !ev.data.observation) return;
    onObservation(ev.data.observation);
  });

  C.fact({
    id: 'traffic.conversation_route',
    meaning: 'the page sends a turn as POST /backend-api/f/conversation (or /backend-api/conversation), which page-observer.js copies; a POST elsewhere after a granted click is a send gone to another surface',
    seen: [FORMAT],
    needs: 'every',
    signals: ['traffic'],
    subject: 'a conversation route',
    routes: ROUTES,
    probe() {
      if (seen.elsewhere) return { state: 'fails', shows: { requests: seen.requests, elsewhere: seen.elsewhere } };
      return { state: seen.requests ? 'holds' : 'unseen', shows: { requests: seen.requests } };
    },
  });

  C.fact({
    id: 'traffic.listing_route',
    meaning: "the page reads a conversation as GET /backend-api/conversation/<id> (or /conversations/<id>), the listing an uncertain send's evidence comes from",
    seen: [FORMAT],
    needs: 'destination',
    signals: ['traffic'],
    subject: "a conversation's listing route",
    routes: ROUTES,
    probe: () => ({ state: seen.listings ? 'holds' : 'unseen', shows: { listings: seen.listings } }),
  });

  C.fact({
    id: 'traffic.stream_format',
    meaning: 'the answer streams as server-sent events the owner decodes: delta v1 (event: delta_encoding, data: "v1") or legacy snapshots (data: {"message": …}), ending with data: [DONE]',
    seen: [FORMAT],
    needs: 'every',
    signals: ['traffic'],
    subject: 'a stream format',
    markers: MARKERS,
    probe() {
      const shows = { streams: seen.chunked, known: seen.known, unknown: seen.unknown };
      if (!seen.chunked) return { state: 'unseen', shows };
      return { state: seen.unknown ? 'fails' : 'holds', shows };
    },
  });

  C.fact({
    id: 'traffic.handoff',
    meaning: 'a turn handed off to the user WebSocket: a stream_handoff event names topics, frames carry topic_id, the turn ends with conversation-turn-complete of its own topic',
    seen: [FORMAT],
    needs: 'every',
    signals: ['traffic'],
    subject: 'a WebSocket hand-off',
    markers: MARKERS,
    /** The names page-observer.js follows a hand-off by (checked to be in it). */
    observerNames: ['stream_handoff', 'conversation-turn-complete', 'topic_id'],
    probe() {
      const shows = { handoffs: seen.handoffs, frames: seen.frames, frames_with_topic: seen.framesWithTopic, turn_completes: seen.turnCompletes };
      if (!seen.handoffs) return { state: 'unseen', shows };
      return { state: seen.frames && !seen.framesWithTopic ? 'fails' : 'holds', shows };
    },
  });
})();
