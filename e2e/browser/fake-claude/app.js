// The fake claude.ai page (issue 36): a real ProseMirror editor as the composer (Enter
// sends, Shift+Enter splits the paragraph), the model picker, send and stop buttons, and a
// client that does what docs/claude-provider.md says the page does: it reads a
// conversation (`?tree=True`), creates a new chat with the create call, sends with the
// completion POST naming the message uuids it chose (`turn_message_uuids`), reads the
// event stream (thinking apart from the answer), shows the stream's `error` in the thread
// as [role="alert"], and stops with the stop_response route. It never calls retry_completion.

import { Schema } from 'prosemirror-model';
import { EditorState } from 'prosemirror-state';
import { EditorView } from 'prosemirror-view';
import { keymap } from 'prosemirror-keymap';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const $ = (sel) => document.querySelector(sel);
const config = await (await fetch('/__fake-claude/config')).json();
const API = `/api/organizations/${config.org}/chat_conversations`;
await fetch(`${API}?limit=30`); // the recent chats: the page's first call, before its composer shows
const NAMES = { 'claude-sonnet-4-6': 'Sonnet 4.6', 'claude-opus-4-7': 'Opus 4.7', 'claude-haiku-4-5': 'Haiku 4.5' };

const schema = new Schema({
  nodes: {
    doc: { content: 'paragraph+' },
    paragraph: { content: 'inline*', group: 'block', parseDOM: [{ tag: 'p' }], toDOM: () => ['p', 0] },
    text: { group: 'inline' },
    hard_break: { inline: true, group: 'inline', selectable: false, parseDOM: [{ tag: 'br' }], toDOM: () => ['br'] },
  },
});

const page = {
  conversation: (location.pathname.match(new RegExp(`^/chat/(${UUID})$`)) || [])[1] || null,
  project: (location.pathname.match(new RegExp(`^/project/(${UUID})$`)) || [])[1] || null,
  leaf: config.root, // the message a new one follows
  model: config.models[0],
  generating: null, // {controller} while an answer streams
};
const note = (kind) => fetch('/__fake-claude/event', { method: 'POST', body: JSON.stringify({ kind }) });
const text = () => view.state.doc.textBetween(0, view.state.doc.content.size, '\n', '\n');

const view = new EditorView($('#editor-mount'), {
  state: EditorState.create({
    schema,
    plugins: [keymap({
      Enter: () => (send(), true),
      'Shift-Enter': (state, dispatch) => (dispatch(state.tr.split(state.selection.from)), true),
    })],
  }),
  attributes: { 'aria-label': 'Write your prompt to the test double', role: 'textbox' },
  dispatchTransaction(tr) {
    view.updateState(view.state.apply(tr));
    buttons();
  },
});

function buttons() {
  $('#send').disabled = !!page.generating || text() === '';
  $('#stop').hidden = !page.generating;
}

function show(kind, words) {
  const el = document.createElement('div');
  if (kind === 'human') el.dataset.testid = 'user-message';
  else if (kind === 'alert') el.setAttribute('role', 'alert');
  else el.className = kind === 'thinking' ? 'thinking' : 'font-claude-response';
  el.textContent = words;
  $('#thread').appendChild(el);
  return el;
}

/** The conversation as the page reads it on load. */
async function load() {
  if (!page.conversation) {
    $('#heading').textContent = page.project ? 'A new chat in Project custody notes' : 'How can the test double help?';
    return;
  }
  const r = await fetch(`${API}/${page.conversation}?tree=True&rendering_mode=messages&render_all_tools=true`);
  if (!r.ok) return; // a conversation this fake does not know yet: empty
  const read = await r.json();
  for (const m of read.chat_messages) show(m.sender === 'human' ? 'human' : 'answer', m.content.map((c) => c.text).join(''));
  page.leaf = read.current_leaf_message_uuid || config.root;
  page.model = read.model || page.model;
}

