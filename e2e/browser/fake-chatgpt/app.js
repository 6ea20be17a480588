// The fake chatgpt.com page: a real ProseMirror editor as the composer (Enter submits,
// Shift+Enter splits the paragraph, like chatgpt.com), send and stop buttons, turns with
// message ids, and a conversation client that POSTs /backend-api/f/conversation and reads
// the answer in whichever format the server picked: legacy snapshots, delta v1, or a v1
// turn handed off to the user WebSocket. Files go in through the composer's file input or a
// drop (uploads.js); a message with uploaded files names them (`multimodal_text`).

import { Schema } from 'prosemirror-model';
import { EditorState, TextSelection } from 'prosemirror-state';
import { EditorView } from 'prosemirror-view';
import { keymap } from 'prosemirror-keymap';
import { chosen, composerChanged, mountPlaces, projectFromPath } from '/__fake/places.js';
import { busy, mountUploads, takeForMessage, uploadWaiting, waiting } from '/__fake/uploads.js';
import { imageParts, pageHeaders, showGenerated } from '/__fake/generated.js';

const schema = new Schema({
  nodes: {
    doc: { content: 'paragraph+' },
    paragraph: { content: 'inline*', group: 'block', parseDOM: [{ tag: 'p' }, { tag: 'div' }], toDOM: () => ['p', 0] },
    text: { group: 'inline' },
    hard_break: { inline: true, group: 'inline', selectable: false, parseDOM: [{ tag: 'br' }], toDOM: () => ['br'] },
  },
});

const $ = (sel) => document.querySelector(sel);
const thread = $('#thread');
const sendButton = $('#send-slot button');
const stopButton = $('button[data-testid="stop-button"]');

/** What the page sends: paragraphs joined by LF, a hard break is an LF. */
const composerText = (doc) => doc.textBetween(0, doc.content.size, '\n', '\n');

function submitCommand(kind) {
  return () => {
    submit(kind);
    return true;
  };
}

function splitParagraph(state, dispatch) {
  dispatch(state.tr.split(state.selection.from).scrollIntoView());
  return true;
}

const view = new EditorView($('#editor-mount'), {
  state: EditorState.create({
    schema,
    plugins: [keymap({ Enter: submitCommand('enter'), 'Shift-Enter': splitParagraph })],
  }),
  attributes: { id: 'prompt-textarea', 'aria-label': 'Message', 'data-virtualkeyboard': 'true' },
  dispatchTransaction(tr) {
    view.updateState(view.state.apply(tr));
    refreshButtons();
    composerChanged(composerText(view.state.doc) === '');
  },
});

/** A changed page while the tab is open (issue 35): the composer re-rendered under another id. */
window.__fakeRerender = (what) => {
  if (what === 'composer') view.setProps({ attributes: { id: 'prompt-editor', 'aria-label': 'Message', 'data-virtualkeyboard': 'true' } });
};

let generating = false;
let turnCounter = thread.children.length;
let currentConversation = conversationFromPath();
let leafId = null;

function conversationFromPath() {
  const m = location.pathname.match(/\/c\/([0-9a-f-]{36})/);
  return m ? m[1] : null;
}

function refreshButtons() {
  const empty = composerText(view.state.doc) === '';
  if (sendButton) {
    sendButton.disabled = empty || generating || busy();
    sendButton.hidden = generating;
  }
  stopButton.hidden = !generating;
}

function clearComposer() {
  const { doc } = view.state;
  const tr = view.state.tr.delete(0, doc.content.size);
  tr.setSelection(TextSelection.create(tr.doc, 1));
  view.dispatch(tr);
}

/** The page's own error for a turn, as chatgpt.com renders it; `retry`: its Retry button. */
function showError(message, retry = null) {
  const wrap = document.createElement('div');
  wrap.className = 'turn-error';
  const div = document.createElement('div');
  div.dataset.testid = 'conversation-error';
  div.className = 'text-token-text-error';
  div.textContent = message;
  wrap.appendChild(div);
  if (retry) {
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.testid = 'regenerate-thread-error-button';
    button.textContent = retry.label;
    button.addEventListener('click', retry.run);
    wrap.appendChild(button);
  }
  thread.appendChild(wrap);
}

/** The page's modal (the "Too many requests" one): a dialog over the page. */
function showModal(title, message, ok) {
  const dialog = document.createElement('div');
  dialog.setAttribute('role', 'dialog');
  dialog.setAttribute('aria-modal', 'true');
  dialog.setAttribute('aria-labelledby', 'modal-title');
  dialog.dataset.state = 'open';
  dialog.className = 'modal';
  dialog.innerHTML = '<h2 id="modal-title"></h2><p></p><button type="button" data-testid="close-button"></button>';
  dialog.querySelector('h2').textContent = title;
  dialog.querySelector('p').textContent = message;
  dialog.querySelector('button').textContent = ok;
  dialog.querySelector('button').addEventListener('click', () => dialog.remove());
  document.body.appendChild(dialog);
}

