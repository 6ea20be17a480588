// The Connect panel: the OpenAI base URL of this app's bridge, named API keys (made with
// a scope, listed, revoked through the app's own commands), the two lines another machine
// needs (the ssh tunnel and its settings) and copyable snippets for python, node and MCP
// clients. A new key's secret is shown once: it lives in this page only until the
// panel closes, and is never stored (no localStorage, no sessionStorage).
"use strict";

const KEY_PLACEHOLDER = "sk-sl-…";
let connectInfo = null; // what the `connect` command answered
let newKey = null; // { name, secret } of the key just made, until the panel closes

function pythonSnippet(baseUrl, key) {
  const note = key === KEY_PLACEHOLDER ? "  # make a key above" : "";
  return [
    "from openai import OpenAI",
    "",
    `client = OpenAI(base_url="${baseUrl}", api_key="${key}")${note}`,
    "reply = client.chat.completions.create(",
    '    model="chatgpt-tab",',
    '    messages=[{"role": "user", "content": "Hello"}],',
    "    # the same body again within 5 min is the same send (a retry attaches);",
    "    # to send it again on purpose, give each one a new key:",
    '    # extra_headers={"Idempotency-Key": "hello-2"},',
    ")",
    "print(reply.choices[0].message.content)  # the page's final answer",
  ].join("\n");
}

function nodeSnippet(baseUrl, key) {
  const note = key === KEY_PLACEHOLDER ? " // make a key above" : "";
  return [
    "// save as hello.mjs, run with: node hello.mjs",
    'import OpenAI from "openai";',
    "",
    `const client = new OpenAI({ baseURL: "${baseUrl}", apiKey: "${key}" });${note}`,
    "const reply = await client.chat.completions.create({",
    '  model: "chatgpt-tab",',
    '  messages: [{ role: "user", content: "Hello" }],',
    "}); // the same body again within 5 min is the same send; a new Idempotency-Key header sends it again",
    "console.log(reply.choices[0].message.content);",
  ].join("\n");
}

/** The two things another machine needs (issue 38): the `ssh -L` line that brings this
 * app's port to its own loopback, and the client's settings naming the owner and key. */
function remoteLines(baseUrl, sshTarget, key) {
  const port = new URL(baseUrl).port || "80";
  const note = key === KEY_PLACEHOLDER ? "   # make a key above" : "";
  return {
    ssh: `ssh -N -L ${port}:127.0.0.1:${port} ${sshTarget}`,
    settings: [
      `SENDLEDGER_OWNER_URL=http://127.0.0.1:${port}`,
      `SENDLEDGER_API_KEY=${key}${note}`,
      `# OpenAI SDKs: base_url http://127.0.0.1:${port}/v1 with the same key`,
    ].join("\n"),
  };
}

function renderSnippets() {
  if (!connectInfo) return;
  const key = newKey ? newKey.secret : KEY_PLACEHOLDER;
  const remote = remoteLines(connectInfo.base_url, connectInfo.ssh_target, key);
  $("#ssh-line").textContent = remote.ssh;
  $("#remote-settings").textContent = remote.settings;
  $("#base-url").textContent = connectInfo.base_url;
  $("#snippet-python").textContent = pythonSnippet(connectInfo.base_url, key);
  $("#snippet-node").textContent = nodeSnippet(connectInfo.base_url, key);
  $("#snippet-mcp").textContent = connectInfo.mcp_config;
}

function keyRow(k) {
  const tr = document.createElement("tr");
  tr.dataset.key = k.name;
  if (k.revoked_at) tr.classList.add("revoked");
  const name = document.createElement("td");
  name.className = "key-name";
  name.textContent = k.name;
  const scope = document.createElement("td");
  scope.className = "key-scope";
  scope.textContent = k.scope;
  const made = document.createElement("td");
  made.textContent = `${when(k.created_at)} by ${k.created_by}`;
  const used = document.createElement("td");
  used.textContent = k.last_used_at ? when(k.last_used_at) : "never";
  const act = document.createElement("td");
  if (k.revoked_at) {
    act.className = "muted";
    act.textContent = `revoked ${when(k.revoked_at)}`;
  } else {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.revoke = k.name;
    b.textContent = "Revoke…";
    b.setAttribute("aria-label", `Revoke key ${k.name}`);
    b.addEventListener("click", () => askRevoke(k.name));
    act.append(b);
  }
  tr.append(name, scope, made, used, act);
  return tr;
}

