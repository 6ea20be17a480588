// The page's model picker (issue 27; docs/extension.md, "The model picker"): read which
// model and thinking effort it shows, and select the ones a send asks for. Two layouts are
// known — every model in the top-level menu, or some under a submenu (Advanced → Model /
// Effort) — and accounts with no picker at all. Recognised by structure only: the
// dropdown button's test id, `role="menu"`, `role="menuitemradio"` items whose test ids
// name the model slug or effort, `aria-checked`, `aria-haspopup` for a submenu. The item's
// own words are used only to name what the page showed in a sentence.
//
// Loaded as a classic content script before content.js; exposes
// `globalThis.sendledgerPicker`. Opening the menu is a click on the page's own picker,
// never on anything that sends.

(() => {
  const BUTTON = '[data-testid="model-switcher-dropdown-button"]';
  const MENU = '[role="menu"]';
  const SUBMENU_TRIGGER = '[role="menu"] [aria-haspopup="menu"]:not([aria-expanded="true"])';
  const MODEL_PREFIX = 'model-switcher-';
  const EFFORT_PREFIX = 'effort-switcher-';
  const RADIO = '[role="menu"] [role="menuitemradio"][data-testid]';
  const MENU_MS = 3_000; // how long the page may take to open or close its menu

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

  /** The radio items of the open menus whose test id starts with `prefix`. */
  function radios(prefix) {
    return [...document.querySelectorAll(RADIO)]
      .filter((el) => el.getAttribute('data-testid').startsWith(prefix))
      .map((el) => ({ el, name: el.getAttribute('data-testid').slice(prefix.length), label: label(el), checked: el.getAttribute('aria-checked') === 'true', off: disabled(el) ? notice(el) : null }))
      .filter((r) => r.name && r.name !== 'advanced' && r.name !== 'dropdown-button');
  }

  const menuOpen = () => !!document.querySelector(MENU);
  /** Presses `el` as a primary pointer does (`pointerdown`). */
  const press = (el) => el.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true, cancelable: true, button: 0, pointerType: 'mouse', isPrimary: true }));

  /**
   * Opens the picker and every submenu in it. The button is pressed as a pointer would
   * (menus built on Radix open on `pointerdown`, not on a click), then clicked if that
   * opened nothing. False: it did not open.
   */
  async function open() {
    const button = document.querySelector(BUTTON);
    if (!button) return false;
    if (!menuOpen()) {
      press(button);
      if (!(await until(menuOpen, 300))) button.click();
    }
    if (!(await until(menuOpen, MENU_MS))) return false;
    for (let i = 0; i < 4; i += 1) {
      const trigger = document.querySelector(SUBMENU_TRIGGER);
      if (!trigger) break;
      const menus = document.querySelectorAll(MENU).length;
      trigger.click();
      await until(() => document.querySelectorAll(MENU).length > menus, MENU_MS);
    }
    return true;
  }

  /** Closes the picker (Escape, then the button pressed again if it stays open). */
  async function close() {
    if (!menuOpen()) return;
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    if (await until(() => !menuOpen(), MENU_MS)) return;
    const button = document.querySelector(BUTTON);
    if (button) press(button);
    await until(() => !menuOpen(), MENU_MS);
  }

  /** `{name: notice}` for the disabled items among `rows`. */
  const offOf = (rows) => Object.fromEntries(rows.filter((r) => r.off !== null).map((r) => [r.name, r.off]));

  /**
   * What the picker shows: `{present: false}` for a page without one, else `{present,
   * model, modelLabel, effort, effortLabel, models, efforts, modelsOff, effortsOff}` (slugs
   * and effort names from the items' test ids; null where nothing is checked; `…Off`: the
   * disabled items, name → the page's notice).
   */
  async function read() {
    if (!document.querySelector(BUTTON)) return { present: false };
    if (!(await open())) return { present: true, model: null, modelLabel: null, effort: null, effortLabel: null, models: [], efforts: [], modelsOff: {}, effortsOff: {} };
    const models = radios(MODEL_PREFIX);
    const efforts = radios(EFFORT_PREFIX);
    const m = models.find((r) => r.checked);
    const e = efforts.find((r) => r.checked);
    await close();
    return {
      present: true,
      model: m ? m.name : null,
      modelLabel: m ? m.label : null,
      effort: e ? e.name : null,
      effortLabel: e ? e.label : null,
      models: models.map((r) => r.name),
      efforts: efforts.map((r) => r.name),
      modelsOff: offOf(models),
      effortsOff: offOf(efforts),
    };
  }

  /** Clicks the item `prefix + name` in the open picker. False: no such item, or it is disabled. */
  async function pick(prefix, name) {
    if (!(await open())) return false;
    const item = radios(prefix).find((r) => r.name === name && r.off === null);
    if (!item) {
      await close();
      return false;
    }
    item.el.click();
    await sleep(0);
    await close();
    return true;
  }

  /** "GPT-5 Instant (gpt-5-instant)", or "nothing readable". */
  const shows = (name, words) => (name ? (words && words !== name ? `${words} (${name})` : name) : 'nothing readable');

  /** The refusal for a send asking for a disabled item: `what` "model" or "effort". */
  const unavailable = (what, name, words) => ({ ok: false, reason: `the picker's ${what} ${name} is unavailable (${words ? `"${words}"` : 'the page gives no notice'}): queue it again once the page offers it, or ask for another ${what}; nothing was typed` });

  /**
   * Makes the picker show `model` and `effort` (either may be null: left as it is).
   * Answers `{ok: true, model, effort}` with what the picker shows afterwards, or
   * `{ok: false, reason}` with a sentence naming what the page showed — for a model or
   * effort the page has disabled, its notice (only that item is out: other sends go on);
   * nothing is typed either way, and a disabled item is never clicked.
   */
  async function choose(model, effort) {
    let now = await read();
    if (!now.present) {
      return { ok: false, reason: `this page shows no model picker (the account offers none); the send asks for ${model ? `model ${model}` : `effort ${effort}`}: nothing was typed` };
    }
    if (model && Object.hasOwn(now.modelsOff, model)) return unavailable('model', model, now.modelsOff[model]);
    if (model && now.model !== model && now.models.includes(model)) await pick(MODEL_PREFIX, model);
    if (effort) {
      now = await read();
      if (Object.hasOwn(now.effortsOff, effort)) return unavailable('effort', effort, now.effortsOff[effort]);
      if (now.effort !== effort && now.efforts.includes(effort)) await pick(EFFORT_PREFIX, effort);
    }
    now = await read();
    if (model && now.model !== model) {
      const offered = now.models.includes(model) ? '' : ' (the picker offers no such model)';
      return { ok: false, reason: `the picker shows ${shows(now.model, now.modelLabel)}; the send asks for ${model}${offered}: nothing was typed` };
    }
    if (effort && now.effort !== effort) {
      const offered = now.efforts.includes(effort) ? '' : ' (the picker offers no such effort)';
      return { ok: false, reason: `the picker shows effort ${shows(now.effort, now.effortLabel)}; the send asks for effort ${effort}${offered}: nothing was typed` };
    }
    return { ok: true, model: now.model, effort: now.effort };
  }

  window.sendledgerPicker = Object.freeze({ read, choose });
})();
