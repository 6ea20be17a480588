// sendledger queue window: only the rows near the viewport are in the page (issue 39).
// Every row's data stays in `rows` (app.js); a section's box holds an element for the rows
// within MARGIN_PX of the viewport only, and stands in for the others with padding of
// their height (measured once shown, else the mean of its section's rows measured). A heavy user's
// 300 pending sends and 1,000 of history then cost the page a few dozen elements, not
// thousands: what a row costs is its data. A row taken out keeps what a person typed or
// opened in it (`drafts`), and the row holding the focus is never taken out.
"use strict";
/* exported showRows, dropHidden, typedIn, drafts, MAX_ROWS_SHOWN */

/** How far beyond the viewport rows are kept in the page, above and below (px). */
const MARGIN_PX = 800;
/** .row's margin-bottom in style.css: part of each row's height here. */
const ROW_GAP_PX = 8;
/** A row's height before any row was measured (px). */
const FIRST_GUESS_PX = 100;
/** The bound the app suite holds the page to with 300 pending rows (docs/app.md). */
const MAX_ROWS_SHOWN = 60;
const heights = new Map(); // op_id -> measured px, gap included
const drafts = new Map(); // op_id -> {by, evidence, timelineOpen} of a row taken out
let measuredSum = 0;

/** A row's height: measured, else the mean of its section's measured rows (rows of one
 *  section look alike), else of all measured rows, else FIRST_GUESS_PX. */
function rowPx(opId, guess) {
  if (heights.has(opId)) return heights.get(opId);
  if (guess) return guess;
  return heights.size ? measuredSum / heights.size : FIRST_GUESS_PX;
}

/** The mean measured height of the rows of `list`, or 0 when none was measured. */
function sectionGuess(list) {
  let sum = 0;
  let n = 0;
  for (const r of list) {
    const h = heights.get(r.op_id);
    if (h) {
      sum += h;
      n += 1;
    }
  }
  return n ? sum / n : 0;
}

/** What a person typed or opened in a row's element (kept when it is built again). */
function typedIn(el) {
  const by = el.querySelector('input[name="by"]');
  const ev = el.querySelector('input[name="evidence"]');
  return {
    by: by ? by.value : who,
    evidence: ev ? ev.value : "",
    timelineOpen: el.querySelector(".timeline").open,
  };
}

/** The index in `list` of the row holding the focus, or -1. */
function focusedIndex(list) {
  const at = document.activeElement && document.activeElement.closest("article.row");
  return at ? list.findIndex((r) => r.op_id === at.dataset.op) : -1;
}

/** [first, end) of `list`: the rows of `box` within MARGIN_PX of the viewport. */
function inView(box, list, guess) {
  const top = box.getBoundingClientRect().top; // the padding's top: where row 0 would be
  const from = -MARGIN_PX - top;
  const to = window.innerHeight + MARGIN_PX - top;
  let y = 0;
  let first = -1;
  let end = list.length;
  for (let i = 0; i < list.length; i++) {
    if (y >= to) {
      end = i;
      break;
    }
    const h = rowPx(list[i].op_id, guess);
    if (first < 0 && y + h > from) first = i;
    y += h;
  }
  if (first < 0) first = end;
  const focused = focusedIndex(list);
  if (focused >= 0) return [Math.min(first, focused), Math.max(end, focused + 1)];
  return [first, end];
}

/** The element of `row`, built (with its draft) when it has none. */
function rowElement(row, i, n) {
  let el = elements.get(row.op_id);
  if (!el) {
    el = build(row, drafts.get(row.op_id) || null);
    drafts.delete(row.op_id);
    elements.set(row.op_id, el);
  }
  el.setAttribute("aria-posinset", String(i + 1));
  el.setAttribute("aria-setsize", String(n));
  return el;
}

/** Records a shown row's height; whether it changed. */
function measure(el) {
  const h = el.offsetHeight;
  if (!h) return false; // not laid out (a hidden window): the guess stands
  const px = h + ROW_GAP_PX;
  const before = heights.get(el.dataset.op);
  if (before === px) return false;
  measuredSum += px - (before || 0);
  heights.set(el.dataset.op, px);
  return true;
}

/** Puts the rows of `list` (a section, in order) that are in view into `box`; true when
 *  a height was measured anew (the caller lays out again: what is in view may differ). */
function showRows(box, list) {
  const [first, end] = inView(box, list, sectionGuess(list));
  const wanted = [];
  for (let i = first; i < end; i++) wanted.push(rowElement(list[i], i, list.length));
  const current = [...box.children];
  const same = wanted.length === current.length && wanted.every((el, i) => el === current[i]);
  if (!same) box.replaceChildren(...wanted);
  let changed = false;
  for (const el of wanted) changed = measure(el) || changed;
  const guess = sectionGuess(list); // again: the rows just shown were measured
  let above = 0;
  for (let i = 0; i < first; i++) above += rowPx(list[i].op_id, guess);
  let below = 0;
  for (let i = end; i < list.length; i++) below += rowPx(list[i].op_id, guess);
  box.style.paddingTop = above ? `${above}px` : "";
  box.style.paddingBottom = below ? `${below}px` : "";
  box.classList.toggle("filled", list.length > 0); // "Nothing is waiting" stays hidden
  return changed;
}

/** Rows whose element left the page: their element goes, what was typed in it stays. */
function dropHidden() {
  for (const [opId, el] of elements) {
    if (el.isConnected) continue;
    if (rows.has(opId)) drafts.set(opId, typedIn(el));
    elements.delete(opId);
  }
  for (const opId of heights.keys()) {
    if (rows.has(opId)) continue;
    measuredSum -= heights.get(opId);
    heights.delete(opId);
  }
  for (const opId of drafts.keys()) if (!rows.has(opId)) drafts.delete(opId);
}
