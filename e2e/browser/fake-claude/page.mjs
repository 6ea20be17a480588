// The fake claude.ai's page shell: the sidebar (New chat, the Project), the thread, the
// composer's fieldset (a ProseMirror editor mounted by app.js, the model picker, the send
// and stop buttons). Structure as docs/extension.md's claude.ai facts describe it; its
// own look, words and colours.

import { PROJECT } from './formats.mjs';

/** The model picker's button, per config `picker` ("none": the account shows no picker). */
const pickerButton = (config) =>
  config.picker === 'none' ? '' : '<button type="button" id="model-button" data-testid="model-selector-dropdown" aria-haspopup="menu" aria-expanded="false">Model</button>';

/** The page's HTML; `imports`: the import map of the vendored ProseMirror modules. */
export function page(config, imports) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Claude (local test double)</title>
<style>
  body { font: 15px/1.55 Georgia, 'Times New Roman', serif; margin: 0; background: #f5f4ef; color: #29261b; display: flex; min-height: 100vh; }
  nav { width: 200px; background: #ebe9e0; padding: 16px 12px; font: 14px system-ui, sans-serif; }
  nav a { display: block; color: #29261b; text-decoration: none; padding: 6px 8px; border-radius: 8px; }
  nav a:hover { background: #dedbd0; }
  nav small { display: block; color: #8a8575; margin-top: 18px; }
  main { flex: 1; display: flex; flex-direction: column; align-items: center; }
  #heading { font-size: 26px; margin: 32px 0 8px; color: #3d3929; }
  #thread { width: min(720px, 92%); flex: 1; padding: 8px 0; }
  [data-testid="user-message"] { background: #e8e5da; border-radius: 14px; padding: 8px 14px; margin: 12px 0 12px auto; max-width: 75%; width: fit-content; white-space: pre-wrap; font-family: system-ui, sans-serif; }
  .font-claude-response { margin: 12px 0; white-space: pre-wrap; }
  .thinking { color: #8a8575; font-size: 13px; font-style: italic; font-family: system-ui, sans-serif; }
  [role="alert"] { color: #9c2c1b; background: #fbe9e4; border-radius: 10px; padding: 8px 12px; font-family: system-ui, sans-serif; }
  fieldset { width: min(720px, 92%); margin: 0 0 24px; border: 1px solid #d9d5c7; border-radius: 18px; background: #fff; padding: 10px 12px;
             display: flex; flex-wrap: wrap; gap: 8px; align-items: flex-end; box-shadow: 0 2px 10px rgba(60,50,20,.07); position: relative; }
  #editor-mount { flex-basis: 100%; }
  .ProseMirror { outline: none; white-space: pre-wrap; word-wrap: break-word; min-height: 44px; font-family: system-ui, sans-serif; }
  .ProseMirror p { margin: 0; }
  .spacer { flex: 1; }
  button { font: 13px system-ui, sans-serif; border: 0; border-radius: 10px; padding: 6px 12px; cursor: pointer; }
  #model-button { background: transparent; color: #5b5746; }
  button[aria-label="Send message"] { background: #c96442; color: #fff; }
  button[aria-label="Send message"][disabled] { background: #e6c3b5; }
  button[aria-label="Stop response"] { background: #29261b; color: #fff; }
  [role="menu"] { position: absolute; bottom: 48px; right: 80px; background: #fff; border: 1px solid #d9d5c7; border-radius: 12px; padding: 4px; font: 14px system-ui, sans-serif; z-index: 2; }
  [role="menuitemradio"] { padding: 6px 12px; border-radius: 8px; cursor: pointer; }
  [role="menuitemradio"][aria-checked="true"]::after { content: "  ✓"; color: #c96442; }
</style>
<script type="importmap">${JSON.stringify({ imports })}</script>
</head><body>
<nav><a href="/new" id="new-chat">+ New chat</a><a href="/project/${PROJECT}" id="project-link">Project: custody notes</a>
<small>claude.ai — local test double for sendledger's browser suite. Nothing here is a model.</small></nav>
<main><h1 id="heading"></h1><div id="thread"></div>
<fieldset>
  <div id="editor-mount"></div>
  <span class="spacer"></span>
  ${pickerButton(config)}
  <button type="button" aria-label="Send message" id="send" disabled>Send</button>
  <button type="button" aria-label="Stop response" id="stop" hidden>Stop</button>
</fieldset></main>
<script type="module" src="/__fake-claude/app.js"></script>
</body></html>`;
}
