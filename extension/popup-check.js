// The popup's "This page": Check this page (every probe of the page contract, run in the
// chat tab — chatgpt.com or claude.ai, each with its own contract — by report.js: nothing typed, nothing sent; the model picker opened and
// closed only when the box is ticked) and Save page report (the sanitized report as a JSON
// download; docs/extension.md, "The page report"). "This page" is the chat tab the person
// looks at: the active one, else the one used last.

(() => {
  const $ = (id) => document.getElementById(id);
  const WORDS = { holds: 'holds', fails: 'fails', unseen: 'not seen yet' };

  /** The person's chat tab (chatgpt.com or claude.ai), or null. */
  async function chatTab() {
    const tabs = await chrome.tabs.query({ url: ['https://chatgpt.com/*', 'https://claude.ai/*'] });
    return tabs.find((t) => t.active) || tabs.sort((x, y) => (y.lastAccessed || 0) - (x.lastAccessed || 0))[0] || null;
  }

  /** Asks the tab's content script (report.js); answers its value or throws a sentence. */
  async function askTab(type) {
    const tab = await chatTab();
    if (!tab) throw new Error('no chatgpt.com or claude.ai tab is open: open one and try again');
    let r;
    try {
      r = await chrome.tabs.sendMessage(tab.id, { type, openPicker: $('check-picker').checked });
    } catch {
      r = null;
    }
    if (!r || !r.ok) throw new Error(`the ${new URL(tab.url).host} tab did not answer: reload it (the extension loads with the page) and try again`);
    return r.value;
  }

  /** "12 facts hold, 1 fails: composer.present" (the window's tab line says the same). */
  function summary(check) {
    const by = (s) => check.results.filter((r) => r.state === s);
    const fails = by('fails');
    const parts = [`${by('holds').length} ${by('holds').length === 1 ? 'fact holds' : 'facts hold'}`];
    if (fails.length) parts.push(`${fails.length} ${fails.length === 1 ? 'fails' : 'fail'}: ${fails.map((r) => r.id).join(', ')}`);
    if (by('unseen').length) parts.push(`${by('unseen').length} not seen yet`);
    return `${parts.join(', ')} (${check.took_ms} ms)`;
  }

  function show(check) {
    $('check-summary').textContent = check.results.length ? summary(check) : 'This extension lists no page facts to check.';
    const list = $('check-results');
    list.textContent = '';
    for (const r of check.results) {
      const li = document.createElement('li');
      li.dataset.state = r.state;
      li.dataset.fact = r.id;
      li.textContent = `${r.id}: ${WORDS[r.state] || r.state} `;
      const shows = document.createElement('code');
      shows.textContent = JSON.stringify(r.shows || {});
      li.appendChild(shows);
      list.appendChild(li);
    }
  }

  async function run(button, work) {
    button.disabled = true;
    delete $('check-summary').dataset.ok;
    $('check-summary').textContent = 'Checking…';
    try {
      await work();
      $('check-summary').dataset.ok = 'true';
    } catch (e) {
      $('check-summary').dataset.ok = 'false';
      $('check-summary').textContent = e.message;
    } finally {
      button.disabled = false;
    }
  }

  $('check-page').addEventListener('click', () => run($('check-page'), async () => show(await askTab('checkPage'))));

  $('save-report').addEventListener('click', () =>
    run($('save-report'), async () => {
      const report = await askTab('pageReport');
      show(report.check);
      const blob = new Blob([JSON.stringify(report, null, 2)], { type: 'application/json' });
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = `sendledger-page-report-${new Date(report.made_at).toISOString().replace(/[:.]/g, '-')}.json`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
      $('check-summary').textContent += ` — report saved (${blob.size} bytes): send it with an issue at the project's tracker`;
    }),
  );
})();
