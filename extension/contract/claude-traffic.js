// The page contract (contract.js) of claude.ai's traffic (issue 36; docs/claude-provider.md
// has the formats and their public sources): the routes page-observer.js copies — it runs in
// the page's world and cannot read this file, so its patterns are these `routes` (the same
// RegExp sources; e2e/browser/contract-check.mjs checks it) — and the stream's event names.
// The probes are passive: counts of what the observer passed since the page loaded, never a
// body; `unseen` until the page sent or read a conversation.
//
// Loaded as a classic content script after contract.js, in claude.ai tabs only.

(() => {
  const C = window.sendledgerContract;
  const TAG = '__sendledger';
  const SOURCES = { source: 'docs/claude-provider.md, "Routes" and "The stream" ([OR-e], [OR-s], [ST], [CW], [BD], [IX])', date: '2026-12-07' };

  /** The routes page-observer.js copies, as RegExp sources (the same strings are in it). */
  const ROUTES = Object.freeze({
    completion: '^\\/api\\/organizations\\/[0-9a-f-]{36}\\/chat_conversations\\/[0-9a-f-]{36}\\/completion$',
    retry: '^\\/api\\/organizations\\/[0-9a-f-]{36}\\/chat_conversations\\/[0-9a-f-]{36}\\/retry_completion$',
    create: '^\\/api\\/organizations\\/[0-9a-f-]{36}\\/chat_conversations\\/?$',
    read: '^\\/api\\/organizations\\/[0-9a-f-]{36}\\/chat_conversations\\/[0-9a-f-]{36}\\/?$',
    organization: '^\\/api\\/organizations\\/([0-9a-f-]{36})(?:\\/|$)',
  });
  /** The events a completion stream starts and ends with (src/provider/claude/stream.rs). */
  const MARKERS = Object.freeze({ start: 'message_start', stop: 'message_stop' });
  const completion = new RegExp(ROUTES.completion);

  const seen = { sends: 0, reads: 0, elsewhere: null, streams: 0, known: 0 };
  const streams = new Map(); // stream id → {chunks, start}; at most 16 open

  function observe(o) {
    const path = typeof o.url === 'string' ? new URL(o.url, location.href).pathname : '';
    if (o.kind === 'request' && completion.test(path)) {
      seen.sends += 1;
      seen.elsewhere = null;
      streams.set(o.stream_id, { chunks: 0, start: false });
      if (streams.size > 16) streams.delete(streams.keys().next().value);
    } else if (o.kind === 'listing') seen.reads += 1;
    else if (o.kind === 'request_elsewhere') seen.elsewhere = typeof o.route === 'string' ? o.route.slice(0, 120) : 'a route';
    const s = streams.get(o.stream_id);
    if (!s) return;
    if (o.kind === 'stream_chunk') {
      s.chunks += 1;
      s.start = s.start || String(o.chunk || '').includes(MARKERS.start);
    } else if (o.kind === 'stream_end') {
      streams.delete(o.stream_id);
      if (!s.chunks) return;
      seen.streams += 1;
      if (s.start) seen.known += 1;
    }
  }
  window.addEventListener('message', (ev) => {
    if (ev.source === window && ev.data && ev.data[TAG] === 'observation' && ev.data.observation) observe(ev.data.observation);
  });

  C.fact({
    id: 'claude.traffic_route',
    meaning: 'the page sends a message as POST /api/organizations/<org>/chat_conversations/<uuid>/completion, which page-observer.js copies with the create call and the retry route; a POST elsewhere after a granted click is a send gone elsewhere',
    seen: [SOURCES],
    needs: 'every',
    signals: ['traffic'],
    subject: 'a claude.ai completion route',
    routes: ROUTES,
    probe() {
      if (seen.elsewhere) return { state: 'fails', shows: { sends: seen.sends, elsewhere: seen.elsewhere } };
      return { state: seen.sends ? 'holds' : 'unseen', shows: { sends: seen.sends } };
    },
  });

  C.fact({
    id: 'claude.read_route',
    meaning: 'the page reads a conversation as GET /api/organizations/<org>/chat_conversations/<uuid>?tree=True…, the read a cut send is harvested from',
    seen: [SOURCES],
    needs: 'destination',
    signals: ['traffic'],
    subject: "a claude.ai conversation's read route",
    probe: () => ({ state: seen.reads ? 'holds' : 'unseen', shows: { reads: seen.reads } }),
  });

  C.fact({
    id: 'claude.stream_format',
    meaning: 'the answer streams as server-sent events the owner decodes: message_start, content_block_start/delta/stop (text and thinking), message_delta, message_limit, message_stop, or error',
    seen: [SOURCES],
    needs: 'every',
    signals: ['traffic'],
    subject: 'a claude.ai stream format',
    markers: MARKERS,
    probe() {
      const shows = { streams: seen.streams, known: seen.known };
      if (!seen.streams) return { state: 'unseen', shows };
      return { state: seen.known === seen.streams ? 'holds' : 'fails', shows };
    },
  });
})();