/** Splits an SSE body into `{event, data}` as it arrives. */
async function* events(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    let at;
    while ((at = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, at);
      buf = buf.slice(at + 2);
      const data = block.split('\n').find((l) => l.startsWith('data: '));
      if (data) yield JSON.parse(data.slice(6));
    }
  }
}

/** Reads one answer's stream into the thread: each block where it starts, thinking apart. */
async function read(body) {
  const blocks = {};
  for await (const e of events(body)) {
    if (e.type === 'content_block_start') blocks[e.index] = show(e.content_block.type === 'thinking' ? 'thinking' : 'answer', '');
    if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') blocks[e.index].textContent += e.delta.text;
    if (e.type === 'content_block_delta' && e.delta.type === 'thinking_delta') blocks[e.index].textContent += e.delta.thinking;
    if (e.type === 'error') show('alert', e.error.message);
  }
}

async function send() {
  const prompt = text();
  if (!prompt || page.generating) return;
  await note('click');
  const human = crypto.randomUUID();
  const assistant = crypto.randomUUID();
  const fresh = !page.conversation;
  if (fresh) {
    const uuid = crypto.randomUUID();
    const body = { uuid, name: '', model: page.model, include_conversation_preferences: true, is_temporary: false, ...(page.project ? { project_uuid: page.project } : {}) };
    await fetch(API, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    page.conversation = uuid;
  }
  view.dispatch(view.state.tr.delete(0, view.state.doc.content.size));
  show('human', prompt);
  page.generating = { controller: new AbortController() };
  buttons();
  const request = {
    prompt, parent_message_uuid: page.leaf, timezone: 'UTC', locale: 'en-US', model: page.model, tools: [],
    turn_message_uuids: { human_message_uuid: human, assistant_message_uuid: assistant },
    attachments: [], files: [], sync_sources: [], rendering_mode: 'messages',
  };
  const answered = fetch(`${API}/${page.conversation}/completion`, {
    method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(request), signal: page.generating.controller.signal,
  });
  if (fresh) history.pushState(null, '', `/chat/${page.conversation}`);
  try {
    const r = await answered;
    await read(r.body);
    page.leaf = assistant;
  } catch {
    // stopped: the answer ends where it is
  } finally {
    page.generating = null;
    buttons();
  }
}

$('#send').addEventListener('click', send);
$('#stop').addEventListener('click', async () => {
  if (!page.generating) return;
  await note('stop_click');
  await fetch(`${API}/${page.conversation}/stop_response`, { method: 'POST' });
  page.generating.controller.abort();
});

// ---------------------------------------------------------------- the model picker

function openMenu() {
  const menu = document.createElement('div');
  menu.setAttribute('role', 'menu');
  for (const m of config.models) {
    const item = document.createElement('div');
    item.setAttribute('role', 'menuitemradio');
    if (config.picker !== 'unknown') item.dataset.testid = `model-option-${m}`;
    item.setAttribute('aria-checked', String(m === page.model));
    item.textContent = NAMES[m] || m;
    item.addEventListener('click', () => {
      page.model = m;
      closeMenu();
    });
    menu.appendChild(item);
  }
  $('fieldset').appendChild(menu);
  $('#model-button').setAttribute('aria-expanded', 'true');
}
function closeMenu() {
  const menu = $('[role="menu"]');
  if (menu) menu.remove();
  $('#model-button').setAttribute('aria-expanded', 'false');
  $('#model-button').textContent = NAMES[page.model] || page.model;
}
const toggle = () => ($('[role="menu"]') ? closeMenu() : openMenu());
if ($('#model-button')) {
  $('#model-button').addEventListener('pointerdown', toggle);
  $('#model-button').addEventListener('click', (e) => e.detail === 0 && toggle()); // a keyboard or scripted click
  document.addEventListener('keydown', (e) => e.key === 'Escape' && $('[role="menu"]') && closeMenu());
}

await load();
if ($('#model-button')) closeMenu();
buttons();
document.documentElement.dataset.fakeReady = 'true';
