// A local HTTPS stand-in for chatgpt.com, for the browser end-to-end suite.
//
// It serves the page (composer, send and stop buttons, turns), answers the page's
// conversation POST in the real wire formats (formats.mjs), hands a turn off to the user
// WebSocket when asked to, and counts what the browser did: every send-button click,
// every Enter submit, every conversation POST, every stop. The counts and the POSTed
// texts are readable on test-only routes under /__test/:
//
//   GET  /__test/state    → {clicks, enter_submits, posts, stop_clicks, stop_requests, retry_clicks, disabled_clicks, held,
//                            requests: [{text, message_id, conversation_id, turn_exchange_id, assistant_id, format, concurrent}]}
//        (`concurrent`: answers still being written when that POST arrived; `at`, `head_at`,
//        `end_at`: when the POST arrived, its answer's first words were written, its end
//        written — ms since the epoch, the fake's clock)
//   POST /__test/config   {format?: "delta"|"legacy"|"handoff", layout?: "standard"|"no-send-button"|"no-composer",
//                          hold?: false|"answer"|"response", error?: false|"stream"|"limit"|"dom",
//                          frames?: "single"|"array"|"mixed"} → config
//        error "stream"/"limit": the turn ends with the page's error event and [DONE], no
//        answer (the page renders [data-testid="conversation-error"]); "dom": the stream is
//        cut without an answer and only the page renders its error. frames "array": the
//        hand-off's WebSocket frames are JSON arrays of envelopes; "mixed": arrays that also
//        carry another conversation's turn (its completion first).
//        answer_ms N: every delta answer takes N ms between its first words and its end.
//        hold "answer": the stream opens (ids, the user message echo, the answer's first
//        words) and waits; hold "response": the POST gets no response at all until released.
//        picker "top"|"advanced"|"none"|"slider"|"unknown" (every model in the menu; thinking
//        models under Advanced → Model / Effort; an account with no picker; the Latest radio
//        and an effort slider — `pro: true` for five stops, else four and a greyed-out Pro
//        row, `slider_skew: true` for a valuetext that disagrees with the position; a picker
//        built differently: places.js), surface "chat"|"work",
//        surface_switch "known"|"changed" (a switch built differently: a radiogroup with other
//        test ids; in Work mode its composer POSTs /backend-api/work/<id>/messages, counted as
//        `elsewhere_posts`),
//        picker_drift "<slug>" (the page switches its model when the composer first holds text)
//        — the request's `model` and `thinking_effort` follow the picker; `?model=<slug>` starts it;
//        hold_page "<path>": that page's GET waits for a release (a tab held on its way there);
//        answer_model "<slug>": the answer names that model, whatever the request asked for
//        markers "renamed" (a changed page, issue 35): the delta stream's markers renamed
//        (`delta_encoding` → `encoding`, `delta` → `patch`, control events' `type` → `kind`);
//        send_route "work": the page sends the message to POST /backend-api/work/<id>/messages
//        (Work mode's route, not a chat conversation's; `work_posts` counts them) while its
//        switch still shows Chat — the page's own traffic is the only signal
//        window.__fakeRerender('composer') (page world): the page re-renders its composer
//        under an id the extension does not know (a deploy while the tab is open)
//        state: a page state that ends a send (states.mjs: something_went_wrong,
//        too_many_requests, unusual_activity, headers_too_large, downgrade, effort_limit), lang "en"|"de"|"ko"
//        (the states' words in en or de; the slider picker's also in ko),
//        retry_after (a 429's Retry-After: seconds, an HTTP date, or null for none);
//        file_limit (bytes a file may have on the page; 20 MiB by default), upload_hold
//        (true, or a file's name: the blob store holds that PUT until a release;
//        `held_uploads` counts them),
//        upload_fail (the blob store answers 500 to a PUT), file_input (false: the composer
//        has no file input, only its drop target), file_inputs (3: two images-only inputs
//        before the one for files, as on the live page; a document given to one stalls,
//        `stalled_uploads` counts them), upload_on_send (files wait for the Send click,
//        which starts their uploads; the page then sends by itself), chips
//        ("standard"|"other"|"unknown": the chips' structure, uploads.js), request_files
//        ("drop_last": the conversation request leaves the last uploaded file out)
//        answer_images, download_refuse, download_busy, download_hold: an answer's generated images and
//        their download route (artifacts.mjs)
//        long_answer n: a delta answer with n more pieces of 200 characters (`requests[].answer` its text)
//        new_chat_control "link"|"none"|"changed" (issue 39): the sidebar's New chat control,
//        a[data-testid="create-new-chat-button"] href="/", which the page follows in place
//        (history.pushState, no page load, app.js); none at all; or one built differently
//        (the same test id, its address a temporary chat's). `new_chat_clicks` counts clicks
//        on it; new_chat_render_ms N: the new chat is rendered N ms after the address changed
//        (the old thread still shown meanwhile; `new_chat_rendered_at` when it was). `pages`
//        lists every page load's path; picker_mount_ms N: the model picker is mounted N ms
//        after the rest of the page (a header that comes after the composer);
//        `requests[].new_chat`: the POST named no conversation
//   POST /__test/release  releases every held answer → {released: n}
//   POST /__test/reset    zeroes the counts, releases holds, forgets uploads, keeps conversations
//   GET  /__test/blob/<file id>  the bytes the blob store holds for a file (404: none)
//   GET  /__test/artifact/<file id>  the bytes of a generated file (404: none)
//
// Generated files (artifacts.mjs): an answer's images as an `image_asset_pointer` message,
// `GET /backend-api/conversation/{c}/attachment/{file id}/download` (the page's bearer token
// from `/api/auth/session` required) → a `download_url` on the blob store, which serves the
// bytes; the state's `artifacts` counts each file's route calls, fetches and views.
//
// Uploads (files.mjs): POST /backend-api/files → {status, upload_url, file_id}, the bytes
// PUT to upload_url on a second origin (https://files.blob.fake-chatgpt.test, served by a
// second server on `blobPort`), POST /backend-api/files/{id}/uploaded. The state's
// `files` lists each file the page announced (name, size, use_case, uploaded, sha256 of the
// stored bytes), `requests[].attachments` the files a conversation request named.
//
// Run alone: node server.mjs --port 8443 --cert cert.pem --key key.pem

