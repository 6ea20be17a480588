// The content script (isolated world) of a chat site's tab — chatgpt.com or claude.ai, the
// same custody flow for both (issue 36): what differs is the site's (sites/<site>.js: its
// name, facts, addresses, which request is the send), its contract and picker. It leases the tab, long-polls
// the owner for the next send, types it, checks, asks for the dispatch grant, and clicks
// Send only when granted. It forwards the page's raw traffic (from page-observer.js) to
// the owner and runs remote stops. Every bridge request goes through the service worker.
//
// Custody order for one send (docs/extension.md, "One send"):
//   1. checks that need no typing: the right conversation, composer found and empty
//      (no text, no files), no answer being generated   → else fail before dispatch
//   1b. the send's files given to the page's own file input, uploaded by the page, its
//      file ids read (attach.js)                        → else remove them, fail before dispatch
//   2. type the text (focus + execCommand('insertText'): the editor's own input path;
//      line breaks go in with the text, never as Enter key presses, which submit)
//   3. check the composer holds exactly the text and the send button is there and
//      enabled                                          → else clear, fail before dispatch
//   4. ask for the dispatch grant with the page's file ids (answered after `dispatched`
//      is committed)
//   5. granted: click Send, once. Refused: clear the composer. Answer lost: clear the
//      composer and report that nothing was clicked — never ask again, never click.
// The text of a send lives in this script's memory only while it is being typed.
// An answer's generated files go back to the owner from artifacts.js, under the same lease.

