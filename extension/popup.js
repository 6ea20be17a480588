// The popup: pairing, connection state, leased tabs with their epochs, the last error, and
// the layout snapshot kept when a selector failed. It asks the service worker for all of
// it and never sees a token.

const $ = (id) => document.getElementById(id);
const short = (s, n = 12) => (s && s.length > n ? `${s.slice(0, n)}…` : s || '—');
let addressShown = false; // the stored address is put in the field once, never over typing
let pairFailure = null; // the refusal the pairing form shows: not said a second time below
const when = (ms) => (ms ? new Date(ms).toLocaleTimeString() : '');

async function refresh() {
  const s = await chrome.runtime.sendMessage({ type: 'status' });
  if (!s || !s.ok) return;
  const state = s.paired ? s.connection.state : 'unpaired';
  $('state').dataset.state = state;
  $('state').textContent = {
    connected: 'connected',
    unreachable: 'app not reachable',
    unpaired: 'not paired',
    unknown: 'paired (not contacted yet)',
  }[state] || state;
  if (s.connection.detail && state !== 'connected') $('state').title = s.connection.detail;
  $('bridge').textContent = s.bridge;
  $('extension-id').textContent = s.extension_id;
  if (!addressShown) {
    addressShown = true;
    if (!$('bridge-input').value) $('bridge-input').value = s.bridge;
    // Paired: the form folds away (open it to pair again); not paired: it is in front.
    $('pair-box').open = !s.paired;
  }
  $('pair-summary').textContent = s.paired ? 'Pair again…' : 'Pair with the app';

  /** A lease's site in a word, and its host on hover (a lease from before sites: chatgpt). */
  const SITES = { chatgpt: ['ChatGPT', 'chatgpt.com'], claude: ['Claude', 'claude.ai'] };
  const body = $('leases').querySelector('tbody');
  body.textContent = '';
  const leases = Object.entries(s.leases);
  for (const [tab, lease] of leases) {
    const tr = document.createElement('tr');
    tr.dataset.lease = lease.lease_id;
    const inProject = (lease.project_id || '').startsWith('g-p-') || (lease.site === 'claude' && !!lease.project_id);
    const newChat = inProject ? `a new chat in Project ${short(lease.project_id, 10)}` : 'a new chat';
    const conversation = lease.conversation_id ? short(lease.conversation_id, 13) : newChat;
    const words = `leased: sends go out here (lease ${short(lease.lease_id, 8)}, epoch ${short(lease.epoch)})`;
    const site = SITES[lease.site || 'chatgpt'] || [lease.site, lease.site];
    for (const [text, title] of [[tab], [conversation, lease.conversation_id || lease.project_id], ['leased', words], site]) {
      const td = document.createElement('td');
      const code = document.createElement('code');
      code.textContent = text;
      if (title) code.title = title;
      td.appendChild(code);
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  $('leases').hidden = leases.length === 0;
  $('no-leases').hidden = leases.length > 0;

  // One place for each error: a pairing refusal is said by the form, anything else here
  // (the service worker notes the refusal too, after the route it came from: `/v1/pair: …`).
  const saidByTheForm = (m) => pairFailure && (m === pairFailure || m.endsWith(`: ${pairFailure}`));
  const err = s.last_error && !saidByTheForm(s.last_error.message) ? s.last_error : null;
  $('problem').hidden = !err;
  $('last-error').textContent = err ? `${when(err.at)} ${err.message}` : '';

  const snap = s.snapshot;
  $('snapshot-details').hidden = !snap;
  if (snap) {
    const f = snap.found;
    $('snapshot-summary').textContent = `${when(snap.at)} ${snap.reason} — composer ${f.composer ? 'found' : 'missing'}, send button ${f.sendButton ? 'found' : 'missing'}, stop button ${f.stopButton ? 'found' : 'missing'}, ${f.turns} turns, ${snap.nodes.length} nodes on ${snap.path}`;
    $('snapshot').textContent = snap.nodes
      .map((n) => `${'  '.repeat(n.depth)}<${n.tag}${Object.entries(n).filter(([k]) => k !== 'depth' && k !== 'tag').map(([k, v]) => ` ${k}="${v}"`).join('')}>`)
      .join('\n');
  }
}

$('pair-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  $('pair-button').disabled = true;
  $('pair-result').textContent = 'Pairing…';
  delete $('pair-result').dataset.ok;
  const r = await chrome.runtime.sendMessage({ type: 'pair', bridge: $('bridge-input').value, code: $('code-input').value });
  $('pair-button').disabled = false;
  $('pair-result').dataset.ok = String(!!(r && r.ok));
  pairFailure = r && r.ok ? null : (r && r.message) || 'no answer from the extension';
  $('pair-result').textContent = r && r.ok ? 'Paired.' : `Not paired: ${pairFailure}`;
  if (r && r.ok) {
    $('code-input').value = '';
    $('pair-box').open = false;
  }
  refresh();
});

chrome.storage.onChanged.addListener(() => refresh());
refresh();