import http2 from 'node:http2';
import https from 'node:https';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import * as formats from './formats.mjs';
import * as states from './states.mjs';
import { BLOB_CORS, BLOB_HOST, LIMITS, fileStore } from './files.mjs';
import { artifactStore } from './artifacts.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const nodeModules = path.join(here, '..', 'node_modules');
export const VENDOR = new Set([
  'prosemirror-model',
  'prosemirror-state',
  'prosemirror-view',
  'prosemirror-keymap',
  'prosemirror-transform',
  'orderedmap',
  'w3c-keyname',
]);
/** The name part of a Project's address (`/g/g-p-<id>-<name>/…`), the project's own words. */
const PROJECT_NAME = 'custody-notes';
export const IMPORTS = {
  'prosemirror-model': '/__fake/vendor/prosemirror-model/dist/index.js',
  'prosemirror-state': '/__fake/vendor/prosemirror-state/dist/index.js',
  'prosemirror-view': '/__fake/vendor/prosemirror-view/dist/index.js',
  'prosemirror-keymap': '/__fake/vendor/prosemirror-keymap/dist/index.js',
  'prosemirror-transform': '/__fake/vendor/prosemirror-transform/dist/index.js',
  orderedmap: '/__fake/vendor/orderedmap/dist/index.js',
  'w3c-keyname': '/__fake/vendor/w3c-keyname/index.js',
};

