// A site's model picker (issue 27, issue 35, issue 36; docs/extension.md, "The model picker"): read
// which model and thinking effort it shows, and select the ones a send asks for. The shapes
// and their selectors are the page contract's (contract/picker.js): a menu of radios (maybe
// under a submenu), the Latest model's radio with no test id, effort as radios or as a
// slider, or no picker at all; anything else is a picker this extension does not recognise.
// Recognised by structure only (test ids, roles, aria state, numbers); the items' own
// words are used only to name what the page showed in a sentence.
//
// Loaded as a classic content script before content.js; exposes
// `globalThis.sendledgerPicker`. Opening the menu is a click on the page's own picker,
// never on anything that sends; the slider is moved with arrow keys on the slider itself.

(() => {
  // The site's picker facts (sites/<site>.js names them; chatgpt.com: contract/picker.js).
  const FACTS = window.sendledgerSite.facts;
  const fact = (id) => window.sendledgerContract.get(id);
  const SEL = fact(FACTS.picker).selectors;
  const LATEST = fact(FACTS.pickerModel).latest;
  const STOPS = FACTS.effort ? fact(FACTS.effort).stops : [];
  const MENU_MS = 3_000; // how long the page may take to open or close its menu
  const KEY_MS = 1_000; // how long the slider may take to move one stop
  const MOUNT_MS = 3_000; // how long a page still mounting may show no picker before "none" is believed

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  /** Resolves true when `test()` holds (checked on DOM changes), false after `ms`. */
  function until(test, ms) {
    return new Promise((resolve) => {
      if (test()) return resolve(true);
      const observer = new MutationObserver(() => {
        if (!test()) return;
        observer.disconnect();
        clearTimeout(timer);
        resolve(true);
      });
      observer.observe(document, { subtree: true, childList: true, attributes: true });
      const timer = setTimeout(() => {
        observer.disconnect();
        resolve(test());
      }, ms);
    });
  }

  const label = (el) => (el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 60);
  const NOTICE_CHARS = 200; // the most of a disabled item's notice carried into a sentence

  /** An item the page has switched off, as Radix marks a disabled menu item. */
  const disabled = (el) => el.getAttribute('aria-disabled') === 'true' || el.hasAttribute('data-disabled');

  /**
   * A disabled item's notice, in the page's words: the elements its `aria-describedby`
   * names, else the item's own text nodes (its label and any notice inside it), joined by
   * spaces, at most NOTICE_CHARS characters.
   */
  function notice(el) {
    const ids = (el.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
    const described = ids.map((id) => document.getElementById(id)).filter(Boolean);
    const texts = [];
    for (const root of described.length ? described : [el]) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      while (walker.nextNode()) texts.push(walker.currentNode.nodeValue.replace(/\s+/g, ' ').trim());
    }
    return texts.filter(Boolean).join(' ').slice(0, NOTICE_CHARS);
  }

  const row = (el, name) => ({ el, name, label: label(el), checked: el.getAttribute('aria-checked') === 'true', off: disabled(el) ? notice(el) : null });

  /**
   * The radio items of the open menus: `{models, efforts, unnamed}` — models by their
   * `model-switcher-<slug>` test id, the Latest model as the one radio with no test id
   * (named LATEST), efforts by `effort-switcher-<name>`; `unnamed`: how many radios carry
   * no test id (more than one: a shape this extension does not know).
   */
  function radios() {
    const models = [];
    const efforts = [];
    let unnamed = 0;
    for (const el of document.querySelectorAll(SEL.radio)) {
      const id = el.getAttribute('data-testid');
      if (id === null) {
        unnamed += 1;
        models.push(row(el, LATEST));
      } else if (id.startsWith(SEL.modelPrefix)) {
        const name = id.slice(SEL.modelPrefix.length);
        if (name && name !== 'advanced' && name !== 'dropdown-button') models.push(row(el, name));
      } else if (id.startsWith(SEL.effortPrefix) && id.length > SEL.effortPrefix.length) efforts.push(row(el, id.slice(SEL.effortPrefix.length)));
    }
    return { models, efforts, unnamed };
  }

  /**
   * The effort slider of the open menus, read by numbers only: `{el, min, max, now,
   * announced: [n, m] | null, agree, effort, words, proRow}`. `agree`: aria-valuetext's last
   * two numbers are aria-valuenow and aria-valuemax; `effort`: the stop's name when they
   * agree on a slider of 4 or 5 stops from 1, else null; `words`: the page's valuetext (for
   * a sentence only); `proRow`: the disabled row right after the slider (Pro, unavailable).
   */
  function slider() {
    const el = document.querySelector(SEL.slider);
    if (!el) return null;
    const num = (a) => (/^\d+$/.test(el.getAttribute(a) || '') ? Number(el.getAttribute(a)) : null);
    const [min, max, now] = [num('aria-valuemin'), num('aria-valuemax'), num('aria-valuenow')];
    const words = (el.getAttribute('aria-valuetext') || '').slice(0, 60);
    const digits = words.match(/\d+/g);
    const announced = digits && digits.length >= 2 ? digits.slice(-2).map(Number) : null;
    const agree = !!announced && announced[0] === now && announced[1] === max;
    const known = min === 1 && (max === 4 || max === 5);
    const effort = agree && known && now >= 1 && now <= max ? STOPS[now - 1] : null;
    const after = el.nextElementSibling || (el.parentElement && el.parentElement.nextElementSibling);
    const proRow = after && max === 4 && disabled(after) ? after : null;
    return { el, min, max, now, announced, agree, known, effort, words, proRow };
  }

  const menuOpen = () => !!document.querySelector(SEL.menu);
  /** Presses `el` as a primary pointer does (`pointerdown`). */
  const press = (el) => el.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true, cancelable: true, button: 0, pointerType: 'mouse', isPrimary: true }));

  /**
   * Opens the picker and every submenu in it. The button is pressed as a pointer would
   * (menus built on Radix open on `pointerdown`, not on a click), then clicked if that
   * opened nothing. False: it did not open.
   */
  async function open() {
    const button = document.querySelector(SEL.button);
    if (!button) return false;
    if (!menuOpen()) {
      press(button);
      if (!(await until(menuOpen, 300))) button.click();
    }
    if (!(await until(menuOpen, MENU_MS))) return false;
    for (let i = 0; i < 4; i += 1) {
      const trigger = document.querySelector(SEL.submenuTrigger);
      if (!trigger) break;
      const menus = document.querySelectorAll(SEL.menu).length;
      trigger.click();
      await until(() => document.querySelectorAll(SEL.menu).length > menus, MENU_MS);
    }
    return true;
  }

  /** Closes the picker (Escape, then the button pressed again if it stays open). */
  async function close() {
    if (!menuOpen()) return;
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    if (await until(() => !menuOpen(), MENU_MS)) return;
    const button = document.querySelector(SEL.button);
    if (button) press(button);
    await until(() => !menuOpen(), MENU_MS);
  }

  /**
   * The picker's shape without opening it: `{shape: 'menu'}` (the known button), `{shape:
   * 'none'}` (no menu button at all in the header: positively no picker), or `{shape:
   * 'unrecognised', header_menus}` (menu buttons in the header, none of them the known one).
   */
  function find() {
    if (document.querySelector(SEL.button)) return { shape: 'menu', button: true };
    const menus = document.querySelectorAll(SEL.headerMenuButton).length;
    return menus ? { shape: 'unrecognised', button: false, header_menus: menus } : { shape: 'none', button: false };
  }

  /** `{name: notice}` for the disabled items among `rows`. */
  const offOf = (rows) => Object.fromEntries(rows.filter((r) => r.off !== null).map((r) => [r.name, r.off]));
  const EMPTY = { model: null, modelLabel: null, effort: null, effortLabel: null, models: [], efforts: [], modelsOff: {}, effortsOff: {}, slider: null };
  const sliderShows = (s) => s && { min: s.min, max: s.max, now: s.now, announced: s.announced, agree: s.agree };

  /**
   * What the picker shows: `{present, shape, model, modelLabel, effort, effortLabel, models,
   * efforts, modelsOff, effortsOff, slider}` (slugs and effort names from test ids or slider
   * positions; null where nothing is checked or readable; `…Off`: the disabled items, name →
   * the page's notice; `slider`: its numbers). `shape`: 'menu', 'slider', 'none' (`present`
   * false) or 'unrecognised' (a picker whose items this extension does not know).
   */
  async function read() {
    const found = find();
    if (found.shape === 'none') return { present: false, shape: 'none', ...EMPTY };
    if (found.shape === 'unrecognised' || !(await open())) return { present: true, shape: 'unrecognised', ...EMPTY, header_menus: found.header_menus || 0 };
    const { models, efforts, unnamed } = radios();
    const s = slider();
    const proOff = s && s.proRow ? { pro: notice(s.proRow) } : {}; // read while the menu is open
    await close();
    if (!models.length || unnamed > 1 || (s && !s.known)) return { present: true, shape: 'unrecognised', ...EMPTY, slider: sliderShows(s) };
    const m = models.find((r) => r.checked);
    const e = efforts.find((r) => r.checked);
    const sliderEffort = s ? s.effort : null;
    return {
      present: true,
      shape: s ? 'slider' : 'menu',
      model: m ? m.name : null,
      modelLabel: m ? m.label : null,
      effort: s ? sliderEffort : e ? e.name : null,
      effortLabel: s ? s.words : e ? e.label : null,
      models: models.map((r) => r.name),
      efforts: s ? STOPS.slice(0, s.max) : efforts.map((r) => r.name),
      modelsOff: offOf(models),
      effortsOff: s ? proOff : offOf(efforts),
      slider: sliderShows(s),
    };
  }

  /** Clicks the model or effort radio `name` in the open picker. False: no such item, or it is disabled. */
  async function pick(kind, name) {
    if (!(await open())) return false;
    const item = radios()[kind].find((r) => r.name === name && r.off === null);
    if (!item) {
      await close();
      return false;
    }
    item.el.click();
    await sleep(0);
    await close();
    return true;
  }

  /**
   * Moves the open picker's slider to stop `name` with arrow keys on the slider, one stop
   * at a time, each waited for (aria-valuenow changing). Never to a stop the slider does
   * not have (a four-stop slider has no pro). False: it did not get there.
   */
  async function slide(name) {
    if (!(await open())) return false;
    let s = slider();
    const target = STOPS.indexOf(name) + 1;
    for (let step = 0; s && s.known && target >= 1 && target <= s.max && s.now !== target && step < 5; step += 1) {
      const before = s.now;
      s.el.focus();
      s.el.dispatchEvent(new KeyboardEvent('keydown', { key: s.now < target ? 'ArrowRight' : 'ArrowLeft', bubbles: true, cancelable: true }));
      await until(() => slider() && slider().now !== before, KEY_MS);
      s = slider();
    }
    await close();
    return !!s && s.now === target;
  }

  /** "GPT-5 Instant (gpt-5-instant)", or "nothing readable". */
  const shows = (name, words) => (name ? (words && words !== name ? `${words} (${name})` : name) : 'nothing readable');

  /** The refusal for a send asking for a disabled item: `what` "model" or "effort". */
  const unavailable = (what, name, words) => ({ ok: false, reason: `the picker's ${what} ${name} is unavailable (${words ? `"${words}"` : 'the page gives no notice'}): queue it again once the page offers it, or ask for another ${what}; nothing was typed` });

  /** What the slider showed, in a sentence: its position and the page's own words for it. */
  function sliderWords(now) {
    const sl = now.slider;
    const said = now.effortLabel ? `"${now.effortLabel}"` : 'no words';
    if (!sl.agree) return `the effort slider at position ${sl.now} of ${sl.max} announces ${said}, which does not agree with that position`;
    return `the effort slider shows ${shows(now.effort, now.effortLabel)} (position ${sl.now} of ${sl.max})`;
  }

  /** The sentence for an effort that does not hold after choosing. */
  function effortRefusal(now, effort) {
    const offered = now.efforts.includes(effort) ? '' : ` (the ${now.slider ? `slider's ${now.slider.max} stops offer` : 'picker offers'} no such effort)`;
    const shown = now.slider ? sliderWords(now) : `the picker shows effort ${shows(now.effort, now.effortLabel)}`;
    return { ok: false, reason: `${shown}; the send asks for effort ${effort}${offered}: nothing was typed` };
  }

  /** The refusal for a picker of a shape this extension does not know (page fact picker.present). */
  function unrecognised(now) {
    const detail = now.header_menus ? `the header shows ${now.header_menus} menu button(s), none the known one` : 'its menu shows no model item this extension knows';
    return { ok: false, fact: FACTS.picker, reason: window.sendledgerContract.refusal(FACTS.picker, detail) };
  }

  /** Sets the effort on the open picker's slider or radios; a refusal when it is switched off. */
  async function setEffort(effort) {
    const now = await read();
    if (now.shape === 'unrecognised') return unrecognised(now);
    if (Object.hasOwn(now.effortsOff, effort)) return unavailable('effort', effort, now.effortsOff[effort]);
    if (now.effort === effort || !now.efforts.includes(effort)) return null;
    if (now.shape === 'slider') await slide(effort);
    else await pick('efforts', effort);
    return null;
  }

  /**
   * Makes the picker show `model` and `effort` (either may be null: left as it is).
   * Answers `{ok: true, model, effort}` with what the picker shows afterwards, or
   * `{ok: false, reason, fact?}` with a sentence naming what the page showed — for a model
   * or effort the page has disabled, its notice (only that item is out: other sends go
   * on); for a picker of an unknown shape, the contract's sentence and `fact`
   * ('picker.present'). Nothing is typed either way, and a disabled item is never clicked.
   */
  /** The picker as read, a page showing none given up to MOUNT_MS to mount one (a fresh page's header may come after its composer). */
  async function readMounted() {
    const deadline = Date.now() + MOUNT_MS;
    let now = await read();
    while (now.shape === 'none' && Date.now() < deadline) {
      await sleep(100);
      now = await read();
    }
    return now;
  }

  async function choose(model, effort) {
    let now = await readMounted();
    if (now.shape === 'none') {
      return { ok: false, reason: `this page shows no model picker (the account offers none); the send asks for ${model ? `model ${model}` : `effort ${effort}`}: nothing was typed` };
    }
    if (now.shape === 'unrecognised') return unrecognised(now);
    if (model && Object.hasOwn(now.modelsOff, model)) return unavailable('model', model, now.modelsOff[model]);
    if (model && now.model !== model && now.models.includes(model)) await pick('models', model);
    if (effort) {
      const refused = await setEffort(effort);
      if (refused) return refused;
    }
    now = await read();
    if (now.shape === 'unrecognised') return unrecognised(now);
    if (model && now.model !== model) {
      const offered = now.models.includes(model) ? '' : ' (the picker offers no such model)';
      return { ok: false, reason: `the picker shows ${shows(now.model, now.modelLabel)}; the send asks for ${model}${offered}: nothing was typed` };
    }
    if (effort && now.effort !== effort) return effortRefusal(now, effort);
    return { ok: true, model: now.model, effort: now.effort };
  }

  window.sendledgerPicker = Object.freeze({ find, read, choose });
})();
