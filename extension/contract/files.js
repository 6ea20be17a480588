// The page contract's file facts (issue 35; docs/extension.md, "Attachments (files in)"):
// the composer's file inputs and what each accepts, the drop target, and the chips the page
// shows per attached file — recognised by what they show (a named file, a busy or progress
// state, an error with the page's words, a remove button), never by one test id. attach.js
// takes every file selector from here; the facts' probes read structure only (interfaces
// shape 1: tags, roles, aria states, test ids, `accept`), never a file's name or words.
//
// Sources: the fake chatgpt.com's composer (e2e/browser/fake-chatgpt/uploads.js); public
// reports of the live composer's three file inputs, two of them images only (`accept=
// "image/*"`, or a list of image types and extensions), where a document stalls at 0 %
// (agentify-sh/desktop#55, Clad3815/chatgpt-file-uploader#2, 2025–2026); chips renamed
// or ellipsized (steipete/oracle#212, 2026).
//
// Loaded as a classic content script after contract.js; exposes `window.sendledgerFiles`.

(() => {
  const C = window.sendledgerContract;
  /** The composer: the form around the chat's editor. */
  const COMPOSER = 'form[data-type="unified-composer"]';
  /** What may be a chip: an element whose test id speaks of files, uploads or attachments,
   * or an item of a list; kept only when it holds a button and shows a name (below). Not
   * any role=group: the composer's other pills (a tool, the model) are groups too. */
  const CHIP_HINT = ['file', 'attachment', 'upload'].map((w) => `[data-testid*="${w}" i]:not(button):not(input)`).join(', ')
    + ', [role="list"] > [role="listitem"]';
  /** Parts of a chip that are no name: its buttons, its state, what is hidden. */
  const NOT_NAME = 'button, [role="alert"], [role="progressbar"], [role="status"], [aria-hidden="true"], svg, img, input';
  const ERROR = '[role="alert"], [aria-invalid="true"]';
  const REMOVE_HINT = /remove|delete|close|dismiss/i;
  const MAX_CHIPS = 50;
  const MAX_WORDS = 300;
  const SEEN = [
    { source: 'e2e/browser/fake-chatgpt/uploads.js (the fake composer, issue 29)', date: '2026-11' },
    { source: 'public reports: three file inputs, two images only (agentify-sh/desktop#55; chatgpt-file-uploader#2)', date: '2026-07' },
  ];

  const words = (el) => (el ? (el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, MAX_WORDS) : '');

  const composer = () => document.querySelector(COMPOSER);

  /** The composer's file inputs, in page order. */
  const inputs = () => {
    const root = composer();
    return root ? [...root.querySelectorAll('input[type="file"]')] : [];
  };

  /**
   * Whether an input's `accept` takes a file of `type` named `name` (HTML's rule: a
   * comma-separated list of MIME types, `type/*` wildcards and `.extensions`; empty or
   * absent takes every file). A file of no type matches only by its extension.
   */
  function accepts(accept, { name, type }) {
    const tokens = String(accept || '').split(',').map((t) => t.trim().toLowerCase()).filter(Boolean);
    if (!tokens.length) return true;
    const mime = String(type || '').toLowerCase().split(';')[0].trim();
    const lower = String(name || '').toLowerCase();
    return tokens.some((t) => {
      if (t.startsWith('.')) return lower.endsWith(t);
      if (t === '*/*') return true;
      if (!mime) return false;
      if (t.endsWith('/*')) return mime.startsWith(t.slice(0, -1));
      return mime === t;
    });
  }

  /** The inputs that take `file`, those with the fewest limits first (no `accept` first). */
  const inputsFor = (file) =>
    inputs()
      .filter((i) => accepts(i.getAttribute('accept'), file))
      .sort((a, b) => (a.getAttribute('accept') ? 1 : 0) - (b.getAttribute('accept') ? 1 : 0));

  /** The texts a chip shows outside its buttons and states, one per leaf element. */
  function leafTexts(el) {
    const out = [];
    const walk = (node) => {
      if (out.length > 8) return;
      if (node.nodeType === Node.TEXT_NODE) {
        const t = node.data.replace(/\s+/g, ' ').trim();
        if (t) out.push(t);
        return;
      }
      if (node.nodeType !== Node.ELEMENT_NODE || node.matches(NOT_NAME)) return;
      for (const c of node.childNodes) walk(c);
    };
    walk(el);
    return out;
  }

  /** A chip's remove button: one whose test id says so, else its only button. */
  function removeButton(el) {
    const buttons = [...el.querySelectorAll('button')].filter((b) => !b.closest('[role="alert"]'));
    return buttons.find((b) => REMOVE_HINT.test(b.getAttribute('data-testid') || '')) || (buttons.length === 1 ? buttons[0] : null);
  }

  const has = (el, sel) => el.matches(sel) || !!el.querySelector(sel);

  /**
   * A chip's state by what it shows: `error` (role=alert or aria-invalid; `words` the
   * page's, from the alert or the element it is described by), `uploading` (aria-busy, a
   * spinner — a progressbar with no value — or a progressbar between its bounds),
   * `waiting` (a progressbar at its minimum, nothing busy: the page has not started the
   * upload), or `done`.
   */
  function stateOf(el) {
    if (has(el, ERROR)) {
      const alert = el.matches('[role="alert"]') ? el : el.querySelector('[role="alert"]');
      const invalid = el.matches('[aria-invalid="true"]') ? el : el.querySelector('[aria-invalid="true"]');
      const by = invalid && invalid.getAttribute('aria-describedby');
      const described = by ? document.getElementById(by) : null;
      return { state: 'error', words: words(alert) || words(described) || null };
    }
    const busy = has(el, '[aria-busy="true"]');
    const bars = el.matches('[role="progressbar"]') ? [el] : [...el.querySelectorAll('[role="progressbar"]')];
    let waiting = false;
    for (const bar of bars) {
      const now = bar.getAttribute('aria-valuenow');
      if (now === null || now === '') return { state: 'uploading', words: null };
      const min = Number(bar.getAttribute('aria-valuemin') || 0);
      const max = Number(bar.getAttribute('aria-valuemax') || 100);
      const at = Number(now);
      if (!Number.isFinite(at) || at >= max) continue;
      if (at <= min && !busy) waiting = true;
      else return { state: 'uploading', words: null };
    }
    if (busy) return { state: 'uploading', words: null };
    return { state: waiting ? 'waiting' : 'done', words: null };
  }

  /**
   * The chips the composer shows, in page order: `{el, texts, name, state, words, remove}`
   * — the innermost elements that look like a chip (CHIP_HINT), hold a button and show a
   * name. `name`: the first text it shows (attach.js matches the send's names against
   * `texts`). File names stay in the content script. `named: false` (the facts' probes):
   * the name is not asked for, so a probe decides from structure a page report carries.
   */
  function chips({ named = true } = {}) {
    const root = composer();
    if (!root) return [];
    const candidates = [...root.querySelectorAll(CHIP_HINT)].filter(
      (el) => !el.isContentEditable && !el.querySelector('[contenteditable="true"]') && el.querySelector('button') && (!named || leafTexts(el).length),
    );
    const inner = candidates.filter((el) => !candidates.some((o) => o !== el && el.contains(o)));
    return inner.slice(0, MAX_CHIPS).map((el) => {
      const texts = leafTexts(el);
      return { el, texts, name: texts[0], ...stateOf(el), remove: removeButton(el) };
    });
  }

  /** Whether chip `c` shows the file `name` (in full, or cut short with an ellipsis). */
  function names(c, name) {
    return c.texts.some((t) => t === name || (/(…|\.\.\.)$/.test(t) && t.length > 4 && name.startsWith(t.replace(/(…|\.\.\.)$/, ''))));
  }

  // ------------------------------------------------------------------ the facts

  const fact = (def) => C.fact({ needs: 'files', seen: SEEN, ...def });
  const shape = (cs) => cs.map((c) => ({ state: c.state, remove: !!c.remove, role: c.el.getAttribute('role'), testid: c.el.getAttribute('data-testid') }));

  fact({
    id: 'files.inputs',
    meaning: "the composer's file inputs and what each accepts, or its drop target: where a send's files go in",
    signals: ['structure'],
    subject: 'a composer file input',
    probe: () => {
      const list = inputs().map((i) => ({ accept: (i.getAttribute('accept') || '').slice(0, 200), multiple: i.multiple }));
      const drop = !!composer();
      return { state: list.length || drop ? 'holds' : 'fails', shows: { inputs: list, drop_target: drop } };
    },
  });

  fact({
    id: 'files.document_input',
    meaning: 'an input that takes documents (not only images): a document never goes into an images-only input, where it stalls at 0 %',
    signals: ['structure'],
    subject: 'a file input that takes documents',
    probe: () => {
      const any = inputsFor({ name: 'x.pdf', type: 'application/pdf' }).length > 0;
      return { state: any || (!inputs().length && composer()) ? 'holds' : 'fails', shows: { inputs: inputs().length, takes_documents: any } };
    },
  });

  fact({
    id: 'files.chip',
    meaning: "a chip per attached file, recognised by meaning: it shows the file's name and a readable state (uploading, waiting, refused or uploaded), confirmed by the page's upload traffic",
    signals: ['structure', 'route'],
    subject: 'file chips',
    reads: "in a send, each chip's text, to find the file's name there (kept in the content script); the probe reads structure only",
    probe: () => {
      const cs = chips({ named: false });
      return { state: cs.length ? 'holds' : 'unseen', shows: { chips: cs.length, shapes: shape(cs) } };
    },
  });

  fact({
    id: 'files.chip_progress',
    meaning: "a chip's upload state: aria-busy, a spinner (a progressbar with no value) or a progressbar below its maximum; a bar at its minimum with nothing busy waits for the Send click",
    signals: ['structure', 'route'],
    subject: "a file chip's upload state",
    probe: () => {
      const cs = chips({ named: false }).filter((c) => c.state === 'uploading' || c.state === 'waiting');
      return { state: cs.length ? 'holds' : 'unseen', shows: { uploading: cs.filter((c) => c.state === 'uploading').length, waiting: cs.filter((c) => c.state === 'waiting').length } };
    },
  });

  fact({
    id: 'files.chip_remove',
    meaning: "a chip's remove button (its test id says remove, delete, close or dismiss, or it is the chip's only button): how a failed send's files leave the composer",
    signals: ['structure'],
    subject: "a file chip's remove button",
    probe: () => {
      const cs = chips({ named: false });
      if (!cs.length) return { state: 'unseen', shows: { chips: 0 } };
      return { state: cs.every((c) => c.remove) ? 'holds' : 'fails', shows: { chips: cs.length, with_remove: cs.filter((c) => c.remove).length } };
    },
  });

  fact({
    id: 'files.chip_error',
    meaning: "a refused file's chip: role=alert or aria-invalid, with the page's own words, read at once",
    signals: ['structure'],
    subject: "a file chip's error",
    reads: "in a send, the page's words in the alert or the element the chip is described by (they go into the send's reason); the probe reads structure only",
    probe: () => {
      const cs = chips({ named: false }).filter((c) => c.state === 'error');
      return { state: cs.length ? 'holds' : 'unseen', shows: { errors: cs.length } };
    },
  });

  fact({
    id: 'files.upload_route',
    meaning: "the page's own upload in its traffic: POST /backend-api/files gives a file id, POST /backend-api/files/<id>/uploaded confirms it",
    signals: ['route'],
    subject: "the page's file upload requests",
    /** page-observer.js's FILE_CREATE and FILE_UPLOADED, as RegExp sources (the same strings). */
    routes: Object.freeze({ create: '^\\/backend-api\\/files\\/?$', uploaded: '^\\/backend-api\\/files\\/([^/]+)\\/uploaded\\/?$' }),
    probe: () => {
      const seen = window.sendledgerAttach ? window.sendledgerAttach.seenUploads() : { created: 0, uploaded: 0 };
      return { state: seen.created ? (seen.uploaded ? 'holds' : 'unseen') : 'unseen', shows: seen };
    },
  });

  window.sendledgerFiles = Object.freeze({ composer, inputs, inputsFor, accepts, chips, names, stateOf, dropTarget: composer });
})();