/**
 * The surface switch, rendered with the page (as the server renders chatgpt.com's shell):
 * Chat, Work mode, or another product (Codex), the selected one `aria-selected`. With config
 * `surface_switch: "changed"` it is built differently (issue 35): a radiogroup with other
 * test ids, its options `role="radio"` + `aria-checked`, Chat or Work mode selected as
 * `surface` says — a switch the extension does not know.
 */
function surfaceSwitch(surface, config) {
  if (config.surface_switch === 'changed' && surface !== 'codex') {
    const options = [['chat', 'Chat'], ['agent', 'Work']]
      .map(([name, label]) => `<button type="button" role="radio" data-testid="mode-option-${name}" aria-checked="${(surface === 'work') === (name === 'agent')}">${label}</button>`)
      .join('');
    return ` <span role="radiogroup" data-testid="mode-toggle">${options}</span>`;
  }
  const tabs = [['chat', 'Chat'], ['work', 'Work'], ['codex', 'Codex']]
    .map(([name, label]) => `<button type="button" role="tab" data-testid="surface-${name}" aria-selected="${surface === name}">${label}</button>`)
    .join('');
  return ` <span role="tablist" data-testid="surface-switcher">${tabs}</span>`;
}

/**
 * The sidebar's New chat control (config `new_chat_control`): the anchor to "/" that the
 * page follows in place (app.js); none; or one built differently — the same test id, its
 * address a temporary chat's — that the extension must not take for it.
 */
function sidebar(config) {
  const href = { link: '/', changed: '/?temporary-chat=true' }[config.new_chat_control];
  if (!href) return '<nav data-testid="sidebar"></nav>';
  return `<nav data-testid="sidebar"><a data-testid="create-new-chat-button" href="${href}">New chat</a></nav>`;
}

