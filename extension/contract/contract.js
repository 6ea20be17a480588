// The page contract (issue 35; docs/extension.md, "The page contract"): every fact about a
// chat site's page that the extension relies on, as data. Each fact says what it means,
// where and when it was seen, how it is probed without sending, and which sends fail — with
// which sentence — when it does not hold. The area files (contract/*.js, loaded after this
// one) define the facts; content.js, the picker, the file flow and the popup ask them.
//
// A fact:
//   {
//     id:       'composer.present'           stable, dotted: '<area>.<fact>'
//     meaning:  'the chat composer: …'       what holding means, in a person's words
//     seen:     [{source, date}]             where the shape was described or captured
//     needs:    'every' | 'destination' | 'model' | 'effort' | 'files'
//               which sends fail when it does not hold ('every': the gate closes, "page changed")
//     signals:  ['structure', 'route', …]    the independent signals it is confirmed by
//                                            (two where the page offers them)
//     subject:  'a send button'              what the sentence calls it: "<subject> this
//                                            extension does not recognise", never "absent"
//     probe:    (options) => Result | Promise<Result>
//   }
// A probe reads the page and never types, clicks or sends (options.openPicker: the person
// allowed opening and closing the model picker). Its Result:
//   { state: 'holds' | 'fails' | 'unseen', shows: {…} }
// `unseen`: the page has not shown the thing yet (no answer streamed, no file attached);
// `shows`: what the page showed, as structure only — counts, booleans, roles, test ids,
// route templates; never text, ids, tokens or aria labels' words (page reports carry it).
//
// Loaded as a classic content script first; exposes `globalThis.sendledgerContract`.

(() => {
  const STATES = new Set(['holds', 'fails', 'unseen']);
  const NEEDS = new Set(['every', 'destination', 'model', 'effort', 'files']);
  const PROBE_MS = 5_000; // the longest one probe may take (the picker's open and close)
  const facts = new Map();

  /** Registers `def` (see above); a malformed or repeated definition throws at load. */
  function fact(def) {
    const bad = (why) => new Error(`page contract: fact ${def && def.id}: ${why}`);
    if (!def || (def.id || '').length > 64 || !/^[a-z][a-z_]*(\.[a-z_]+)+$/.test(def.id || '')) throw bad('id must be "<area>.<fact>", at most 64 bytes (the owner refuses a longer one)');
    if (facts.has(def.id)) throw bad('defined twice');
    if (typeof def.meaning !== 'string' || !def.meaning) throw bad('no meaning');
    if (!Array.isArray(def.seen) || !def.seen.every((s) => s && s.source && s.date)) throw bad('seen needs {source, date}');
    if (!NEEDS.has(def.needs)) throw bad(`needs must be one of ${[...NEEDS].join(', ')}`);
    if (!Array.isArray(def.signals) || !def.signals.length) throw bad('no signals');
    if (typeof def.subject !== 'string' || !def.subject) throw bad('no subject');
    if (typeof def.probe !== 'function') throw bad('no probe');
    facts.set(def.id, Object.freeze({ ...def, seen: Object.freeze([...def.seen]), signals: Object.freeze([...def.signals]) }));
  }

  /** A probe's answer, checked: a throwing, slow or malformed probe is a `fails` that says so. */
  async function check(id, options = {}) {
    const f = facts.get(id);
    if (!f) return { id, state: 'fails', shows: { error: 'no such fact' } };
    let timer;
    try {
      const late = new Promise((resolve) => {
        timer = setTimeout(() => resolve({ state: 'fails', shows: { error: 'probe timed out' } }), PROBE_MS);
      });
      const r = await Promise.race([Promise.resolve().then(() => f.probe(options)), late]);
      if (!r || !STATES.has(r.state)) return { id, state: 'fails', shows: { error: 'probe answered no state' } };
      return { id, state: r.state, shows: r.shows || {} };
    } catch (e) {
      return { id, state: 'fails', shows: { error: String((e && e.name) || 'Error') } };
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Every fact's probe, in definition order: `{at, took_ms, results: [{id, needs, state,
   * shows}]}`. Nothing is typed or sent; the picker is opened only with `openPicker`.
   */
  async function checkAll(options = {}) {
    const started = Date.now();
    const results = [];
    for (const f of facts.values()) results.push({ needs: f.needs, ...(await check(f.id, options)) });
    return { at: started, took_ms: Date.now() - started, results };
  }

  /**
   * The sentence for a send refused because fact `id` does not hold: the fact named as
   * not recognised (never as absent), what the page showed in `detail` (structure only),
   * and what a person can do.
   */
  function refusal(id, detail) {
    const f = facts.get(id);
    const subject = f ? f.subject : `page fact ${id}`;
    const shown = detail ? ` (${detail})` : '';
    return `${subject} this extension does not recognise${shown} [page fact ${id}]: nothing was typed; run Check this page in the extension's popup, and update the extension if it stays`;
  }

  window.sendledgerContract = Object.freeze({
    fact,
    check,
    checkAll,
    refusal,
    /** The facts as data (no probes nor other functions), for the popup, reports and the docs' table. */
    list: () => [...facts.values()].map((f) => Object.fromEntries(Object.entries(f).filter(([, v]) => typeof v !== 'function'))),
    get: (id) => facts.get(id) || null,
  });
})();