(() => {
  const S = window.sendledgerSelectors;
  const P = window.sendledgerPlaces;
  const picker = window.sendledgerPicker;
  const A = window.sendledgerAttach;
  const C = window.sendledgerContract;
  const SITE = window.sendledgerSite;
  const NEW_CHAT = window.sendledgerNewChat;
  const MOVED = Symbol('moved'); // handleSend: the tab moved to a new chat in place; lease again
  const TAG = '__sendledger';
  const WAIT_MS = 25_000; // long-poll bound
  const SETTLE_MS = 3_000; // how long typing may take to show in the composer
  const IDLE_MS = 20_000; // how long a send may wait for the page to stop generating, or for its dialog to close
  const REMOTE_STOP_WAIT_MS = 5_000; // remote-stop long-poll while an answer is generating
  const STOP_CONFIRM_MS = 15_000; // how long a stopped answer may take to stop
  const MAX_OUTBOX_BYTES = 64 * 1024 * 1024; // the outbox's bound (docs/extension.md, "Observer details")
  const RETRY_MS = 1_000; // while the owner is unreachable: a fixed, cheap loopback retry
  const COMPOSER_WAIT_MS = 20_000; // how long a tab may show no composer before it says so
  const STREAM_END_WAIT_MS = 10_000; // how long a page error waits for its stream's copy
  const TRIP_MS = 20_000; // how long a tab may take to leave for a send's destination
  const OUTBOX_DRAIN_MS = 10_000; // how long a leaving tab waits for its observations to go
  const MOVE_MS = 5_000; // how long the page's own New chat control may take to show a new chat

  const mib = (n) => `${(n / (1024 * 1024)).toFixed(n < 1024 * 1024 ? 3 : 1)} MiB`;
  const SENTENCES = {
    notChat: (surface) => `this tab shows ${SITE.title}'s ${surface === 'work' ? 'Work mode' : `${surface} surface`}, not Chat: it takes no send until it shows Chat again`,
    tripFailed: (dest) => `the tab did not go to ${P.words(dest)} within ${TRIP_MS / 1000} s: nothing was typed`,
    arrivedElsewhere: (dest) => `the tab was sent to ${P.words(dest)} but shows ${P.describe()} (someone opened another page in it, or the page sent it elsewhere): nothing was typed`,
    noComposer: `composer not found: ${SITE.host} layout changed`,
    composerBusy: `the composer is not empty: send or clear the draft in the ${SITE.title} tab, then queue again`,
    composerHasFiles: `the composer holds attached files: send or remove them in the ${SITE.title} tab, then queue again; nothing was typed`,
    generating: `an answer is still being generated in the ${SITE.title} tab: wait for it to finish, then queue again`,
    typingRefused: `the composer did not accept typed text: click into the ${SITE.title} tab once and queue again`,
    textDiffers: 'the composer does not hold exactly the text after typing (the page changed it): nothing was sent',
    noSendButton: `send button not found: ${SITE.host} layout changed`,
    sendDisabled: 'the send button stayed disabled after typing: nothing was sent',
    grantLost: 'the answer to the dispatch request was lost (the extension restarted): the send button was not clicked',
    pageChanged: 'the page changed while the send was being typed: nothing was sent',
    moved: 'the tab moved to another conversation before the send was typed: nothing was sent',
    dialog: (words) => `the page shows a dialog ("${words}"): close it in the ${SITE.title} tab, then queue again; nothing was typed`,
    outboxFull: (held, bound) =>
      `the extension holds ${mib(held)} of page observations the sendledger app has not taken yet (bound ${mib(bound)}): this tab asks for no new send until they are delivered (start sendledger if it is not running)`,
    composerNeverAppeared: `composer not found after ${COMPOSER_WAIT_MS / 1000} s: ${SITE.host} layout changed, the page has not loaded, or you are logged out (reload the tab and log in; if it stays, the extension's selectors need an update)`,
  };

  let lease = null; // {lease_id, epoch, conversation_id}
  let leaving = null; // the lease the tab left when it moved on, until it holds a new one (flush)
  let stoppedLease = null; // the lease a Stop fenced, for its remote stops
  let granted = null; // {op_id, requestSeen, text} of the send clicked in this tab
  const streamOps = new Map(); // page stream id → op id
  const handledStops = new Set();
  let waitingForPairing = null;

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const leaseEvents = new EventTarget();
  const RELEASED = Symbol('released');
  /** Resolves with RELEASED when the tab's lease is released; `cancel()` forgets it. */
  function whenReleased() {
    let listener;
    const promise = new Promise((resolve) => {
      listener = () => resolve(RELEASED);
      leaseEvents.addEventListener('released', listener, { once: true });
    });
    return { promise, cancel: () => leaseEvents.removeEventListener('released', listener) };
  }
  let alive = true;

  // One copy per tab. When the scripts run again in this tab (an extension update or a
  // re-injection while this copy still runs), the newer copy takes the tab and this one
  // stands down for good: no more asks, no lease, no click. The mark is an attribute on
  // <html>, which every copy's isolated world shares.
  const COPY = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  const MARK = 'data-sendledger-copy';
  document.documentElement.setAttribute(MARK, COPY);
  new MutationObserver((_, observer) => {
    if (document.documentElement.getAttribute(MARK) === COPY) return;
    alive = false; // a newer copy runs here now
    observer.disconnect();
  }).observe(document.documentElement, { attributes: true, attributeFilter: [MARK] });

  /** Asks the service worker. A worker stopped before answering gives `{lost: true}`. */
  async function ask(type, payload = {}) {
    if (!alive) return { ok: false, lost: true, code: 'lost', message: 'extension unloaded' };
    try {
      const r = await chrome.runtime.sendMessage({ type, ...payload });
      if (r === undefined) return { ok: false, status: 0, lost: true, code: 'lost', message: 'no answer from the service worker' };
      return r;
    } catch (e) {
      const message = String((e && e.message) || e);
      if (message.includes('Extension context invalidated')) alive = false;
      return { ok: false, status: 0, lost: true, code: 'lost', message };
    }
  }

  /** The bridge no longer knows the lease, or it has ended (owner restarted, tab leased again). */
  const leaseGone = (r) => r.code === 'unknown_lease' || r.code === 'lease_ended' || r.status === 410;

  // ---------------------------------------------------------------- observations

  // The observations not yet taken by the owner (it is down, restarting or slow), bounded
  // by bytes, never by dropping evidence. Each counts the text it carries plus 256 bytes.
  // Reaching the bound, what goes first, oldest first: page-state noise (`listing`s) and
  // the observations of a stream the owner answered it does not follow (no send is tied to
  // it). Everything else stays: a stream's `request`, the frames that prove a receipt and
  // an answer's frames, of a send clicked here or of a stream the owner may follow. While
  // the outbox is full the tab asks for no new send (`next` waits, the tab says why), and
  // asks again once it drained below half the bound. Past twice the bound, an observation
  // tied to no send clicked in this tab is not kept; one of a
  // send clicked here always is (one send in flight per tab, its stream bounded by the page).
  // `test_outbox_bytes` in chrome.storage.local lowers the bound for the browser scenario
  // only (never set by the extension itself).
  const outbox = [];
  let outboxBytes = 0;
  let outboxBound = MAX_OUTBOX_BYTES;
  let flushing = false;
  const MAX_UNFOLLOWED = 256;
  const unfollowed = new Set(); // streams whose request the owner answered without `tracking`
  const sizeOf = (o) => 256 + (o.body || '').length + (o.chunk || '').length + (o.message || '').length;
  const outboxFull = () => outboxBytes >= outboxBound;
  const droppable = (o) => o.kind === 'listing' || (!!o.stream_id && unfollowed.has(o.stream_id) && !o.op_id);

  /** Takes the bound the test knob names (1 KiB to the bound), else the bound. */
  function setOutboxBound(v) {
    outboxBound = Number.isInteger(v) && v >= 1024 && v < MAX_OUTBOX_BYTES ? v : MAX_OUTBOX_BYTES;
  }
  chrome.storage.local.get('test_outbox_bytes').then((r) => setOutboxBound(r.test_outbox_bytes), () => {});
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && changes.test_outbox_bytes) setOutboxBound(changes.test_outbox_bytes.newValue);
  });

  const takeFirst = () => {
    const o = outbox.shift();
    if (o) outboxBytes -= sizeOf(o);
    if (!outbox.length) leaseEvents.dispatchEvent(new Event('outbox-empty'));
    return o;
  };

  /** Resolves when the outbox is empty (at once when it is), or after `ms`. */
  function outboxEmpty(ms) {
    if (!outbox.length) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        leaseEvents.removeEventListener('outbox-empty', done);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, ms);
      leaseEvents.addEventListener('outbox-empty', done);
    });
  }
  function putFront(items) {
    outbox.unshift(...items);
    for (const o of items) outboxBytes += sizeOf(o);
  }

  /** Queues `o` under the bound: what may go first goes first; evidence is never dropped. */
  function enqueue(o) {
    const size = sizeOf(o);
    // outbox[0] is in flight while flushing (flush takes it off once the owner answered)
    for (let i = flushing ? 1 : 0; outboxBytes + size > outboxBound && i < outbox.length; ) {
      if (!droppable(outbox[i])) i += 1;
      else outboxBytes -= sizeOf(outbox.splice(i, 1)[0]);
    }
    if (outboxBytes + size > 2 * outboxBound && (droppable(o) || !o.op_id)) return;
    outbox.push(o);
    outboxBytes += size;
  }

  // The streams in flight the owner follows, kept as delivered (request, chunks, frames) so
  // that each can be sent again from its request when an owner that restarted meanwhile
  // answers a piece of it `unknown_stream`: the new owner then follows it from its start
  // for the answer (docs/extension.md). Bounded: 4 streams, 32 MiB each (the owner's own
  // bound per stream), sent again at most twice.
  const MAX_REPLAY_STREAMS = 4;
  const MAX_REPLAY_BYTES = 32 * 1024 * 1024;
  const MAX_REPLAYS = 2;
  const replays = new Map(); // stream id → { items, bytes, sent }

  const factsOf = (r) => (r.body && Array.isArray(r.body.applied) ? r.body.applied.map((f) => f && f.fact) : []);

  /** Keeps a delivered observation of a followed stream for a replay. */
  function keepForReplay(o, facts) {
    if (!o.stream_id) return;
    const kept = replays.get(o.stream_id);
    if (o.kind === 'request') {
      replays.delete(o.stream_id);
      if (!facts.includes('tracking')) {
        unfollowed.add(o.stream_id);
        if (unfollowed.size > MAX_UNFOLLOWED) unfollowed.delete(unfollowed.values().next().value);
        return;
      }
      replays.set(o.stream_id, { items: [o], bytes: (o.body || '').length, sent: kept ? kept.sent : 0 });
      while (replays.size > MAX_REPLAY_STREAMS) replays.delete(replays.keys().next().value);
      return;
    }
    if (!kept) return;
    kept.bytes += (o.chunk || o.message || '').length;
    if (o.kind === 'stream_end' || kept.bytes > MAX_REPLAY_BYTES) replays.delete(o.stream_id);
    else kept.items.push(o);
  }

  /** Puts a stream's delivered observations back in front of `outbox[0]`; false: none kept. */
  function replayFrom(o) {
    const kept = o.stream_id && replays.get(o.stream_id);
    if (!kept || kept.sent >= MAX_REPLAYS) return false;
    kept.sent += 1;
    putFront(kept.items);
    kept.items = [];
    kept.bytes = 0;
    return true;
  }

  function accept(observation) {
    if (!observation || typeof observation.kind !== 'string') return;
    const o = { ...observation };
    // The site says which request is the send (claude.ai: the completion, not the create call).
    if (o.kind === 'request' && granted && !granted.requestSeen && SITE.isSendRequest(o)) {
      granted.requestSeen = true;
      streamOps.set(o.stream_id, granted.op_id);
    }
    const op = o.stream_id && streamOps.get(o.stream_id);
    if (op) o.op_id = op;
    if (o.kind === 'page_error' && !o.op_id) return;
    if (o.kind === 'stream_end') {
      streamOps.delete(o.stream_id);
      if (op && granted && granted.op_id === op) {
        granted.streamEnded = true;
        leaseEvents.dispatchEvent(new Event('stream-ended'));
      }
    }
    enqueue(o);
    flush();
  }

  /**
   * The page's own POST to a route that is not a chat conversation route (page-observer.js):
   * after the granted click, before the page's conversation request, a POST carrying the
   * send's text means the message went elsewhere (Work mode). Only `request_elsewhere` with
   * the method and the route template goes to the owner, never the body.
   */
  function pagePost(post) {
    if (!post || !granted || granted.requestSeen || granted.elsewhere) return;
    if (typeof post.body !== 'string' || typeof post.route !== 'string') return;
    const text = granted.text || '';
    const escaped = JSON.stringify(text).slice(1, -1);
    if (!text || !(post.body.includes(text) || post.body.includes(escaped))) return;
    granted.elsewhere = true;
    accept({ kind: 'request_elsewhere', op_id: granted.op_id, method: post.method, route: post.route });
  }

  async function flush() {
    if (flushing) return;
    flushing = true;
    let backoff = 500;
    try {
      // Under the tab's lease; while the tab leases again after it moved on (a new chat got
      // its id), under the lease it leaves, which the owner holds until the new one ends it:
      // an answer's end is not kept waiting for the new lease (issue 39).
      while (outbox.length && (lease || leaving) && alive) {
        const used = lease || leaving;
        const r = await ask('observe', { observation: { ...outbox[0], lease_id: used.lease_id } });
        if (r.ok) {
          const facts = factsOf(r);
          // An owner that restarted while this stream was in flight: again from its request.
          if (facts.includes('unknown_stream') && replayFrom(outbox[0])) continue;
          keepForReplay(takeFirst(), facts);
          backoff = 500;
        } else if (r.lost || r.code === 'unreachable' || r.status === 503) {
          await sleep(backoff); // the owner or the worker is restarting: same observation again
          backoff = Math.min(backoff * 2, 5_000);
        } else if (leaseGone(r)) {
          if (used === leaving) leaving = null; // ended by the new lease: the rest go under it
          else if (lease === used) await dropLease(); // else: sent with a lease since replaced; again with the new one
        } else {
          const refused = takeFirst(); // refused as such (malformed, too large): retrying cannot help
          if (refused.stream_id) replays.delete(refused.stream_id);
        }
      }
    } finally {
      flushing = false;
    }
  }

  window.addEventListener('message', (ev) => {
    if (ev.source !== window || !ev.data || typeof ev.data[TAG] !== 'string') return;
    if (ev.data[TAG] === 'observer-hello') window.postMessage({ [TAG]: 'content-ready' }, location.origin);
    else if (ev.data[TAG] === 'observation') accept(ev.data.observation);
    else if (ev.data[TAG] === 'page-post') pagePost(ev.data.post);
  });
  window.postMessage({ [TAG]: 'content-ready' }, location.origin);

  // ---------------------------------------------------------------- page waits

  /** Resolves when `test()` holds (checked on every DOM change), or false after `ms`. */
  function until(test, ms) {
    return new Promise((resolve) => {
      if (test()) return resolve(true);
      let timer = null;
      const observer = new MutationObserver(() => {
        if (!test()) return;
        observer.disconnect();
        if (timer) clearTimeout(timer);
        resolve(true);
      });
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      if (ms !== Infinity) {
        timer = setTimeout(() => {
          observer.disconnect();
          resolve(test());
        }, ms);
      }
    });
  }

  // ---------------------------------------------------------------- lease

  async function obtainLease() {
    const r = await ask('lease', {
      site: SITE.name,
      conversation_id: S.conversationId(),
      thread_id: S.threadId(),
      workspace_id: S.workspaceId(),
    });
    if (r.ok) {
      lease = { lease_id: r.body.lease_id, epoch: r.body.epoch, conversation_id: S.conversationId() };
      stoppedLease = null;
      leaving = null;
      flush();
    }
    return r;
  }

  async function dropLease() {
    const old = lease;
    lease = null;
    if (old) {
      leaseEvents.dispatchEvent(new Event('released'));
      await ask('forgetLease', { lease_id: old.lease_id });
    }
  }

  function pairingSignal() {
    if (!waitingForPairing) {
      waitingForPairing = new Promise((resolve) => {
        const listener = (m) => {
          if (m && m.type === 'paired') {
            chrome.runtime.onMessage.removeListener(listener);
            waitingForPairing = null;
            resolve();
          }
        };
        chrome.runtime.onMessage.addListener(listener);
      });
    }
    return waitingForPairing;
  }

  // ---------------------------------------------------------------- one send

  const outcome = (send, what, detail) => ask('outcome', { op_id: send.op_id, outcome: what, detail });

  /**
   * Fails `send` before dispatch with `reason`. `fact`: the page-contract fact whose not
   * holding caused it (its id): the tab first runs the contract's check (no picker opened)
   * and hands it to the worker (`pageCheck`: the owner keeps it with the send; an owner
   * without that route answers 404, which changes nothing), then fails the send naming the
   * fact (`page_fact: {id, needs}`; the owner's gate for `needs: "every"`).
   */
  async function failBefore(send, held, reason, { snapshot = false, fact = null } = {}) {
    if (snapshot) await ask('snapshot', { snapshot: S.layoutSnapshot(reason) });
    const known = fact && C.get(fact);
    const pageFact = known ? { page_fact: { id: known.id, needs: known.needs } } : {};
    if (known) await ask('pageCheck', { lease_id: held.lease_id, op_id: send.op_id, check: await C.checkAll({ openPicker: false }) });
    await outcome(send, 'failed_before_dispatch', reason);
    const body = { lease_id: held.lease_id, op_id: send.op_id, stage: 'before_dispatch', reason, ...pageFact };
    let r = await ask('fail', body);
    if (!r.ok && r.lost) r = await ask('fail', body);
    // A refused report (400: a page fact or a reason the owner does not take) must still fail
    // the send, else the tab is handed the same claim again and again: without the fact, then
    // with the owner's plainest sentence.
    if (!r.ok && r.status === 400 && body.page_fact) r = await ask('fail', { ...body, page_fact: undefined });
    if (!r.ok && r.status === 400) await ask('fail', { ...body, page_fact: undefined, reason: 'the tab could not take this send (its report was refused by the owner): nothing was typed' });
  }

  /** What the page showed of its surface, for the sentence naming surface.chat (structure only). */
  function surfaceDetail() {
    const r = P.surfaceShows();
    if (r.switch_like.length) {
      const what = r.switch_like.slice(0, 3).map((c) => (c.testid ? `${c.role} ${c.testid}` : `${c.role} with no test id`));
      return `switch-like controls it does not know: ${what.join(', ')}${r.switch_like.length > 3 ? ', …' : ''}`;
    }
    if (r.route === 'not a chat route') return `the address ${S.maskedPath(location.pathname).slice(0, 80)} is no chat route`;
    if (r.switch === 'known') return 'the known switch shows no one surface selected';
    return 'no composer form to look beside';
  }

  /**
   * Empties the composer through the editor's own input path, and removes the files this
   * send attached (a send starts only with a composer holding none: pageIdle).
   */
  function clearComposer(composer) {
    A.removeAll();
    if (!composer || !composer.isConnected || S.composerText(composer) === '') return;
    composer.focus();
    const range = document.createRange();
    range.selectNodeContents(composer);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    document.execCommand('delete', false);
  }

  function typeText(composer, text) {
    composer.focus();
    const range = document.createRange();
    range.selectNodeContents(composer);
    range.collapse(false);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    return document.execCommand('insertText', false, text);
  }

  /** The send's destination; a send from before destinations were recorded: its conversation. */
  const destinationOf = (send) =>
    send.destination || (send.conversation_id ? { kind: 'conversation', conversation_id: send.conversation_id } : { kind: 'any' });

  /** Whether the tab shows `dest` (a send from before destinations: any page of its conversation). */
  const shows = (dest) => dest.kind === 'any' || P.shown(dest);

  /**
   * Checks that need no typing, on the page as it is: no modal dialog over it (the "Too
   * many requests" one, in any language: waited for, then given up with its words), the
   * composer there and empty, no answer being generated. Returns null, or the reason to
   * fail before dispatch.
   */
  async function pageIdle() {
    if (S.blockingDialog() && !(await until(() => !S.blockingDialog(), IDLE_MS))) {
      return SENTENCES.dialog(S.dialogText(S.blockingDialog()));
    }
    const composer = S.composer();
    if (!composer) return SENTENCES.noComposer;
    if (S.composerText(composer) !== '') return SENTENCES.composerBusy;
    if (A.holdsFiles()) return SENTENCES.composerHasFiles; // they would go with the send
    if (S.generating() && !(await until(() => !S.generating(), IDLE_MS))) return SENTENCES.generating;
    return null;
  }

  /**
   * The tab goes to the send's destination (docs/extension.md, "The tab goes to the
   * destination"): for a plain new chat, by the page's own New chat control when this
   * extension recognises it (new-chat.js: a move in place, no page load; MOVED once the
   * page is positively a new chat, and the tab leases again — the owner moves the claim to
   * the new lease, which takes the send on: afterMove); else, or when the move is not
   * seen complete within MOVE_MS, a full navigation, which ends this script. The claim
   * stays with the tab's lease until the tab leases again, which takes it (the owner moves
   * a claim that fits what the tab then shows, and rejects one that does not); the worker
   * keeps the trip (`trip:<tab id>` in session storage) so the next page knows it went for
   * this send. A tab that already went for it and shows something else types nothing.
   * Returns MOVED, or (having typed nothing) when the send was failed or the page never left.
   */
  async function goTo(send, held, dest) {
    const trip = await ask('trip', { op_id: send.op_id });
    if (trip.ok && trip.body && trip.body.went) return failBefore(send, held, SENTENCES.arrivedElsewhere(dest));
    const idle = await pageIdle(); // leaving would lose a draft or cut an answer
    if (idle) return failBefore(send, held, idle, { snapshot: idle === SENTENCES.noComposer });
    await outboxEmpty(OUTBOX_DRAIN_MS);
    const url = P.url(dest);
    const kept = await ask('setTrip', { op_id: send.op_id, url });
    if (!kept.ok) return failBefore(send, held, SENTENCES.tripFailed(dest));
    const control = NEW_CHAT.control(dest); // a control not recognised is never clicked
    if (control) {
      outcome(send, 'new_chat_control'); // the diagnostic log; not waited for
      if (await NEW_CHAT.move(control, dest, { until, ms: MOVE_MS })) return MOVED;
    }
    await outcome(send, 'navigating', S.maskIds(url));
    location.assign(url);
    await sleep(TRIP_MS); // the page unloads meanwhile; still here: it did not go
    return failBefore(send, held, SENTENCES.tripFailed(dest));
  }

  /**
   * What the picker shows, for the grant ask: read only when the send names a model or
   * effort (null, null otherwise).
   */
  async function pickerShows(dest) {
    if (!dest.model && !dest.effort) return { model: null, effort: null };
    const now = await picker.read();
    return { model: now.model || null, effort: now.effort || null };
  }

  /**
   * Types the send's text and checks it: the composer holds exactly the text, the send
   * button is there and enabled, the tab did not move, the attached files are still shown
   * uploaded. Returns the send button, or null when the send was failed before dispatch
   * (the composer cleared, its chips removed).
   */
  async function typeAndCheck(send, held, at, attached) {
    let composer = S.composer();
    if (!typeText(composer, send.text)) {
      clearComposer(composer);
      await failBefore(send, held, SENTENCES.typingRefused);
      return null;
    }
    const holdsText = () => {
      composer = S.composer();
      return !!composer && S.composerText(composer) === send.text;
    };
    if (!(await until(holdsText, SETTLE_MS))) {
      clearComposer(S.composer());
      await failBefore(send, held, SENTENCES.textDiffers);
      return null;
    }
    let button = S.sendButton();
    if (!button) {
      const snapshot = S.layoutSnapshot(SENTENCES.noSendButton);
      clearComposer(composer);
      await ask('snapshot', { snapshot });
      await failBefore(send, held, SENTENCES.noSendButton, { fact: SITE.facts.sendButton });
      return null;
    }
    const enabled = () => {
      button = S.sendButton();
      return !!button && !button.disabled && button.getAttribute('aria-disabled') !== 'true';
    };
    if (!(await until(enabled, SETTLE_MS))) {
      clearComposer(composer);
      await failBefore(send, held, SENTENCES.sendDisabled);
      return null;
    }
    if (location.href !== at || !holdsText() || !A.stillAttached(attached.confirmed)) {
      clearComposer(S.composer());
      await failBefore(send, held, SENTENCES.pageChanged);
      return null;
    }
    return button;
  }

  /** One send, handed to the lease `held`. */
  async function handleSend(send, held) {
    // 1. checks before typing: the place (going there if it must), the surface, the
    // picker, the composer (no text, no files), no answer generating
    const dest = destinationOf(send);
    if (!shows(dest)) return goTo(send, held, dest);
    const surface = P.surface();
    if (surface === 'unrecognised') return failBefore(send, held, C.refusal(SITE.facts.surface, surfaceDetail()), { fact: SITE.facts.surface });
    if (surface !== 'chat') return failBefore(send, held, SENTENCES.notChat(surface));
    if (dest.model || dest.effort) {
      const chosen = await picker.choose(dest.model || null, dest.effort || null);
      if (!chosen.ok) return failBefore(send, held, chosen.reason, { fact: chosen.fact || null });
    }
    const at = location.href;
    const idle = await pageIdle();
    if (idle) return failBefore(send, held, idle, { snapshot: idle === SENTENCES.noComposer, fact: idle === SENTENCES.noComposer ? SITE.facts.composer : null });
    // 2. the files: given to the page, uploaded by it, its file ids read (attach.js)
    const attached = await A.attach(send, held, { ask });
    if (!attached.ok) return failBefore(send, held, attached.reason, { fact: attached.fact && attached.fact.id });
    // 3. type, and check what was typed and the button
    const button = await typeAndCheck(send, held, at, attached);
    if (!button) return;
    // 4. the grant (the outcome log is the worker's diagnosis: not waited for)
    outcome(send, 'asking_grant');
    // What the tab shows now — the address, the picker when the send names a model or
    // effort, the page's file ids of its attachments — for the owner to check against the
    // send in the transaction that grants.
    const confirmed = { ...S.shownPlace(), ...(await pickerShows(dest)) };
    if (attached.confirmed) confirmed.attachments = attached.confirmed;
    const r = await ask('dispatch', { lease_id: held.lease_id, op_id: send.op_id, confirmed });
    if (r.ok && r.body && r.body.granted === true) {
      // 5. the one click
      granted = { op_id: send.op_id, requestSeen: false, text: send.text };
      forgetPageErrors();
      button.click();
      await outcome(send, 'clicked');
      // A page that uploads on the click: a file it then refuses keeps it from sending.
      const mine = granted;
      const refused = A.deferred(attached.confirmed) && (await A.refusedAfterClick(attached.confirmed, () => mine.requestSeen));
      if (refused) await ask('fail', { lease_id: held.lease_id, op_id: send.op_id, stage: 'after_dispatch', reason: refused });
      return;
    }
    clearComposer(S.composer());
    await outcome(send, r.lost || r.status === 0 ? 'grant_answer_lost' : 'refused', r.code);
    if (r.lost || r.code === 'unreachable' || r.status === 0) {
      // Committed or not, nobody here knows; the button was not clicked. Say so.
      await ask('fail', { lease_id: held.lease_id, op_id: send.op_id, stage: 'after_dispatch', reason: SENTENCES.grantLost });
    }
  }

  // ---------------------------------------------------------------- remote stop

  /**
   * Asks for remote stops; with `waitMs` the owner answers as soon as one is pending. The
   * owner hands a lease only the stops its tab may click for (this tab clicked the send,
   * and shows its conversation); the page's conversation is looked at again here, since
   * the tab may have moved on before it leased again. Returns false when the owner could
   * not be asked, 'elsewhere' when a pending stop is for a conversation the tab does not
   * show now (the owner then answers at once until it expires or is clicked), else true.
   */
  async function checkRemoteStops(waitMs = 0) {
    const held = lease || stoppedLease;
    if (!held) return false;
    const r = await ask('remoteStops', { lease_id: held.lease_id, wait_ms: waitMs });
    if (!r.ok || !r.body || !Array.isArray(r.body.remote_stops)) return false;
    let elsewhere = false;
    for (const stop of r.body.remote_stops) {
      if (stop.phase !== 'pending' || handledStops.has(stop.op_id)) continue;
      if (stop.conversation_id && stop.conversation_id !== S.conversationId()) {
        elsewhere = true; // this tab's stop button would stop another answer
        continue;
      }
      handledStops.add(stop.op_id);
      await runRemoteStop(held, stop);
    }
    return elsewhere ? 'elsewhere' : true;
  }

  async function runRemoteStop(held, stop) {
    const phase = (p, evidence) => ask('remoteStopPhase', { lease_id: held.lease_id, op_id: stop.op_id, phase: p, evidence });
    const noButton = `stop button not found: ${SITE.host} layout changed`;
    if (!S.generating()) {
      await phase('confirmed', 'no answer was being generated in the tab when the stop arrived; nothing was clicked');
      return;
    }
    if (!S.stopButton()) {
      await phase('uncertain', noButton);
      return;
    }
    const d = await phase('dispatched');
    if (!d.ok) {
      handledStops.delete(stop.op_id); // not recorded: try again on the next check
      return;
    }
    // The page may have moved on while `dispatched` was recorded: look again, in the same
    // step as the click, at the conversation, the generation and the button itself.
    if (stop.conversation_id && stop.conversation_id !== S.conversationId()) {
      await phase('uncertain', 'the tab moved to another conversation before the stop button was clicked; nothing was clicked');
      return;
    }
    if (!S.generating()) {
      await phase('confirmed', 'the answer had stopped generating before the stop button was clicked; nothing was clicked');
      return;
    }
    const now = S.stopButton();
    if (!now) {
      await phase('uncertain', noButton);
      return;
    }
    now.click();
    const stopped = await until(() => !S.generating(), STOP_CONFIRM_MS);
    if (stopped) await phase('confirmed', "the page's stop button was clicked and the answer stopped generating");
    else await phase('uncertain', `the page's stop button was clicked but the answer was still generating after ${STOP_CONFIRM_MS / 1000} s`);
  }

  /** While an answer is generating in a leased tab, look for remote stops. */
  async function watchGeneration() {
    for (;;) {
      await until(() => S.generating(), Infinity);
      while (S.generating() && alive) {
        // A long-poll: the owner answers when a Stop asks for a remote stop, or after
        // REMOTE_STOP_WAIT_MS; then the generation state is looked at again.
        const r = await checkRemoteStops(REMOTE_STOP_WAIT_MS);
        if (r === false) await sleep(1_000); // the owner is unreachable: back off
        if (r === 'elsewhere') {
          // A stop for the conversation this tab showed before: the owner would answer at
          // once again, so ask again only when the page changes or at the long-poll's pace.
          const shown = S.conversationId();
          await until(() => S.conversationId() !== shown || !S.generating(), REMOTE_STOP_WAIT_MS);
        }
      }
      if (!alive) return;
    }
  }

  // ---------------------------------------------------------------- the page saying no

  const seenPageErrors = new WeakSet();
  /** Marks the page's errors shown now as old: only one appearing after a click counts. */
  const forgetPageErrors = () => S.pageErrors().forEach((el) => seenPageErrors.add(el));

  /**
   * When the page renders its error for a turn after a send was clicked here, forward the
   * page's own words for that send (the owner ends it `page_error` once it is accepted).
   */
  async function watchPageErrors() {
    const fresh = () => S.pageErrors().find((el) => !seenPageErrors.has(el) && S.pageErrorText(el));
    while (alive) {
      await until(() => !alive || !!fresh(), Infinity);
      const el = fresh();
      if (!el) continue;
      seenPageErrors.add(el);
      const g = granted;
      if (!g) continue;
      const message = S.pageErrorText(el);
      // The page renders its error as soon as it has read its stream; our copy of that
      // stream may still be on its way. The error goes after it (or after STREAM_END_WAIT_MS),
      // so the owner sees the receipt first.
      await streamEnded(g, STREAM_END_WAIT_MS);
      accept({ kind: 'page_error', op_id: g.op_id, message });
    }
  }

  /** Resolves when the granted send's stream was forwarded to its end, or after `ms`. */
  function streamEnded(g, ms) {
    if (g.streamEnded) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        if (!g.streamEnded) return;
        leaseEvents.removeEventListener('stream-ended', done);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        leaseEvents.removeEventListener('stream-ended', done);
        resolve();
      }, ms);
      leaseEvents.addEventListener('stream-ended', done);
    });
  }

  // ---------------------------------------------------------------- the tab moving

  let sending = false;

  /**
   * When the tab shows another conversation (a new chat got its id, or the person opened
   * another one), the lease's binding is wrong: release it once nothing is being sent or
   * generated. The pending long-poll then ends with an ended lease, and the loop leases the
   * tab again with its new conversation.
   */
  function watchLocation() {
    const check = async () => {
      if (!lease || lease.conversation_id === S.conversationId()) return;
      if (sending || S.generating()) {
        await until(() => !S.generating(), Infinity);
        if (sending) return; // the send's end runs the loop, which checks again
      }
      if (!lease || lease.conversation_id === S.conversationId()) return;
      // No release: the tab's new lease ends this one, and a send it had claimed that fits
      // the conversation the tab now shows moves to the new lease (a release would reject it).
      leaving = lease;
      lease = null;
      leaseEvents.dispatchEvent(new Event('released'));
    };
    if (window.navigation) window.navigation.addEventListener('currententrychange', check);
    window.addEventListener('popstate', check);
  }

  // ---------------------------------------------------------------- main loop

  /**
   * Waits for the composer. A tab that shows none within COMPOSER_WAIT_MS says so to the
   * owner (with a layout snapshot, no text), so a queued send can say why it waits; the
   * report is withdrawn when the composer appears.
   */
  async function composerReady() {
    if (await until(() => !!S.composer(), COMPOSER_WAIT_MS)) return;
    const reason = SENTENCES.composerNeverAppeared;
    const snapshot = S.layoutSnapshot(reason);
    await ask('snapshot', { snapshot });
    await ask('tabReport', { reason, path: snapshot.path });
    await until(() => !!S.composer(), Infinity);
    await ask('tabReport', { reason: null });
  }

  /**
   * After the tab moved on during a long-poll: should the old poll still bring a send, it
   * is failed before anything is typed. A send naming no conversation, or the one the tab
   * now shows, moves to the new lease with it (the owner moves the claim) and comes again
   * from its `next`.
   */
  function failLateSend(pending, polled) {
    pending.then((late) => {
      const s = late.ok && late.body && late.body.send;
      if (!s || !alive) return;
      const fits = !s.conversation_id || s.conversation_id === S.conversationId();
      if (!fits) failBefore(s, polled, SENTENCES.moved);
    });
  }

  /**
   * A tab that is not on ChatGPT's Chat surface (Work mode, another product) takes no
   * send: it gives up its lease, says so in its tab report (status, the window, a queued
   * send's `show`), and waits until it shows Chat again.
   */
  async function offChat() {
    const reason = SENTENCES.notChat(P.surface());
    if (lease) {
      const old = lease;
      lease = null;
      leaseEvents.dispatchEvent(new Event('released'));
      await ask('release', { lease_id: old.lease_id, reason: 'the tab left the Chat surface' });
    }
    await ask('tabReport', { reason, path: S.layoutSnapshot(reason).path });
    await until(() => P.surface() === 'chat' || !alive, Infinity);
    await ask('tabReport', { reason: null });
  }

  /**
   * Before asking for a send: a tab that positively shows another surface (Work mode on
   * the known switch, another product's address) waits for Chat (true: look again); a
   * page whose surface is not recognised keeps its lease, and the send it is handed fails
   * before dispatch naming the fact surface.chat (a doubt is a no, said as such);
   * a tab that moved to another conversation (a new chat got its id) drops its lease, so
   * the loop binds it again — the new lease ends the old one and takes a claim that fits
   * the conversation shown now.
   */
  async function offChatOrMoved() {
    if (S.generating()) return false;
    const surface = P.surface();
    if (surface !== 'chat' && surface !== 'unrecognised') {
      await offChat();
      return true;
    }
    if (lease && lease.conversation_id !== S.conversationId()) {
      leaving = lease;
      lease = null;
    }
    return false;
  }

  /**
   * While the outbox is full, the tab asks for no new send rather than lose evidence of one
   * in flight: it says why (tab report, the popup's problem line) and waits until the outbox
   * drained below half its bound, or its lease ended (the loop then leases again, and the
   * outbox goes on draining under the new lease).
   */
  async function waitForOutbox(held) {
    if (!outboxFull()) return;
    await ask('tabReport', { reason: SENTENCES.outboxFull(outboxBytes, outboxBound), path: null });
    while (alive && lease === held && outboxBytes >= outboxBound / 2) await sleep(250);
    await ask('tabReport', { reason: null });
  }

  /**
   * Asks for the next send — but not while the outbox is full (waitForOutbox), nor while
   * the page shows a modal dialog (the "Too many requests" one, in any language): the tab takes no send until the person closes it, so
   * queued sends wait instead of each being failed under the dialog. The tab reports why
   * meanwhile (no text: the dialog's words), and withdraws the report when it closes.
   */
  async function nextWhenNoDialog(held) {
    await waitForOutbox(held);
    if (lease !== held || !alive) return { ok: false, code: 'outbox_full' }; // the loop leases again
    const dialog = S.blockingDialog();
    if (dialog) {
      await ask('tabReport', { reason: SENTENCES.dialog(S.dialogText(dialog)), path: S.layoutSnapshot('').path });
      await until(() => !S.blockingDialog() || !alive, Infinity);
      await ask('tabReport', { reason: null });
    }
    return ask('next', { lease_id: held.lease_id, wait_ms: WAIT_MS });
  }

  /**
   * Handles one send handed to `polled`, then looks for remote stops — unless the tab moved
   * to a new chat in place (MOVED, see afterMove) and still has it to take from `next`.
   */
  async function takeSend(send, polled) {
    sending = true;
    let done;
    try {
      done = await handleSend(send, polled);
      if (done === MOVED && lease === polled) done = await afterMove(send);
    } finally {
      sending = false;
    }
    if (done !== MOVED) return checkRemoteStops();
  }

  /**
   * The tab moved to a new chat in place: it leases again at once for what it shows now
   * (the new lease ends the old one; observations go under the old one meanwhile). When the
   * owner names `send` among the claims the new lease took over, the send is handled again
   * under it now — the page as it is checked again before anything is typed — without a
   * `next`; otherwise (a lease refused, an older owner, the claim rejected) MOVED: the loop
   * leases again if it must and takes what `next` hands.
   */
  async function afterMove(send) {
    leaving = lease;
    lease = null;
    const r = await obtainLease();
    const took = r.ok && r.body && Array.isArray(r.body.moved_claims) && r.body.moved_claims.includes(send.op_id);
    if (!took || !lease) return MOVED;
    return handleSend(send, lease);
  }

  async function run() {
    await composerReady();
    window.sendledgerArtifacts.watch(() => lease, ask, () => alive); // an answer's generated files (artifacts.js)
    watchGeneration();
    watchPageErrors();
    watchLocation();
    let backoff = 500;
    const pause = async (r) => {
      // The owner down (or restarting) is retried every second, so a tab works again
      // within a second or two of its return; other refusals back off up to 30 s.
      if (r && (r.code === 'unreachable' || r.lost || r.status === 503)) return sleep(RETRY_MS);
      await sleep(backoff);
      backoff = Math.min(backoff * 2, 30_000);
    };
    while (alive) {
      if (await offChatOrMoved()) continue;
      if (!lease) {
        // A tab that moved on leases again once the observations of the lease it left are
        // delivered: an answer's end is not kept waiting behind the new lease's commit
        // (one send in flight per tab: the new lease could take none before it completes).
        if (leaving) await outboxEmpty(OUTBOX_DRAIN_MS);
        const r = await obtainLease();
        if (r.ok) {
          backoff = 500;
          continue;
        }
        if (r.code === 'not_paired' || r.code === 'unauthorized') await pairingSignal();
        else {
          if (r.code === 'epoch_stopped') await checkRemoteStops();
          await pause(r);
        }
        continue;
      }
      const polled = lease;
      const pending = nextWhenNoDialog(polled);
      const released = whenReleased();
      const r = await Promise.race([pending, released.promise]);
      released.cancel();
      if (r === RELEASED) {
        // The tab moved on while this long-poll was open: lease again now.
        failLateSend(pending, polled);
        continue;
      }
      if (lease !== polled && !(r.ok && r.body && r.body.send)) continue; // released meanwhile
      if (r.ok) {
        backoff = 500;
        if (r.body && r.body.page_check) await window.sendledgerReport.answer(r.body.page_check, polled, ask); // report.js
        if (r.body && r.body.send) await takeSend(r.body.send, polled);
        else await checkRemoteStops();
        continue;
      }
      if (r.lost) continue; // the worker stopped mid-poll: ask again (a claimed send is handed again)
      if (leaseGone(r)) await dropLease();
      else if (r.code === 'epoch_stopped') {
        stoppedLease = lease;
        await checkRemoteStops();
        await dropLease();
        await pause(r);
      } else if (r.code === 'not_paired' || r.code === 'unauthorized') {
        await dropLease();
        await pairingSignal();
      } else await pause(r);
    }
  }

  run();
})();