function page(config, surface = config.surface) {
  // A page whose composer never appears (still loading, logged out, a changed layout).
  const editor = config.layout === 'no-composer' ? '<div id="login-wall">Log in to continue</div>' : '<div id="editor-mount"></div>';
  const send =
    config.layout === 'no-send-button'
      ? // A layout change: the send control lost the attributes the extension knows.
        '<button type="button" class="composer-btn" data-testid="composer-speech-button" aria-label="Start voice mode">Voice</button>'
      : '<button type="button" id="composer-submit-button" data-testid="send-button" aria-label="Send prompt" class="composer-submit-btn">Send</button>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ChatGPT (local test double)</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0; background: #fff; color: #0d0d0d; }
  header { padding: 10px 16px; border-bottom: 1px solid #ddd; font-weight: 600; }
  header small { font-weight: 400; color: #777; }
  #thread { max-width: 760px; margin: 0 auto; padding: 16px; min-height: 300px; }
  section[data-turn] { margin: 12px 0; display: flex; }
  section[data-turn="user"] { justify-content: flex-end; }
  section[data-turn="user"] > div { background: #f0f0f0; border-radius: 18px; padding: 8px 14px; max-width: 70%; }
  .whitespace-pre-wrap, .markdown { white-space: pre-wrap; }
  form { max-width: 760px; margin: 0 auto 24px; display: flex; gap: 8px; align-items: flex-end;
         border: 1px solid #ccc; border-radius: 24px; padding: 8px 12px; background: #fff;
         position: sticky; bottom: 16px; box-shadow: 0 0 0 16px #fff; }
  #editor-mount { flex: 1; }
  .ProseMirror { outline: none; white-space: pre-wrap; word-wrap: break-word; min-height: 24px; }
  .ProseMirror p { margin: 0; }
  button { border-radius: 16px; border: 0; padding: 6px 14px; background: #0d0d0d; color: #fff; }
  button[disabled] { background: #bbb; }
  [role="tab"] { background: #eee; color: #333; margin-left: 4px; }
  [role="tab"][aria-selected="true"] { background: #0d0d0d; color: #fff; }
  header { position: relative; }
  [role="menu"] { position: absolute; z-index: 2; background: #fff; border: 1px solid #ccc; border-radius: 8px; padding: 4px; font-weight: 400; }
  [role="menuitemradio"][aria-checked="true"]::after { content: " ✓"; }
  .modal { position: fixed; top: 20%; left: 50%; transform: translateX(-50%); width: 420px; background: #fff;
           border: 1px solid #ccc; border-radius: 16px; padding: 16px 20px; box-shadow: 0 8px 40px rgba(0,0,0,.3); z-index: 10; }
  .turn-error { display: flex; gap: 8px; align-items: center; margin: 12px 0; }
  [data-testid="conversation-error"] { color: #b3261e; }
  [data-testid="model-downgrade-notice"] { color: #6b5a00; background: #fff8d6; border-radius: 8px; padding: 6px 10px; }
  form { flex-wrap: wrap; }
  .composer-attachments { order: -1; flex-basis: 100%; display: flex; gap: 8px; flex-wrap: wrap; }
  .composer-attachments:empty { display: none; }
  .file-chip { display: flex; align-items: center; gap: 6px; border: 1px solid #ddd; border-radius: 12px; padding: 6px 10px;
               background: #f7f7f8; font-size: 13px; max-width: 340px; }
  .file-chip[data-state="error"] { border-color: #e5a3a0; background: #fdecea; }
  .file-chip[data-state="done"] .file-name::after { content: " ✓"; color: #1a7f37; }
  .file-error { color: #b3261e; }
  .turn-files { font-size: 13px; color: #555; margin-bottom: 4px; }
  .spinner { width: 12px; height: 12px; border: 2px solid #ccc; border-top-color: #0d0d0d; border-radius: 50%; animation: spin .8s linear infinite; }
  @keyframes spin { to { transform: rotate(360deg); } }
  .file-chip button { background: transparent; color: #555; padding: 0 4px; }
  [data-testid="composer-plus-btn"] { background: #eee; color: #333; }
  .generated-images { display: flex; gap: 8px; flex-wrap: wrap; }
  .generated-images figure { margin: 4px 0; }
  .generated-images img { display: block; border-radius: 12px; height: auto; }
  [data-testid="generated-image-error"] { color: #b3261e; border: 1px dashed #e5a3a0; border-radius: 12px; padding: 24px 16px; max-width: 320px; }
</style>
<script type="importmap">${JSON.stringify({ imports: IMPORTS })}</script>
</head><body>
<header>ChatGPT <small>local test double — sendledger e2e</small>${surfaceSwitch(surface, config)}</header>
${sidebar(config)}
<main><div id="thread"></div>
<form data-type="unified-composer" id="composer-form">
  ${editor}
  <span id="send-slot">${send}</span>
  <button type="button" id="composer-stop-button" data-testid="stop-button" aria-label="Stop streaming" hidden>Stop</button>
</form></main>
<script type="module" src="/__fake/app.js"></script>
</body></html>`;
}

/** Starts the fake. Returns `{port, blobPort, blobHost, close()}` (`blobPort`: the blob store's). */
export async function startFake({ cert, key, port = 0, host = '127.0.0.1' }) {
  const DEFAULTS = { format: 'delta', layout: 'standard', hold: false, error: false, frames: 'single', picker: 'top', surface: 'chat', picker_drift: false, markers: 'standard', send_route: 'chat', hold_page: false, answer_model: false, state: null, lang: 'en', retry_after: undefined, file_limit: false, upload_hold: false, upload_fail: false, file_input: true, file_inputs: 1, upload_on_send: false, chips: 'standard', request_files: 'all', surface_switch: 'known', pro: false, slider_skew: false, answer_images: false, download_refuse: false, download_busy: false, download_hold: false, long_answer: 0, answer_ms: 0, new_chat_control: 'link', new_chat_render_ms: 0, picker_mount_ms: 0 };
  const config = { ...DEFAULTS };
  const counts = () => ({ clicks: 0, enter_submits: 0, posts: 0, elsewhere_posts: 0, stop_clicks: 0, stop_requests: 0, held_pages: 0, retry_clicks: 0, disabled_clicks: 0, stalled_uploads: 0, work_posts: 0, new_chat_clicks: 0, new_chat_rendered_at: null, pages: [], requests: [] });
  let state = counts();
  let holds = [];
  const conversations = new Map();
  const active = new Set(); // turns whose answer is being written
  const handoffs = new Map(); // topic → pending WebSocket part of a turn
  let sockets = new Set();
  const files = fileStore({ config, holds, blobOrigin: () => `https://${BLOB_HOST}` });
  const artifacts = artifactStore({ config, holds, blobOrigin: () => `https://${BLOB_HOST}` });

  const conversation = (id) => {
    if (!conversations.has(id)) conversations.set(id, { id, createTime: Date.now() / 1000, messages: [] });
    return conversations.get(id);
  };

  /** Waits for a release (when holding) or a stop; answers 'released' or 'stopped'. */
  const gate = (turn, when) =>
    new Promise((resolve) => {
      turn.stop = () => resolve('stopped');
      if (config.hold !== when) return resolve('released');
      holds.push(() => resolve('released'));
    });

  /** An answer written for `ms` (config answer_ms) before its end; a stop ends it sooner. */
  const writing = (turn, ms) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve('released'), ms);
      turn.stop = () => {
        clearTimeout(timer);
        resolve('stopped');
      };
    });

  const readBody = (req) =>
    new Promise((resolve, reject) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });

  const json = (res, status, obj) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(obj));
  };

  async function conversationPost(req, res) {
    const body = JSON.parse(await readBody(req));
    state.posts += 1;
    const encodings = body.supported_encodings || [];
    const format = encodings.includes('v1') ? (config.format === 'handoff' ? 'handoff' : 'delta') : 'legacy';
    const turn = formats.newTurn(body, format, config.answer_model);
    turn.longAnswer = Number(config.long_answer) || 0;
    const concurrent = active.size;
    state.requests.push({
      at: Date.now(),
      text: turn.text,
      message_id: turn.user.id,
      conversation_id: turn.conversationId,
      new_chat: turn.isNewChat,
      turn_exchange_id: turn.turnExchangeId,
      assistant_id: turn.assistantId,
      format,
      concurrent,
      content_type: turn.user.content.content_type,
      attachments: turn.attachments.attachments,
      pointers: turn.attachments.pointers,
    });
    const record = state.requests[state.requests.length - 1]; // this POST's (others arrive meanwhile)
    const refused = states.refusedAnswer(config);
    if (refused) {
      res.writeHead(refused.status, refused.headers);
      return res.end(refused.body); // the server did not take the message
    }
    if (config.state === 'downgrade') turn.modelSlug = states.DOWNGRADED_MODEL;
    active.add(turn);
    if ((await gate(turn, 'response')) === 'stopped') {
      active.delete(turn);
      return json(res, 200, {});
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const conv = conversation(turn.conversationId);
    const mode = body.conversation_mode || {};
    if (turn.isNewChat && mode.kind === 'gizmo_interaction') conv.project = mode.gizmo_id;
    Object.assign(state.requests[state.requests.length - 1], { model: body.model, effort: body.thinking_effort || null, project: conv.project || null });
    let answer;
    try {
      const stateError = states.streamError(config);
      if ((config.error || stateError) && format !== 'legacy') {
        const e = stateError || formats.ERRORS[config.error];
        const s = config.error === 'dom' ? formats.deltaStream(turn) : formats.errorStream(turn, e.message, e.code);
        for (const ev of s.head) res.write(ev);
        res.end(); // no answer: the page says no
        conv.messages.push(...formats.turnMessages(turn, '').slice(0, -1));
        return;
      }
      if (format !== 'legacy') turn.images = artifacts.forAnswer(turn.conversationId); // config answer_images
      if (format === 'handoff') {
        const s = formats.handoffStream(turn);
        if (config.frames === 'array') {
          s.wsHead = formats.asArrayFrames(s.wsHead);
          s.wsTail = formats.asArrayFrames(s.wsTail);
        }
        if (config.frames === 'mixed') {
          const other = formats.handoffStream(formats.newTurn(formats.otherConversationBody('Asked in another tab.'), 'handoff'));
          const theirs = [...other.wsHead, ...other.wsTail];
          s.wsHead = formats.asMixedFrames(s.wsHead, theirs);
          s.wsTail = formats.asMixedFrames(s.wsTail, theirs);
        }
        answer = s.answer;
        handoffs.set(formats.topicOf(turn), { turn, s });
        for (const e of s.http) res.write(e);
        res.end();
        return; // the WebSocket subscription writes the rest
      }
      const s = format === 'legacy' ? formats.legacyStream(turn) : formats.deltaStream(turn);
      answer = s.answer;
      if (config.markers === 'renamed') for (const part of ['head', 'tail']) s[part] = s[part].map(formats.renameMarkers);
      state.requests[state.requests.length - 1].answer = answer;
      for (const e of s.head) res.write(e);
      record.head_at = Date.now();
      const answered = config.answer_ms ? await writing(turn, Number(config.answer_ms)) : await gate(turn, 'answer');
      if (answered === 'stopped') {
        conv.messages.push(...formats.turnMessages(turn, answer).slice(0, -1));
        res.end(); // a stopped answer simply closes, without the completion tail
        return;
      }
      for (const e of s.tail) res.write(e);
      res.end();
      record.end_at = Date.now();
      conv.messages.push(...formats.turnMessages(turn, answer));
    } finally {
      if (format !== 'handoff') active.delete(turn);
    }
  }

  async function subscribe(ws, topic) {
    const pending = handoffs.get(topic);
    if (!pending) return;
    handoffs.delete(topic);
    const { turn, s } = pending;
    const conv = conversation(turn.conversationId);
    for (const f of s.wsHead) ws.send(f);
    const outcome = await gate(turn, 'answer');
    active.delete(turn);
    if (outcome === 'stopped') {
      conv.messages.push(...formats.turnMessages(turn, s.answer).slice(0, -1));
      return;
    }
    for (const f of s.wsTail) ws.send(f);
    conv.messages.push(...formats.turnMessages(turn, s.answer));
  }

  /**
   * The page's addresses: a new chat `/`, a conversation `/c/<id>`, the transient
   * `/c/WEB:<request id>`, a Project's new-chat page `/g/g-p-<id>-<name>/project` and its
   * conversations `/g/g-p-<id>-<name>/c/<id>`, and another product surface (`/codex`).
   */
  const pagePath = (p) =>
    p === '/' || p === '/codex' || /^(\/g\/g-p-[0-9a-f]+(-[A-Za-z0-9-]*)?)?\/(c\/([0-9a-f-]{36}|WEB:[0-9a-f-]{36})|project)$/.test(p);

  /**
   * A Project's conversation opened by its short address goes to its Project's address.
   * A page whose address is config `hold_page` is answered only at a release (a tab on
   * its way somewhere; `held_pages` in the state counts them).
   */
  async function servePage(res, p) {
    state.pages.push(p);
    if (config.hold_page && p === config.hold_page) {
      state.held_pages += 1;
      await new Promise((resolve) => holds.push(resolve));
    }
    const short = p.match(/^\/c\/([0-9a-f-]{36})$/);
    const conv = short && conversations.get(short[1]);
    if (conv && conv.project) {
      res.writeHead(302, { location: `/g/${conv.project}-${PROJECT_NAME}/c/${conv.id}` });
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    return res.end(page(config, p === '/codex' ? 'codex' : config.surface));
  }

  async function route(req, res) {
    const url = new URL(req.url, 'https://chatgpt.com');
    const p = url.pathname;
    if (req.method === 'GET' && pagePath(p)) return servePage(res, p);
    if (req.method === 'GET' && ['/__fake/app.js', '/__fake/places.js', '/__fake/uploads.js', '/__fake/generated.js'].includes(p)) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(fs.readFileSync(path.join(here, p.slice('/__fake/'.length))));
    }
    const vendor = p.match(/^\/__fake\/vendor\/([a-z0-9-]+)\/((?:dist\/)?index\.js)$/);
    if (req.method === 'GET' && vendor && VENDOR.has(vendor[1])) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(fs.readFileSync(path.join(nodeModules, vendor[1], vendor[2])));
    }
    if (req.method === 'GET' && p === '/__fake/config') {
      const limits = { ...LIMITS, file_bytes: Number(config.file_limit) || LIMITS.file_bytes, words: { ...LIMITS.words, too_large: null } };
      limits.words.too_large = LIMITS.words.too_large(Math.floor(limits.file_bytes / (1024 * 1024)));
      return json(res, 200, { ...config, errors: formats.ERRORS, view: states.pageView(config), limits });
    }
    if (req.method === 'POST' && p === '/backend-api/files') {
      const r = files.create(JSON.parse((await readBody(req)) || '{}'));
      return json(res, r.status, r.body);
    }
    const done = p.match(/^\/backend-api\/files\/(file-[A-Za-z0-9]+)\/uploaded$/);
    if (req.method === 'POST' && done) {
      const r = files.uploaded(done[1]);
      return json(res, r.status, r.body);
    }
    if (req.method === 'POST' && p === '/__fake/event') {
      const { kind } = JSON.parse(await readBody(req));
      if (kind === 'click') state.clicks += 1;
      if (kind === 'enter') state.enter_submits += 1;
      if (kind === 'stop_click') state.stop_clicks += 1;
      if (kind === 'retry_click') state.retry_clicks += 1;
      if (kind === 'disabled_click') state.disabled_clicks += 1;
      if (kind === 'stalled_upload') state.stalled_uploads += 1;
      if (kind === 'new_chat_click') state.new_chat_clicks += 1;
      if (kind === 'new_chat_rendered') state.new_chat_rendered_at = Date.now();
      return json(res, 200, {});
    }
    if (req.method === 'POST' && (p === '/backend-api/f/conversation' || p === '/backend-api/conversation')) {
      return conversationPost(req, res);
    }
    // Work mode's composer posts its message here, not to a chat conversation route.
    if (req.method === 'POST' && /^\/backend-api\/work\/[0-9a-f-]{36}\/messages$/.test(p)) {
      await readBody(req);
      state.elsewhere_posts += 1;
      state.work_posts += 1; // a message sent into Work mode, not a chat conversation
      return json(res, 200, { status: 'accepted' });
    }
    if (req.method === 'POST' && p === '/backend-api/stop_conversation') {
      const { conversation_id: id } = JSON.parse(await readBody(req));
      state.stop_requests += 1;
      for (const turn of active) if (turn.conversationId === id && turn.stop) turn.stop();
      return json(res, 200, {});
    }
    const conv = p.match(/^\/backend-api\/conversation\/([0-9a-f-]{36})$/);
    if (req.method === 'GET' && conv) {
      if (!conversations.has(conv[1])) return json(res, 404, { detail: 'Conversation not found' });
      return json(res, 200, formats.conversationListing(conversations.get(conv[1])));
    }
    const download = p.match(/^\/backend-api\/conversation\/([0-9a-f-]{36})\/attachment\/(file[-_][A-Za-z0-9]+)\/download$/);
    if (req.method === 'GET' && download) {
      const r = artifacts.download(download[1], download[2], req.headers);
      return json(res, r.status, r.body);
    }
    if (req.method === 'GET' && p === '/api/auth/session') return json(res, 200, artifacts.session());
    if (req.method === 'GET' && p === '/backend-api/celsius/ws/user') {
      return json(res, 200, { websocket_url: 'wss://chatgpt.com/celsius/ws/user?verify=sendledger-test-double' });
    }
    if (p.startsWith('/__test/')) return testRoute(req, res, p);
    return json(res, 404, { detail: 'Not Found' });
  }

  async function testRoute(req, res, p) {
    if (req.method === 'GET' && p === '/__test/state') return json(res, 200, { ...state, ...files.view(), ...artifacts.view(), held: holds.length });
    const generated = p.match(/^\/__test\/artifact\/(file[-_][A-Za-z0-9]+)$/);
    if (req.method === 'GET' && generated) {
      const bytes = artifacts.bytes(generated[1]);
      if (!bytes) return json(res, 404, { detail: 'no such generated file' });
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(bytes);
    }
    const blob = p.match(/^\/__test\/blob\/(file-[A-Za-z0-9]+)$/);
    if (req.method === 'GET' && blob) {
      const bytes = files.bytes(blob[1]);
      if (!bytes) return json(res, 404, { detail: 'no bytes stored for that file' });
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(bytes);
    }
    if (req.method === 'POST' && p === '/__test/config') {
      Object.assign(config, JSON.parse((await readBody(req)) || '{}'));
      return json(res, 200, config);
    }
    if (req.method === 'POST' && p === '/__test/release') {
      const n = holds.length;
      for (const release of holds.splice(0)) release();
      return json(res, 200, { released: n });
    }
    if (req.method === 'POST' && p === '/__test/reset') {
      for (const release of holds.splice(0)) release();
      state = counts();
      files.reset();
      artifacts.reset();
      Object.assign(config, DEFAULTS);
      return json(res, 200, {});
    }
    return json(res, 404, { detail: 'Not Found' });
  }

  // chatgpt.com speaks HTTP/2: a browser holds many of its answers' streams at once on one
  // connection (over HTTP/1.1 it would keep at most six, and a seventh tab's POST would wait
  // for an answer to end). HTTP/1.1 stays for the test routes' client and the WebSocket.
  const server = http2.createSecureServer({ cert, key, allowHTTP1: true }, (req, res) => {
    route(req, res).catch((e) => {
      if (!res.headersSent) json(res, 500, { detail: String(e.message) });
      else res.end();
    });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    if (!req.url.startsWith('/celsius/ws/user')) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      ws.on('message', (data) => {
        const msg = JSON.parse(String(data));
        if (msg.command === 'subscribe') subscribe(ws, msg.topic_id);
      });
    });
  });
  // The blob store: a second origin (another host name, another port), as the page's
  // uploads go to a storage host that is not chatgpt.com.
  const blobServer = https.createServer({ cert, key }, (req, res) => {
    const url = new URL(req.url, `https://${BLOB_HOST}`);
    const served = artifacts.blobGet(req, res, url, BLOB_CORS).then((done) => done || files.blobRoute(req, res));
    served.catch((e) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(e.message));
    });
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  await new Promise((resolve) => blobServer.listen(0, host, resolve));
  const blobPort = blobServer.address().port;
  const open = new Set(); // the main server's connections (an HTTP/2 server has no closeAllConnections)
  server.on('secureConnection', (socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  const closeServer = (srv) => new Promise((resolve) => {
    if (srv.closeAllConnections) srv.closeAllConnections();
    else for (const socket of open) socket.destroy();
    srv.close(resolve);
  });
  return {
    port: server.address().port,
    blobPort,
    blobHost: BLOB_HOST,
    close: async () => {
      for (const release of holds.splice(0)) release();
      for (const ws of sockets) ws.terminate();
      sockets = new Set();
      await Promise.all([closeServer(server), closeServer(blobServer)]);
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name, dflt) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : dflt;
  };
  const fake = await startFake({
    cert: fs.readFileSync(arg('cert')),
    key: fs.readFileSync(arg('key')),
    port: Number(arg('port', '8443')),
  });
  console.log(`fake chatgpt.com on https://127.0.0.1:${fake.port}, its blob store on ${fake.blobPort}`);
}