function renderKeys() {
  const keys = connectInfo ? connectInfo.keys : [];
  $("#key-rows").replaceChildren(...keys.map(keyRow));
  $("#no-keys").hidden = keys.length > 0;
  $(".keys").hidden = keys.length === 0;
}

async function loadConnect() {
  const err = $("#key-error");
  try {
    connectInfo = await invoke("connect");
    err.hidden = true;
  } catch (e) {
    err.textContent = e.message || String(e);
    err.hidden = false;
  }
  renderSnippets();
  renderKeys();
}

function showNewKey() {
  const box = $("#new-key");
  box.hidden = !newKey;
  $("#new-key-name").textContent = newKey ? newKey.name : "";
  $("#new-secret").textContent = newKey ? newKey.secret : "";
  for (const s of document.querySelectorAll("#connect .copied")) s.textContent = "";
}

async function makeKey(e) {
  e.preventDefault();
  const form = $("#key-form");
  const err = $("#key-error");
  err.hidden = true;
  const name = form.elements.name.value.trim();
  const scope = form.elements.scope.value;
  try {
    const made = await invoke("create_key", { name, scope });
    newKey = { name: made.key.name, secret: made.secret };
    form.elements.name.value = "";
    showNewKey();
    await loadConnect();
    $('#new-key button[data-copy]').focus();
  } catch (ex) {
    err.textContent = ex.message || String(ex);
    err.hidden = false;
    form.elements.name.focus();
  }
}

function askRevoke(name) {
  const d = $("#revoke-dialog");
  const form = $("#revoke-form");
  form.dataset.name = name;
  $("#revoke-name").textContent = name;
  $("#revoke-by").textContent = who;
  clearError(form);
  d.showModal();
  $('button[value="cancel"]', form).focus();
}

async function submitRevoke(e) {
  e.preventDefault();
  const form = $("#revoke-form");
  const name = form.dataset.name;
  clearError(form);
  try {
    await invoke("revoke_key", { name });
    $("#revoke-dialog").close();
    if (newKey && newKey.name === name) {
      newKey = null;
      showNewKey();
    }
    await loadConnect();
    $("#key-name").focus();
  } catch (ex) {
    showError(form, ex);
  }
}

function openConnect() {
  document.body.classList.add("connect-open");
  $("#connect").hidden = false;
  $("#open-connect").setAttribute("aria-expanded", "true");
  loadConnect();
  $("#connect").focus();
  window.scrollTo(0, 0);
}

/** Back to the queue: the new key's secret is forgotten (it was shown once). */
function closeConnect() {
  newKey = null;
  showNewKey();
  renderSnippets();
  $("#connect").hidden = true;
  document.body.classList.remove("connect-open");
  $("#open-connect").setAttribute("aria-expanded", "false");
  $("#open-connect").focus();
}

$("#open-connect").addEventListener("click", () =>
  $("#connect").hidden ? openConnect() : closeConnect(),
);
$("#close-connect").addEventListener("click", closeConnect);
$("#key-form").addEventListener("submit", makeKey);
$("#revoke-form").addEventListener("submit", submitRevoke);
// A key used meanwhile (its last use) or made with the CLI shows when the person comes back
// to the window: read on focus, never polled.
window.addEventListener("focus", () => {
  if (!$("#connect").hidden) loadConnect();
});
$("#connect").addEventListener("keydown", (e) => {
  if (e.key === "Escape" && !document.querySelector("dialog[open]")) closeConnect();
});
for (const b of document.querySelectorAll("#connect button[data-copy]")) {
  b.addEventListener("click", () =>
    copyText($(`#${b.dataset.copy}`), $(".copied", b.closest(".copy-line"))),
  );
}
