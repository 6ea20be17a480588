// sendledger queue window. Everything comes from the app's own commands; changes are
// pushed over one channel as the ledger commits them (no polling). Message text is shown
// but never stored by the page (no localStorage, no sessionStorage).
"use strict";

const { invoke, Channel } = window.__TAURI__.core;

const SECTIONS = ["uncertain", "pending", "stopped", "history"];
// The sections read a page at a time, newest first (History, Stopped): how many rows the
// first page holds (the app's own, src/api/queue.rs) and the command for older ones.
const HISTORY_ROWS = 200;
const STOPPED_ROWS = 200;
const PAGED = {
  history: { rows: HISTORY_ROWS, command: "history_page" },
  stopped: { rows: STOPPED_ROWS, command: "stopped_page" },
};
// Per paged section: how many rows are shown (grows with each older page shown) and where
// the next older page starts (an operation id), if any.
const paging = {};
/** Where the paged sections start from a snapshot: a section whose older pages a person
 *  opened (Show older) keeps them and where its next page starts; the others hold the
 *  snapshot's first page. */
function resetPaging(update) {
  for (const [s, p] of Object.entries(PAGED)) {
    // In place: a Show older waiting for its page adds to the same section's paging.
    paging[s] = paging[s] || { limit: p.rows, next: null };
    if (paging[s].limit > p.rows) continue;
    paging[s].next = update[`${s}_next`] || null;
  }
}

/** Whether `row` is on an older page a person opened (a snapshot holds only first pages). */
function onAnOpenedPage(row) {
  const paged = PAGED[row.section];
  return Boolean(paged && paging[row.section].limit > paged.rows);
}
const rows = new Map(); // op_id -> row (as the app sent it)
const elements = new Map(); // op_id -> <article>, for the rows in view only (visible.js)
let who = "";
let status = null;

const $ = (sel, root = document) => root.querySelector(sel);

// ---- formatting -------------------------------------------------------------------