/** The page's notice that another model answers until the limit resets. */
function showNotice(message) {
  const div = document.createElement('div');
  div.dataset.testid = 'model-downgrade-notice';
  div.setAttribute('role', 'status');
  div.textContent = message;
  thread.appendChild(div);
}

/** How the page shows the server's refusal of its conversation request. */
function showRefusal(response, view) {
  const w = (view && view.words) || {};
  if (response.status === 429) return showModal(w.too_many_title || 'Too many requests', w.too_many_requests || '', w.got_it || 'OK');
  if (response.status === 403) return showError(w.unusual_activity || 'Forbidden');
  if (response.status === 431) return showError(w.headers_too_large || 'Request headers too large');
  return showError(`HTTP ${response.status}`);
}

function addTurn(role, id, text, extra = {}) {
  turnCounter += 1;
  const section = document.createElement('section');
  section.dataset.testid = `conversation-turn-${turnCounter}`;
  section.dataset.turn = role;
  section.dataset.turnId = extra.turnId || id;
  const msg = document.createElement('div');
  msg.dataset.messageAuthorRole = extra.author || role;
  msg.dataset.messageId = id;
  if (role === 'assistant') msg.dataset.messageModelSlug = 'sendledger-test-double';
  const body = document.createElement('div');
  if (role === 'user') {
    body.dataset.testid = 'collapsible-user-message-content';
    body.innerHTML = '<div class="whitespace-pre-wrap"></div>';
    body.firstChild.textContent = text;
  } else {
    body.className = 'markdown prose';
    body.textContent = text;
  }
  msg.appendChild(body);
  section.appendChild(msg);
  thread.appendChild(section);
  section.scrollIntoView({ block: 'end' });
  return body.firstChild && role === 'user' ? body.firstChild : body;
}

/** An answer's generated images: a turn of the image tool's message, filled by generated.js. */
function showImages(message, conversationId) {
  if (document.querySelector(`[data-message-id="${message.id}"]`)) return;
  const body = addTurn('assistant', message.id, '', { author: 'tool' });
  showGenerated(body, conversationId, message);
}

async function note(kind) {
  await fetch('/__fake/event', { method: 'POST', body: JSON.stringify({ kind }) });
}

/** Splits an SSE byte stream into events `{event, data}`. */
function sseSplitter(onEvent) {
  let buf = '';
  return (text) => {
    buf += text;
    let i;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      let event = 'message';
      const data = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length) onEvent({ event, data: data.join('\n') });
    }
  };
}

/** A minimal delta v1 decoder: one root object per `c`, carry-forward of p/o/c. */
function deltaDecoder(onMessage) {
  const roots = [];
  let last = { p: '', o: 'add', c: 0 };
  const apply = (root, p, o, v) => {
    if (p === '') {
      if (o === 'add' || o === 'replace') return v;
      if (o === 'patch') {
        let r = root;
        for (const op of v) r = apply(r, op.p, op.o, op.v);
        return r;
      }
      return root;
    }
    const keys = p.split('/').slice(1).map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    let obj = root;
    for (const k of keys.slice(0, -1)) obj = obj[k];
    const k = keys[keys.length - 1];
    if (o === 'append') {
      if (typeof obj[k] === 'string') obj[k] += v;
      else if (Array.isArray(obj[k])) obj[k].push(...v);
      else obj[k] = { ...obj[k], ...v };
    } else if (o === 'replace' || o === 'add') obj[k] = v;
    else if (o === 'remove') delete obj[k];
    else if (o === 'patch') for (const op of v) apply(root, op.p, op.o, op.v);
    return root;
  };
  return (d) => {
    const p = d.p ?? last.p;
    const o = d.o ?? last.o;
    const c = d.c ?? last.c;
    last = { p, o, c };
    roots[c] = apply(roots[c], p, o, d.v);
    if (roots[c] && roots[c].message) onMessage(roots[c].message);
  };
}

let socket = null;
const topicHandlers = new Map();

async function openUserSocket() {
  const r = await fetch('/backend-api/celsius/ws/user');
  const { websocket_url: url } = await r.json();
  socket = new WebSocket(url);
  socket.addEventListener('message', (ev) => {
    // A frame is one envelope or a JSON array of envelopes (config frames: "array").
    const parsed = JSON.parse(ev.data);
    for (const frame of Array.isArray(parsed) ? parsed : [parsed]) {
      const handler = topicHandlers.get(frame.topic_id);
      if (handler) handler(frame);
    }
  });
  await new Promise((resolve) => socket.addEventListener('open', resolve, { once: true }));
}

