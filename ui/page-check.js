// The window's tab line (issue 35, Check this page): the newest check of a leased tab's page
// in words ("page: 12 facts hold, 1 fails: composer.present") with every fact under "All
// facts", a Check this page button (the owner asks the tab leased last: nothing is typed or
// sent) and Save page report (the sanitized report, saved in Downloads). The line follows
// the queue's status (app.js keeps `status`; renderPageLine is called with every snapshot).
"use strict";

const PAGE_STATES = { holds: "holds", fails: "fails", unseen: "not seen yet" };

/** Draws the line from `status.page_check` / `status.page_words` (app.js's status). */
function renderPageLine() {
  const line = document.getElementById("page-line");
  if (!line || !status) return;
  line.hidden = !status.leased && !status.page_check;
  const words = document.getElementById("page-words");
  words.textContent = status.page_words || "page: not checked yet";
  words.dataset.fails = String(!!(status.page_check && status.page_check.fails));
  const list = document.querySelector("#page-facts ul");
  list.textContent = "";
  const results = (status.page_check && Array.isArray(status.page_check.results) && status.page_check.results) || [];
  for (const r of results) {
    const li = document.createElement("li");
    li.dataset.state = r.state;
    li.textContent = `${r.id}: ${PAGE_STATES[r.state] || r.state} ${JSON.stringify(r.shows || {})}`;
    list.appendChild(li);
  }
  document.getElementById("page-facts").hidden = results.length === 0;
}

/** Asks the owner for a check (and the report when `report`), saying the outcome beside the buttons. */
async function checkPage(report) {
  const said = document.getElementById("page-said");
  const buttons = [document.getElementById("check-page"), document.getElementById("save-page-report")];
  buttons.forEach((b) => (b.disabled = true));
  said.classList.remove("error");
  said.textContent = " Checking…";
  try {
    const a = await invoke("page_check", { report });
    said.textContent = a.saved ? ` Report saved to ${a.saved}: attach it to an issue at the project's tracker.` : ` Checked tab ${a.tab_id}.`;
  } catch (e) {
    said.classList.add("error");
    said.textContent = ` ${forWindow(e.message || String(e))}`;
  } finally {
    buttons.forEach((b) => (b.disabled = false));
  }
}

document.getElementById("check-page").addEventListener("click", () => checkPage(false));
document.getElementById("save-page-report").addEventListener("click", () => checkPage(true));
window.renderPageLine = renderPageLine;