function age(ms) {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 10) return "just now";
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} days ago`;
}

function when(ms) {
  return new Date(ms).toLocaleString();
}

/**
 * The core's sentence for a window: the commands it names for a terminal (`sendledger …`
 * in backticks) are dropped, since the window has a button for each.
 */
function forWindow(sentence) {
  return sentence
    .replace(/\s*\([^()]*`[^()]*\)/g, "")
    .replace(/:?\s*`[^`]*`/g, "")
    .trim();
}

// The words for a row's state come from the core (api::queue::state_words): the window
// only renders them.
function stateWords(row) {
  return row.label;
}

// ---- rendering ----------------------------------------------------------------------

function renderStatus() {
  if (!status) return;
  const gate = $("#gate");
  gate.classList.toggle("closed", status.gate_closed);
  // Who stopped or resumed, and when (the ledger records both): said beside the gate.
  const by = status.gate_by && status.gate_at ? ` by ${status.gate_by}, ${when(status.gate_at)}` : "";
  gate.textContent = status.gate_closed
    ? `Sends are stopped${by}: nothing more is clicked until a person resumes.`
    : by
      ? `Sending allowed (resumed${by}).`
      : "Sending allowed.";
  // Why nothing goes out (a usage limit, no usable tab): said in the header, and on every
  // queued row, from the first second.
  // Why nothing goes out is said once, in the header, and not at all while stopped (the
  // gate line says it, with Resume beside it) or while the first-run guide says it.
  const waiting = $("#waiting");
  const guide = !status.leased && rows.size === 0;
  const said = status.waiting && !status.gate_closed && !guide ? forWindow(status.waiting) : "";
  waiting.hidden = !said;
  waiting.textContent = said && said[0].toUpperCase() + said.slice(1);
  for (const el of document.querySelectorAll('article.row[data-state="queued"] .waiting')) {
    const row = rows.get(el.closest("article").dataset.op);
    setRowWaiting(el, row);
  }
  renderGuide();
  if (window.renderPageLine) window.renderPageLine(); // page-check.js: the tab line
  $("#stop").hidden = status.gate_closed;
  // Resume also opens the page gate (the page changed: issue 35), so it is offered then too.
  $("#resume").hidden = !(status.gate_closed || status.waiting_words === "page changed");
  // Queue again admits a new send: not while the gate is closed.
  for (const b of document.querySelectorAll("button[data-requeue]")) offerRequeue(b);
}

/** Queue again while sends are stopped: the button off, and why in words beside it (a
 *  greyed button alone tells a person nothing). */
function offerRequeue(button) {
  const closed = Boolean(status && status.gate_closed);
  const words = "Resume first: nothing is queued while sends are stopped.";
  button.disabled = closed;
  button.title = closed ? words : "";
  const why = button.parentElement.querySelector(".why");
  if (why) {
    why.hidden = !closed;
    why.textContent = closed ? words : "";
  }
}

/** The first-run guide stands in for the empty queue while no chatgpt.com tab is leased. */
let guideCode = null;
/** A queued row says why it waits only when that differs from what the header says. */
function setRowWaiting(el, row) {
  const own = row && row.waiting && row.waiting !== (status && status.waiting) ? row.waiting : null;
  el.hidden = !own;
  el.textContent = own ? `Waiting: ${forWindow(own)}` : "";
}

function renderGuide() {
  const guide = $("#first-run");
  if (!guide || !status) return;
  const empty = rows.size === 0;
  guide.hidden = status.leased || !empty;
  document.body.classList.toggle("first-run", !guide.hidden);
  if (!guide.hidden && !guideCode) newGuideCode();
}

/** A pairing code shown inline in the guide (the same one-time code as "Pair extension…"). */
async function newGuideCode() {
  guideCode = "asked";
  try {
    const p = await invoke("pairing_code");
    guideCode = p.code;
    $("#guide-code").textContent = p.code;
    $("#guide-expiry").textContent = `(valid until ${new Date(p.expires_at).toLocaleTimeString()}, once)`;
  } catch (e) {
    $("#guide-code").textContent = "—";
    $("#guide-expiry").textContent = e.message || String(e);
  }
}

/**
 * Copies the text of `source` to the clipboard and says so in `said`; where the clipboard
 * is refused, selects the text instead so Ctrl+C copies it.
 */
async function copyText(source, said) {
  try {
    await navigator.clipboard.writeText(source.textContent);
    said.textContent = "copied";
  } catch {
    const range = document.createRange();
    range.selectNodeContents(source);
    window.getSelection().removeAllRanges();
    window.getSelection().addRange(range);
    said.textContent = "selected: press Ctrl+C";
  }
}

function renderCounts() {
  const counts = { uncertain: 0, pending: 0, stopped: 0, history: 0 };
  for (const r of rows.values()) counts[r.section]++;
  // Stopped says every send it holds, shown or still behind Show older (the app counts them).
  if (status && typeof status.stopped_total === "number") counts.stopped = status.stopped_total;
  for (const s of SECTIONS) {
    const el = $(`[data-count="${s}"]`);
    el.textContent = counts[s];
    el.classList.toggle("nonzero", counts[s] > 0);
  }
}

function fillTimeline(ol, row) {
  ol.replaceChildren();
  for (const step of row.timeline) {
    const li = document.createElement("li");
    const t = document.createElement("time");
    t.textContent = when(step.at);
    t.dateTime = new Date(step.at).toISOString();
    const what = document.createElement("span");
    what.textContent = step.transition
      ? ` ${step.from ? step.from + " → " : ""}${step.to} `
      : " note ";
    const by = document.createElement("span");
    by.className = "who";
    by.textContent = `by ${step.actor}`;
    li.append(t, what, by);
    if (step.evidence) {
      const ev = document.createElement("span");
      ev.className = "ev";
      ev.textContent = ` — ${step.evidence}`;
      li.append(ev);
    }
    ol.append(li);
  }
}

/** One queue row for `row`; `previous` keeps what a person typed or opened in its former copy. */
function build(row, previous) {
  const el = $("#row-template").content.firstElementChild.cloneNode(true);
  el.dataset.op = row.op_id;
  el.dataset.state = row.state;
  el.setAttribute("aria-label", `${stateWords(row)}: ${row.preview}`);
  $(".preview", el).textContent = row.preview;
  const badge = $(".badge", el);
  badge.textContent = stateWords(row);
  badge.classList.add(row.state);
  $(".conversation", el).textContent = row.destination
    ? `to ${row.destination}`
    : row.conversation
      ? `to conversation ${row.conversation}`
      : "whichever tab is leased";
  const t = $(".age", el);
  t.dataset.ms = row.created_at;
  t.dateTime = new Date(row.created_at).toISOString();
  t.title = `queued ${when(row.created_at)}`;
  t.textContent = `queued ${age(row.created_at)}`;
  $(".op", el).textContent = `id ${row.op_id}`;

  fillNotes(el, row);
  fillLinks(el, row);
  if (row.actions.includes("confirm")) fillDecision(el, row, previous);
  fillActions(el, row);
  const tl = $(".timeline", el);
  const n = row.timeline.length;
  $("summary", tl).textContent = `Details (timeline: ${n} ${n === 1 ? "step" : "steps"})`;
  fillTimeline($("ol", tl), row);
  if (previous && previous.timelineOpen) tl.open = true;
  return el;
}

/** The row's waiting reason, why it is uncertain, its answer, the page's words, a remote stop. */
function fillNotes(el, row) {
  setRowWaiting($(".waiting", el), row);
  if (row.mismatch) {
    // The page's own request (or its answer) went elsewhere: sent once, never resent.
    const m = $(".mismatch", el);
    m.hidden = false;
    m.textContent = `Not where it was meant to go: ${row.mismatch.replace(/^destination_mismatch: /, "")}`;
  }
  if (row.why) {
    const w = $(".why", el);
    w.hidden = false;
    w.textContent = `Why uncertain: ${row.why}`;
  }
  if (row.answer) {
    const a = $(".answer", el);
    a.hidden = false;
    const lines = row.answer.split("\n").filter((l) => l.trim());
    $("summary", a).textContent = `Answer: ${lines[0] || ""}`;
    $("p", a).textContent = row.answer;
  }
  if (row.state === "page_error") {
    const said = [...row.timeline].reverse().find((s) => s.transition && s.to === "page_error" && s.evidence);
    if (said) {
      const p = $(".page-said", el);
      p.hidden = false;
      p.textContent = said.evidence;
    }
  }

  if (row.remote_stop) {
    const p = $(".answer-stop", el);
    p.hidden = false;
    p.dataset.phase = row.remote_stop.phase;
    p.textContent = row.remote_stop.words;
  }
  fillFiles($(".files", el), row);
}

/** Thumbnails already read, by operation, number and content address (at most 40 kept). */
const previews = new Map();
const PREVIEWS_KEPT = 40;

function bytesWords(n) {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}

/** The answer's generated files: a thumbnail of each stored image and Save; what is
 *  still on its way; what could not be fetched, with the words of whoever said so. */
function fillFiles(box, row) {
  const files = row.artifacts || [];
  box.hidden = files.length === 0;
  box.replaceChildren();
  for (const a of files) box.append(fileItem(row.op_id, a));
}

function fileItem(opId, a) {
  const item = document.createElement("figure");
  item.className = "file";
  item.dataset.state = a.state;
  item.dataset.n = a.n;
  const caption = document.createElement("figcaption");
  if (a.state === "wanted") {
    caption.textContent = "A generated file is on its way: the tab fetches it while it shows the conversation.";
  } else if (a.state === "unavailable") {
    caption.textContent = `A generated file could not be fetched: ${a.words}`;
  } else if (a.bytes_deleted) {
    caption.textContent = `${a.name}: deleted 30 days after the send ended`;
  } else {
    if ((a.mime || "").startsWith("image/")) item.append(thumbnail(opId, a));
    caption.append(`${a.name} · ${bytesWords(a.size)} `, saveButton(opId, a));
  }
  item.append(caption);
  return item;
}

function thumbnail(opId, a) {
  const img = document.createElement("img");
  img.className = "thumb";
  // Decoded off the main thread, and only once near the viewport; a row out of view has
  // no element (visible.js), so its bitmap is let go with it.
  img.decoding = "async";
  img.loading = "lazy";
  img.alt = `${a.name}, generated by the answer`;
  const key = `${opId}:${a.n}:${a.sha256}`;
  if (previews.has(key)) {
    img.src = previews.get(key);
    return img;
  }
  invoke("artifact_preview", { op_id: opId, n: a.n })
    .then((p) => {
      if (previews.size >= PREVIEWS_KEPT) previews.delete(previews.keys().next().value);
      previews.set(key, p.data_url);
      img.src = p.data_url;
    })
    .catch((e) => {
      img.replaceWith(Object.assign(document.createElement("span"), {
        className: "muted", textContent: `No preview: ${e.message || e}`,
      }));
    });
  return img;
}

function saveButton(opId, a) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "save";
  b.textContent = "Save";
  b.title = "Save it in your Downloads folder (never over another file)";
  b.addEventListener("click", async () => {
    const said = b.parentElement.querySelector(".saved") || Object.assign(document.createElement("span"), { className: "saved" });
    b.after(said);
    b.disabled = true;
    try {
      const s = await invoke("save_artifact", { op_id: opId, n: a.n });
      said.classList.remove("error");
      said.textContent = ` Saved to ${s.path}`;
    } catch (e) {
      said.classList.add("error");
      said.textContent = ` Not saved: ${e.message || e}`;
    } finally {
      b.disabled = false;
    }
  });
  return b;
}

/** Links between a send and its copy in words; their ids (internals) only on hover. */
function fillLinks(el, row) {
  const links = [];
  const ids = [];
  if (row.resend_of) {
    links.push("a copy of an earlier send, queued again");
    ids.push(`copy of ${row.resend_of}`);
  }
  if (row.queued_again_as) {
    links.push("queued again as a new send");
    ids.push(`copied as ${row.queued_again_as}`);
  }
  if (row.notified_at) links.push(`you were notified ${when(row.notified_at)}`);
  if (links.length) {
    $(".link", el).hidden = false;
    $(".link", el).textContent = links.join(" · ");
    $(".link", el).title = ids.join(" · ");
  }

}

/** The decision controls of an uncertain send: safe against double-clicks, moved rows and Enter. */
function fillDecision(el, row, previous) {
  const decide = $(".decide", el);
  decide.hidden = false;
  const byInput = $('input[name="by"]', decide);
  const evInput = $('input[name="evidence"]', decide);
  const id = `d-${row.op_id}`;
  byInput.id = `${id}-by`;
  evInput.id = `${id}-ev`;
  byInput.value = who;
  if (row.observed) {
    const obs = $(".observed", decide);
    obs.hidden = false;
    obs.textContent = `Observed: ${row.observed}`;
    evInput.value = row.observed;
  }
  if (previous) {
    byInput.value = previous.by;
    evInput.value = previous.evidence;
  }
  for (const b of decide.querySelectorAll("button[data-decision]")) {
    b.addEventListener("click", (e) => {
      // The second click of a double-click, or a click on a row that moved under a
      // pointer that stayed still, decides nothing: it was meant for another row.
      if (e.detail > 1 || movedUnderPointer(row.op_id, e)) return;
      holdDecision(row.op_id, b.dataset.decision, el);
    });
  }
  // Enter in a field never picks a decision: a person presses the button they mean.
  for (const input of decide.querySelectorAll("input")) {
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") e.preventDefault();
    });
  }
  $("button[data-undo]", decide).addEventListener("click", (e) => {
    if (e.detail > 1) return; // the second click that pressed the decision
    undoDecision(row.op_id);
  });
  if (held.has(row.op_id)) showHeld(el, held.get(row.op_id));
}

/** Queue again and Withdraw, where the row offers them. */
function fillActions(el, row) {
  if (row.actions.includes("queue_again")) {
    const again = $(".again", el);
    again.hidden = false;
    // As renderStatus says for the rows already shown: nothing is queued while stopped.
    offerRequeue($("button", again));
    $("button", again).addEventListener("click", () => requeueRow(row.op_id, el));
  }
  if (row.actions.includes("withdraw")) {
    const back = $(".withdraw", el);
    back.hidden = false;
    $("button", back).addEventListener("click", (e) => {
      // The rows move up once one is withdrawn: the second click of a double-click lands
      // on the next row's Withdraw, which nobody meant to press.
      if (e.detail > 1) return;
      withdrawRow(row.op_id, el);
    });
  }
}

function order(section) {
  const list = [...rows.values()].filter((r) => r.section === section);
  // Pending and uncertain: oldest first (the order they go out / have waited).
  // Stopped and history: newest first.
  const oldestFirst = section === "pending" || section === "uncertain";
  list.sort((a, b) => (oldestFirst ? a.created_at - b.created_at : b.created_at - a.created_at));
  return list;
}

function place(section) {
  const box = $(`.rows[data-section="${section}"]`);
  let list = order(section);
  const paged = paging[section];
  if (paged && list.length > paged.limit) {
    for (const r of list.slice(paged.limit)) rows.delete(r.op_id);
    list = list.slice(0, paged.limit);
    paged.next = list[list.length - 1].op_id;
  }
  if (paged) $(`button[data-older="${section}"]`).hidden = !paged.next;
  const now = performance.now();
  list.forEach((r, i) => {
    const at = `${section}:${i}`;
    const before = placedAt.get(r.op_id);
    if (before !== undefined && before !== at) movedAt.set(r.op_id, now);
    placedAt.set(r.op_id, at);
  });
  return showRows(box, list);
}

/** Every section placed, then the elements of rows out of view let go (visible.js); laid
 *  out once more in the next frame while rows newly shown change the measured heights. */
function placeAll() {
  let changed = false;
  for (const s of SECTIONS) changed = place(s) || changed;
  dropHidden();
  if (changed) placeSoon();
}

let placing = false;
/** placeAll in the next frame, once however often it is asked (a scroll, a resize). */
function placeSoon() {
  if (placing) return;
  placing = true;
  requestAnimationFrame(() => {
    placing = false;
    placeAll();
  });
}

/** Takes `row` in; a row in view is built again in place (a row out of view is built when
 *  it comes into view: its draft keeps what was typed). Returns the field that had the focus. */
function upsert(row) {
  const old = elements.get(row.op_id);
  const before = rows.get(row.op_id);
  const previous = old ? typedIn(old) : drafts.get(row.op_id) || null;
  let focused = null;
  // Keep what the person typed only while the row still asks the same question.
  if (previous && (!before || before.state !== row.state)) {
    previous.by = who;
    previous.evidence = row.observed || "";
  }
  if (old && old.contains(document.activeElement)) {
    focused = document.activeElement.name || document.activeElement.dataset.decision || null;
  }
  rows.set(row.op_id, row);
  dropHeld(row);
  if (!old) {
    if (previous) drafts.set(row.op_id, previous);
    return { focused };
  }
  const el = build(row, previous);
  elements.set(row.op_id, el);
  old.replaceWith(el);
  return { focused };
}

function refocus(el, focused) {
  if (!focused || !el) return;
  const target =
    el.querySelector(`[name="${focused}"]`) || el.querySelector(`[data-decision="${focused}"]`);
  if (target && !target.closest("[hidden]")) target.focus();
}

function apply(update) {
  if (update.kind === "snapshot") {
    who = update.who;
    if (update.extension_dir) $("#extension-dir").textContent = update.extension_dir;
    showDefaultDestination(update.default_destination);
    status = update.status;
    // A snapshot may come to a window that already shows the queue (its feed opened late
    // or again, a tray started again): every row it holds is taken as a change is, so
    // what a person typed in a row asking the same question stays; a row it no longer
    // holds goes, unless it is on an older page a person opened.
    resetPaging(update);
    const held = new Set(SECTIONS.flatMap((s) => update[s].map((row) => row.op_id)));
    for (const [opId, row] of rows) {
      if (!held.has(opId) && !onAnOpenedPage(row)) rows.delete(opId);
    }
    for (const s of SECTIONS) {
      for (const row of update[s]) {
        // A row as it is shown already stays as it is (its element, the pointer on it).
        const before = rows.get(row.op_id);
        if (!before || JSON.stringify(before) !== JSON.stringify(row)) upsert(row);
      }
    }
    placeAll();
    renderStatus();
    renderCounts();
    // A queue that could not be read before is read now: its error no longer applies.
    $("#load-error").hidden = true;
    // A snapshot comes from a running tray: one that had ended is back.
    showTrayGone(false);
    document.body.dataset.ready = "true";
  } else if (update.kind === "changed") {
    status = update.status;
    const moved = [];
    for (const row of update.rows) {
      const before = rows.get(row.op_id);
      // A row's timeline only grows: an update older than what is shown is dropped.
      if (before && before.timeline.length > row.timeline.length) continue;
      const { focused } = upsert(row);
      moved.push([row.op_id, focused]);
      if (before && before.section !== row.section) announce(row);
    }
    placeAll();
    for (const [opId, focused] of moved) refocus(elements.get(opId), focused);
    renderStatus();
    renderCounts();
  } else if (update.kind === "tray_gone") {
    showTrayGone(true);
  } else if (update.kind === "intent") {
    if (update.intent === "resume") openResume();
    if (update.intent === "pair") showPairing(update);
  }
}

function announce(row) {
  $("#announce").textContent = `${row.op_id} is now ${stateWords(row)}.`;
}

// ---- actions ----------------------------------------------------------------------

function showError(box, e) {
  const p = $(".error", box);
  p.textContent = e && e.message ? e.message : String(e);
  p.hidden = false;
}

function clearError(box) {
  const p = $(".error", box);
  p.hidden = true;
  p.textContent = "";
}

// ---- the tray ended without quitting: said, with a way to start it again -----------

function showTrayGone(gone) {
  const box = $("#tray-gone");
  box.hidden = !gone;
  document.body.classList.toggle("tray-gone", gone);
  // Nothing below can be done without the tray (Stop sends still can: it reaches the
  // ledger itself); the header's lines would say what the tray last said.
  $("main").inert = gone;
  for (const id of ["#pair", "#open-connect", "#resume"]) $(id).disabled = gone;
  if (gone) {
    $("#gate").textContent = "Not running: nothing is sent.";
    $("#gate").classList.add("closed");
    $("#waiting").hidden = true;
  }
  if (!gone) {
    clearError(box);
    $("#start-tray").disabled = false;
    $("#start-tray").textContent = "Start sendledger again";
  }
}

async function startTray() {
  const box = $("#tray-gone");
  const button = $("#start-tray");
  clearError(box);
  button.disabled = true;
  button.textContent = "Starting…";
  try {
    // Answers once the tray is ready; the queue comes back with the tray's next snapshot.
    await invoke("start_tray", {});
    button.textContent = "Started: reconnecting…";
  } catch (e) {
    showError(box, e);
    button.disabled = false;
    button.textContent = "Start sendledger again";
  }
}

// ---- decisions: held for a grace, then recorded ------------------------------------
// A decision is recorded GRACE_S seconds after its button is pressed; until then the row
// says what will be recorded and offers Undo, and nothing has happened because of it (no
// state changed, nothing queued for Resend as new). Closing the window in that time
// records nothing: the send stays uncertain. docs/app.md says the same.
const GRACE_S = 5;
const held = new Map(); // op_id -> {decision, by, evidence, left, timer}
const HELD_WORDS = {
  confirmed: "Recording as sent",
  abandoned: "Abandoning",
  resend: "Abandoning and queuing its text again",
};

// Where each row was last placed, when it last moved, and when the pointer last moved:
// a click on a row that moved after the pointer last did was aimed at another row.
const placedAt = new Map(); // op_id -> "section:index"
const movedAt = new Map(); // op_id -> performance.now() of its last move
let pointerMovedAt = -Infinity;
document.addEventListener("pointermove", () => { pointerMovedAt = performance.now(); }, true);
document.addEventListener("mousemove", () => { pointerMovedAt = performance.now(); }, true);

function movedUnderPointer(opId, e) {
  if (e.detail === 0) return false; // the keyboard: the focus did not move with the row
  const moved = movedAt.get(opId);
  if (moved === undefined || moved < pointerMovedAt) return false;
  const el = elements.get(opId);
  if (el) {
    showError($(".decide", el), {
      message: "This row had just moved under the pointer, so that click did nothing. Point at the button again.",
    });
  }
  return true;
}

function holdDecision(opId, decision, el) {
  const decide = $(".decide", el);
  clearError(decide);
  const by = $('input[name="by"]', decide).value.trim();
  const evidence = $('input[name="evidence"]', decide).value.trim();
  if (!evidence) {
    showError(decide, {
      message: "Write what you saw in the chat (a short note): the decision is recorded with it.",
    });
    $('input[name="evidence"]', decide).focus();
    return;
  }
  const h = { decision, by, evidence, left: GRACE_S, timer: null };
  h.timer = setInterval(() => tickHeld(opId), 1000);
  held.set(opId, h);
  showHeld(el, h);
  $("button[data-undo]", decide).focus();
}

function showHeld(el, h) {
  const decide = $(".decide", el);
  $(".fields", decide).hidden = true;
  $(".buttons", decide).hidden = true;
  const box = $(".held", decide);
  box.hidden = false;
  $(".held-words", box).textContent = `${HELD_WORDS[h.decision]} in ${h.left} s…`;
}

function tickHeld(opId) {
  const h = held.get(opId);
  if (!h) return;
  h.left -= 1;
  const el = elements.get(opId);
  if (h.left > 0) {
    if (el) showHeld(el, h);
    return;
  }
  clearInterval(h.timer);
  held.delete(opId);
  commitDecision(opId, h);
}

function undoDecision(opId) {
  const h = held.get(opId);
  if (!h) return;
  clearInterval(h.timer);
  held.delete(opId);
  const el = elements.get(opId);
  if (!el) {
    drafts.set(opId, { by: h.by, evidence: h.evidence, timelineOpen: false }); // out of view
    return;
  }
  const decide = unhold(el);
  $('input[name="by"]', decide).value = h.by;
  $('input[name="evidence"]', decide).value = h.evidence;
  $(`button[data-decision="${h.decision}"]`, decide).focus();
  $("#announce").textContent = "Undone: nothing was recorded.";
}

/** Puts the decision controls of row `el` back in place of the held decision. */
function unhold(el) {
  const decide = $(".decide", el);
  $(".held", decide).hidden = true;
  $(".fields", decide).hidden = false;
  $(".buttons", decide).hidden = false;
  for (const b of decide.querySelectorAll("button")) b.disabled = false;
  return decide;
}

/** A decision whose row stopped asking for one (decided elsewhere, or its receipt seen). */
function dropHeld(row) {
  const h = held.get(row.op_id);
  if (!h || row.actions.includes("confirm")) return;
  clearInterval(h.timer);
  held.delete(row.op_id);
  $("#announce").textContent = `${row.preview}: it is now ${stateWords(row)}; your decision was not recorded.`;
}

async function commitDecision(opId, h) {
  const el = elements.get(opId);
  const decide = el && $(".decide", el);
  if (decide) for (const b of decide.querySelectorAll("button")) b.disabled = true;
  try {
    const changed = await invoke("resolve", {
      op_id: opId,
      decision: h.decision,
      by: h.by,
      evidence: h.evidence,
    });
    apply({ kind: "changed", status, rows: changed });
  } catch (e) {
    const now = elements.get(opId);
    if (now) showError(unhold(now), e);
  }
}

async function requeueRow(opId, el) {
  const again = $(".again", el);
  clearError(again);
  try {
    const changed = await invoke("requeue", { op_id: opId, by: who });
    apply({ kind: "changed", status, rows: changed });
  } catch (e) {
    showError(again, e);
  }
}

async function withdrawRow(opId, el) {
  const back = $(".withdraw", el);
  clearError(back);
  $("button", back).disabled = true;
  try {
    const changed = await invoke("withdraw", { op_id: opId, by: who });
    apply({ kind: "changed", status, rows: changed });
  } catch (e) {
    $("button", back).disabled = false;
    showError(back, e);
  }
}

/** The next page of a paged section (History, Stopped): older sends, below what is shown. */
async function showOlder(section) {
  const button = $(`button[data-older="${section}"]`);
  const paged = paging[section];
  if (!paged || !paged.next) return;
  button.disabled = true;
  try {
    const page = await invoke(PAGED[section].command, { before: paged.next });
    for (const row of page.rows) if (!rows.has(row.op_id)) upsert(row);
    paged.limit += page.rows.length;
    paged.next = page.next || null;
    placeAll();
    renderCounts();
  } catch (e) {
    const err = $("#load-error");
    err.textContent = `Older sends could not be read: ${e.message || e}`;
    err.hidden = false;
  } finally {
    button.disabled = false;
  }
}

async function stopNow() {
  // The emergency brake: no dialog.
  const err = $("#load-error");
  try {
    status = await invoke("stop", {});
    renderStatus();
    $("#resume").focus();
  } catch (e) {
    err.textContent = e.message || String(e);
    err.hidden = false;
  }
}

function openResume() {
  const d = $("#resume-dialog");
  const form = $("#resume-form");
  form.elements.by.value = who;
  clearError(form);
  if (!d.open) d.showModal();
  form.elements.by.focus();
}

async function submitResume(e) {
  e.preventDefault();
  const form = $("#resume-form");
  clearError(form);
  try {
    status = await invoke("resume", { by: form.elements.by.value.trim() });
    renderStatus();
    $("#resume-dialog").close();
    $("#stop").focus();
  } catch (err) {
    showError(form, err);
  }
}

function showPairing(p) {
  const d = $("#pair-dialog");
  $("#pair-code").textContent = p.code;
  $("#pair-expiry").textContent = `Valid until ${new Date(p.expires_at).toLocaleTimeString()} (5 minutes, once).`;
  clearError($("form", d));
  if (!d.open) d.showModal();
}

async function pairNow() {
  try {
    showPairing(await invoke("pairing_code"));
  } catch (e) {
    const d = $("#pair-dialog");
    $("#pair-code").textContent = "—";
    showError($("form", d), e);
    if (!d.open) d.showModal();
  }
}

/** The header line naming where a send that names no place goes (words from the core). */
function showDefaultDestination(words) {
  const el = $("#default-destination");
  el.hidden = !words;
  el.textContent = words ? `New sends without a place go to ${words === "a new chat" ? "a new chat each time" : words}.` : "";
}

/** The place input matters for a conversation or a Project only. */
function syncPlaceId(form) {
  const id = form.elements.place_id;
  id.disabled = form.elements.place.value === "new_chat";
  id.required = !id.disabled;
}

async function openSettings() {
  const form = $("#settings-form");
  clearError(form);
  try {
    const s = await invoke("settings");
    form.elements.stale_minutes.value = +(s.stale_uncertain_ms / 60000).toFixed(2);
    form.elements.autostart.checked = s.autostart;
    form.elements.max_in_flight.value = s.max_in_flight;
    form.elements.place.value = s.default_destination.place;
    form.elements.place_id.value = s.default_destination.id || "";
    syncPlaceId(form);
  } catch (e) {
    showError(form, e);
  }
  $("#settings-dialog").showModal();
}

async function saveSettings(e) {
  e.preventDefault();
  const form = $("#settings-form");
  clearError(form);
  const minutes = Number(form.elements.stale_minutes.value);
  try {
    const place = form.elements.place.value;
    const saved = await invoke("save_settings", {
      settings: {
        stale_uncertain_ms: Math.round(minutes * 60000),
        autostart: form.elements.autostart.checked,
        max_in_flight: Number(form.elements.max_in_flight.value),
        default_destination: {
          place,
          id: place === "new_chat" ? null : form.elements.place_id.value.trim(),
        },
      },
    });
    showDefaultDestination(saved.default_destination.words);
    $("#settings-dialog").close();
  } catch (err) {
    showError(form, err);
  }
}

// ---- start ------------------------------------------------------------------------

$("#stop").addEventListener("click", stopNow);
for (const b of document.querySelectorAll("button[data-older]")) {
  b.addEventListener("click", () => showOlder(b.dataset.older));
}
$("#copy-dir").addEventListener("click", () => copyText($("#extension-dir"), $("#copied")));
$("#guide-new-code").addEventListener("click", newGuideCode);
$("#start-tray").addEventListener("click", startTray);
$("#resume").addEventListener("click", openResume);
$("#resume-form").addEventListener("submit", submitResume);
$("#pair").addEventListener("click", pairNow);
$("#open-settings").addEventListener("click", openSettings);
$("#settings-form").addEventListener("submit", saveSettings);
$("#settings-form").addEventListener("change", (e) => {
  if (e.target.name === "place") syncPlaceId(e.currentTarget);
});
// A refusal is about what was asked: editing the form again takes it away.
$("#settings-form").addEventListener("input", (e) => clearError(e.currentTarget));
for (const b of document.querySelectorAll("dialog [data-close]")) {
  b.addEventListener("click", () => b.closest("dialog").close());
}

// The header stays on top (Stop is always in reach): whatever the focus or a scroll brings
// into view lands below it, however many rows it wraps to.
new ResizeObserver(() => {
  document.documentElement.style.scrollPaddingTop = `${$(".top").offsetHeight + 8}px`;
}).observe($(".top"));

// Which rows are in the page follows the scroll and the window's size (visible.js).
window.addEventListener("scroll", placeSoon, { passive: true });
window.addEventListener("resize", placeSoon);

// Ages are re-formatted every 10 s from what is already on the page; nothing is asked of
// the app (changes arrive over the channel).
setInterval(() => {
  for (const t of document.querySelectorAll("time.age")) {
    t.textContent = `queued ${age(Number(t.dataset.ms))}`;
  }
}, 10000);

const channel = new Channel();
channel.onmessage = apply;
invoke("subscribe", { channel }).catch((e) => {
  // Nothing is shown as empty that was not read: the sections stay blank (style.css)
  // until the owner's feed brings the queue, which also hides this message.
  const err = $("#load-error");
  err.textContent = `The queue could not be read: ${e.message || e}. It shows here as soon as sendledger answers; Stop sends still works.`;
  err.hidden = false;
});