/** Work mode's composer: the message goes to a Work route, not a chat conversation. */
async function workMessage(text) {
  clearComposer();
  addTurn('user', crypto.randomUUID(), text);
  await fetch(`/backend-api/work/${crypto.randomUUID()}/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: text }) });
}

/** Work mode sends a message to its own route, not a chat conversation's (config send_route). */
async function sendToWork(text, model) {
  await fetch(`/backend-api/work/${crypto.randomUUID()}/messages`, {
    method: 'POST',
    headers: { ...(await pageHeaders()), 'content-type': 'application/json' },
    body: JSON.stringify({ input: { role: 'user', content: text }, model }),
  });
}

/**
 * A submit (`kind`: click or enter). Files waiting for it (config `upload_on_send`) start
 * uploading, and the page submits by itself once they are uploaded (`noted`: the click was
 * counted already).
 */
async function submit(kind, noted = false) {
  if (generating) return;
  const text = composerText(view.state.doc);
  if (text === '' || busy()) return;
  if (!noted) await note(kind);
  if (waiting()) {
    uploadWaiting(() => submit(kind, true));
    return;
  }
  const config = await (await fetch('/__fake/config')).json();
  if (config.surface === 'work') return workMessage(text);
  const files = takeForMessage();
  const userId = crypto.randomUUID();
  const body = {
    action: 'next',
    messages: [
      {
        id: userId,
        author: { role: 'user' },
        create_time: Date.now() / 1000,
        content: files.parts.length ? { content_type: 'multimodal_text', parts: [...files.parts, text] } : { content_type: 'text', parts: [text] },
        metadata: {
          ...(files.attachments.length ? { attachments: files.attachments } : {}),
          selected_sources: [],
          selected_github_repos: [],
          serialization_metadata: { custom_symbol_offsets: [] },
        },
      },
    ],
    parent_message_id: leafId || 'client-created-root',
    model: (config.view && config.view.requested) || chosen().model,
    client_prepare_state: 'none',
    timezone_offset_min: 0,
    timezone: 'UTC',
    conversation_mode: { kind: 'primary_assistant' },
    enable_message_followups: true,
    system_hints: [],
    supports_buffering: true,
    supported_encodings: config.format === 'legacy' ? [] : ['v1'],
    paragen_cot_summary_display_override: 'allow',
    force_parallel_switch: 'auto',
  };
  if (currentConversation) body.conversation_id = currentConversation;
  if (chosen().effort) body.thinking_effort = chosen().effort;
  const project = projectFromPath();
  if (project) body.conversation_mode = { kind: 'gizmo_interaction', gizmo_id: project };
  // Right after a submit, a new chat shows the transient /c/WEB:<request id> route until
  // the server names the conversation.
  const projectPath = location.pathname.match(/^\/g\/[^/]+/);
  const base = projectPath ? projectPath[0] : '';
  if (!currentConversation) history.pushState({}, '', `${base}/c/WEB:${crypto.randomUUID()}`);
  clearComposer();
  generating = true;
  refreshButtons();
  const shown = addTurn('user', userId, text);
  if (files.attachments.length) {
    const list = document.createElement('div');
    list.className = 'turn-files';
    list.textContent = files.attachments.map((f) => `${f.mime_type.startsWith('image/') ? '🖼' : '📄'} ${f.name}`).join('  ·  ');
    shown.parentElement.prepend(list);
  }
  let answerBody = null;
  let answerId = null;
  const render = (message) => {
    if (imageParts(message).length) return showImages(message, conversationId);
    if (message.author.role !== 'assistant' || message.recipient !== 'all') return;
    if (message.id !== answerId) {
      answerId = message.id;
      answerBody = addTurn('assistant', message.id, '', { turnId: `request-${message.metadata.turn_exchange_id || message.id}-${turnCounter}` });
    }
    answerBody.textContent = message.content.parts.join('');
    if (message.status === 'finished_successfully' && message.end_turn) leafId = message.id;
  };
  const decode = deltaDecoder(render);
  let handedOff = null;
  let pageSaidNo = false;
  let conversationId = currentConversation;
  const onEvent = ({ event, data }) => {
    if (data === '[DONE]' || event === 'delta_encoding') return;
    const obj = JSON.parse(data);
    if (event === 'delta') return decode(obj);
    if (obj.type === 'error') {
      pageSaidNo = true;
      const retry = config.view && config.view.state === 'something_went_wrong' ? { label: config.view.words.retry, run: () => retryTurn(body) } : null;
      showError(obj.error.message, retry);
    }
    if (obj.type === 'stream_handoff') handedOff = obj;
    if (obj.conversation_id) conversationId = obj.conversation_id;
    if (obj.type === 'input_message') leafId = obj.input_message.id;
    if (obj.message) render(obj.message);
  };
  try {
    if (config.send_route === 'work') return await sendToWork(text, body.model); // Work mode's own route
    const response = await fetch('/backend-api/f/conversation', {
      method: 'POST',
      headers: { ...(await pageHeaders()), 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
    });
    if (!response.ok) return showRefusal(response, config.view); // the server did not take it
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const split = sseSplitter(onEvent);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      split(decoder.decode(value, { stream: true }));
    }
    if (handedOff) {
      const topic = handedOff.options.find((o) => o.type === 'subscribe_ws_topic').topic_id;
      await new Promise((resolve) => {
        const wsSplit = sseSplitter((ev) => {
          onEvent(ev);
          if (ev.data.includes('"message_stream_complete"')) resolve();
        });
        const seen = new Set();
        topicHandlers.set(topic, (frame) => {
          const inner = frame.payload;
          if (inner.type === 'conversation-turn-complete') return resolve();
          if (inner.type !== 'conversation-turn-stream') return;
          const item = inner.payload;
          if (seen.has(item.stream_item_id)) return;
          seen.add(item.stream_item_id);
          wsSplit(item.encoded_item);
        });
        stopWaiters.push(resolve);
        socket.send(JSON.stringify({ command: 'subscribe', topic_id: topic }));
      });
      topicHandlers.delete(topic);
    }
    if (config.error === 'dom' && !pageSaidNo) showError(config.errors.dom.message);
    if (config.view && config.view.state === 'downgrade') showNotice(config.view.words.downgrade);
  } finally {
    generating = false;
    refreshButtons();
    if (!currentConversation && conversationId) {
      currentConversation = conversationId;
      history.pushState({}, '', `${base}/c/${conversationId}`);
    }
  }
}

const stopWaiters = [];

/** The page's own Retry: the same request again (counted, so a test sees any click). */
async function retryTurn(body) {
  await note('retry_click');
  await fetch('/backend-api/f/conversation', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ ...body, action: 'variant' }),
  });
}

if (sendButton) {
  sendButton.addEventListener('click', (ev) => {
    ev.preventDefault();
    submit('click');
  });
}
stopButton.addEventListener('click', async (ev) => {
  ev.preventDefault();
  await note('stop_click');
  await fetch('/backend-api/stop_conversation', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ conversation_id: currentConversation, exclude_async_types: [] }),
  });
  for (const resolve of stopWaiters.splice(0)) resolve();
});
$('#composer-form').addEventListener('submit', (ev) => ev.preventDefault());

/**
 * The sidebar's New chat control (server.mjs `sidebar`), as the single-page app follows it:
 * no page load — the address changes at once (history.pushState), then, after config
 * `new_chat_render_ms`, the new chat is rendered: an empty thread, an empty composer, no
 * conversation. Every click is counted (`new_chat_clicks`), whatever the control's address.
 */
function mountNewChat(config) {
  const control = $('[data-testid="create-new-chat-button"]');
  if (!control) return;
  control.addEventListener('click', async (ev) => {
    ev.preventDefault();
    note('new_chat_click');
    history.pushState({}, '', control.getAttribute('href'));
    const renderMs = Number((await config).new_chat_render_ms) || 0;
    if (renderMs) await new Promise((resolve) => setTimeout(resolve, renderMs));
    thread.replaceChildren();
    currentConversation = null;
    leafId = null;
    clearComposer();
    note('new_chat_rendered');
  });
}

async function loadConversation() {
  if (!currentConversation) return;
  const r = await fetch(`/backend-api/conversation/${currentConversation}`, { headers: await pageHeaders() });
  if (!r.ok) return;
  const conv = await r.json();
  const chain = [];
  for (let id = conv.current_node; id && conv.mapping[id]; id = conv.mapping[id].parent) chain.unshift(conv.mapping[id]);
  for (const node of chain) {
    const m = node.message;
    if (!m || m.metadata?.is_visually_hidden_from_conversation || m.recipient !== 'all') continue;
    if (imageParts(m).length) showImages(m, currentConversation);
    if (m.author.role === 'user' || m.author.role === 'assistant') addTurn(m.author.role, m.id, m.content.parts.filter((p) => typeof p === 'string').join(''));
  }
  leafId = conv.current_node === 'client-created-root' ? null : conv.current_node;
}

refreshButtons();
mountNewChat(fetch('/__fake/config').then((r) => r.json())); // read while the page mounts, not before
await Promise.all([openUserSocket(), loadConversation(), mountPlaces(), mountUploads($('#composer-form'), refreshButtons)]);
document.documentElement.dataset.fakeReady = 'true';
view.focus();
