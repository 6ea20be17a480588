// The fake chatgpt.com's places and choices (issue 27, issue 35): the model picker in four
// layouts — every model in the top-level menu; the thinking models under Advanced → Model /
// Effort; `slider`: the Latest model as a radio with no test id and the effort as a slider
// of four stops (Pro its own greyed-out row) or five (`pro: true`), its words in `lang` (en,
// de, ko), `slider_skew` making aria-valuetext announce another position than aria-valuenow;
// `unknown`: a picker built differently (other test ids, a localised "Advanced") — or none at all, the page's `?model=<slug>` start, and the Project a page belongs
// to (the Chat / Work surface switch is rendered with the page: server.mjs). Structure as
// the extension recognises it: data-testid, roles and aria attributes; the words are the
// project's own.
//
// In the `effort_limit` state (states.mjs) one effort item is disabled as Radix disables a
// menu item (`aria-disabled="true"`, `data-disabled`) with the page's reset notice beside it:
// in the top-level layout a sibling the item names with `aria-describedby`, under Advanced a
// second line inside the item. A click on it still selects it, as a careless page's might
// (counted: `disabled_clicks`), so only the extension's own rule keeps it from being used.
//
// Test hooks (MAIN world, for the browser suite): `window.__fakePicker.set(slug, effort)`.

const MODELS = [
  { slug: 'auto', label: 'Auto', top: true },
  { slug: 'gpt-5-instant', label: 'GPT-5 Instant', top: true },
  { slug: 'gpt-5-2-thinking', label: 'GPT-5.2 Thinking', top: false, efforts: true },
  { slug: 'gpt-5-2-pro', label: 'GPT-5.2 Pro', top: false, efforts: true },
  // The slider layout's "Latest": a radio with no slug-named test id; the page's request
  // names the model it resolves to.
  { slug: 'latest', request: 'gpt-5-5', label: 'Latest', top: false, efforts: true, slider: true },
];
const EFFORTS = [
  { name: 'standard', label: 'Standard' },
  { name: 'extended', label: 'Extended' },
];

/**
 * The slider layout (config `picker: "slider"`): the page's words by language (the
 * extension reads none of them), the stops' names as the page's request names them, and
 * how its aria-valuetext says "position n of m".
 */
const SLIDER = {
  stops: ['light', 'standard', 'extended', 'heavy', 'pro'],
  words: {
    en: { latest: 'Latest', tiers: ['Light', 'Standard', 'Extended', 'Extra High', 'Pro'], of: (n, m) => `${n} of ${m}`, pro: 'Pro thinking is available on the Pro plan.', effort: 'Thinking' },
    de: { latest: 'Neueste', tiers: ['Leicht', 'Standard', 'Erweitert', 'Sehr hoch', 'Pro'], of: (n, m) => `${n} von ${m}`, pro: 'Pro-Denken ist im Pro-Abo verfügbar.', effort: 'Denken' },
    ko: { latest: '최신', tiers: ['가벼움', '표준', '확장', '매우 높음', '프로'], of: (n, m) => `${n}/${m}`, pro: '프로 사고는 Pro 요금제에서 사용할 수 있습니다.', effort: '사고' },
  },
};
const sliderWords = () => SLIDER.words[config.lang] || SLIDER.words.en;
const stopsShown = () => (config.pro ? 5 : 4);

/** The Project in the address (`/g/g-p-<id>-<name>/…`), or null. */
export function projectFromPath() {
  const m = location.pathname.match(/^\/g\/(g-p-[0-9a-f]+)(?:-[A-Za-z0-9-]*)?\//);
  return m ? m[1] : null;
}

let config = { picker: 'top', surface: 'chat', picker_drift: false };
let model = 'auto';
let effort = null;
let menu = null;
let drifted = false;

/** The model slug and effort the page sends with a turn (they follow the picker). */
export const chosen = () => ({ model: (MODELS.find((m) => m.slug === model) || {}).request || model, effort });

function item(testid, label, checked) {
  const el = document.createElement('div');
  el.setAttribute('role', 'menuitemradio');
  el.dataset.testid = testid;
  el.setAttribute('aria-checked', String(checked));
  el.tabIndex = -1;
  el.textContent = label;
  return el;
}

function group(label, children) {
  const g = document.createElement('div');
  g.setAttribute('role', 'group');
  g.setAttribute('aria-label', label);
  g.append(...children);
  return g;
}

const modelItems = (filter) => MODELS.filter(filter).map((m) => item(`model-switcher-${m.slug}`, m.label, m.slug === model));

/** The effort items; the tier the page's state disables carries its notice (`inside` or beside it). */
function effortItems(inside) {
  const view = config.view || {};
  return EFFORTS.flatMap((e) => {
    const el = item(`effort-switcher-${e.name}`, e.label, e.name === effort);
    if (e.name !== view.disabled_effort) return [el];
    el.setAttribute('aria-disabled', 'true');
    el.dataset.disabled = '';
    const notice = document.createElement(inside ? 'span' : 'div');
    notice.className = 'picker-notice';
    notice.textContent = view.words.effort_limit;
    if (inside) {
      el.append(notice);
      return [el];
    }
    notice.id = `effort-notice-${e.name}`;
    el.setAttribute('aria-describedby', notice.id);
    return [el, notice];
  });
}

function closeMenu() {
  if (menu) menu.remove();
  menu = null;
  button().setAttribute('aria-expanded', 'false');
}

/** The slider: aria-valuenow the position, aria-valuetext the tier and "n of m" (askew with `slider_skew`). */
function effortSlider() {
  const w = sliderWords();
  const max = stopsShown();
  const el = document.createElement('div');
  el.setAttribute('role', 'slider');
  el.tabIndex = 0;
  el.dataset.testid = 'effort-slider';
  el.className = 'effort-slider';
  const position = () => Math.min(max, Math.max(1, SLIDER.stops.indexOf(effort) + 1));
  const paint = () => {
    const n = position();
    const said = config.slider_skew ? (n === 1 ? 2 : n - 1) : n;
    el.setAttribute('aria-valuemin', '1');
    el.setAttribute('aria-valuemax', String(max));
    el.setAttribute('aria-valuenow', String(n));
    el.setAttribute('aria-valuetext', `${w.tiers[said - 1]}, ${w.of(said, max)}`);
    el.textContent = `${w.effort} ${'●'.repeat(n)}${'○'.repeat(max - n)}`;
  };
  el.addEventListener('keydown', (ev) => {
    const step = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1 }[ev.key];
    if (!step) return;
    ev.preventDefault();
    set(model, SLIDER.stops[Math.min(max, Math.max(1, position() + step)) - 1]);
    paint();
  });
  paint();
  return el;
}

/** Pro as its own greyed-out row after a four-stop slider, with the page's notice. */
function proRow() {
  if (config.pro) return [];
  const row = document.createElement('div');
  row.setAttribute('role', 'menuitem');
  row.setAttribute('aria-disabled', 'true');
  row.dataset.disabled = '';
  row.dataset.testid = 'effort-pro-row';
  row.setAttribute('aria-describedby', 'effort-pro-notice');
  row.textContent = sliderWords().tiers[4];
  const notice = document.createElement('div');
  notice.id = 'effort-pro-notice';
  notice.className = 'picker-notice';
  notice.textContent = sliderWords().pro;
  return [row, notice];
}

/** The slider layout: the Latest radio (no test id), a thinking model, the effort slider. */
function sliderMenu() {
  const latest = document.createElement('div');
  latest.setAttribute('role', 'menuitemradio');
  latest.setAttribute('aria-checked', String(model === 'latest'));
  latest.tabIndex = -1;
  latest.textContent = sliderWords().latest;
  const thinking = MODELS.find((m) => m.slug === 'gpt-5-2-thinking');
  menu.append(latest, item(`model-switcher-${thinking.slug}`, thinking.label, model === thinking.slug), group(sliderWords().effort, [effortSlider(), ...proRow()]));
}

/** A picker built differently: other test ids, the models behind a localised "Advanced". */
function unknownMenu() {
  const more = document.createElement('div');
  more.setAttribute('role', 'menuitem');
  more.setAttribute('aria-haspopup', 'menu');
  more.setAttribute('aria-expanded', 'false');
  more.dataset.testid = 'model-menu-more';
  more.textContent = { de: 'Erweitert ›', ko: '고급 ›' }[config.lang] || 'Advanced ›';
  const option = (m) => item(`model-option-${m.slug}`, m.label, m.slug === model);
  more.addEventListener('click', () => {
    more.setAttribute('aria-expanded', 'true');
    const sub = document.createElement('div');
    sub.setAttribute('role', 'menu');
    sub.className = 'picker-menu sub';
    sub.append(...MODELS.filter((m) => !m.top && !m.slider).map(option));
    menu.appendChild(sub);
  });
  menu.append(...MODELS.filter((m) => m.top).map(option), more);
}

function openMenu() {
  closeMenu();
  menu = document.createElement('div');
  menu.setAttribute('role', 'menu');
  menu.className = 'picker-menu';
  if (config.picker === 'slider') sliderMenu();
  else if (config.picker === 'unknown') unknownMenu();
  else if (config.picker === 'advanced') {
    const advanced = document.createElement('div');
    advanced.setAttribute('role', 'menuitem');
    advanced.setAttribute('aria-haspopup', 'menu');
    advanced.setAttribute('aria-expanded', 'false');
    advanced.dataset.testid = 'model-switcher-advanced';
    advanced.textContent = 'Advanced ›';
    advanced.addEventListener('click', () => {
      advanced.setAttribute('aria-expanded', 'true');
      const sub = document.createElement('div');
      sub.setAttribute('role', 'menu');
      sub.className = 'picker-menu sub';
      sub.append(group('Model', modelItems((m) => !m.top)), group('Effort', effortItems(true)));
      menu.appendChild(sub);
    });
    menu.append(...modelItems((m) => m.top), advanced);
  } else {
    menu.append(...modelItems(() => true), group('Effort', effortItems(false)));
  }
  menu.addEventListener('click', (ev) => {
    const pick = ev.target.closest('[role="menuitemradio"]');
    if (!pick) return;
    if (pick.getAttribute('aria-disabled') === 'true') fetch('/__fake/event', { method: 'POST', body: JSON.stringify({ kind: 'disabled_click' }) });
    const id = pick.dataset.testid || 'model-switcher-latest'; // the Latest radio has none
    const asModel = id.match(/^model-(?:switcher|option)-(.+)$/);
    if (asModel) set(asModel[1], effort);
    else set(model, id.slice('effort-switcher-'.length));
    closeMenu();
  });
  button().after(menu);
  button().setAttribute('aria-expanded', 'true');
}

let trigger = null;
const button = () => trigger;

function set(slug, level) {
  const m = MODELS.find((x) => x.slug === slug);
  if (!m) return;
  model = slug;
  effort = m.efforts ? level || effort || 'standard' : null;
  const b = button();
  const tier = [...EFFORTS, ...SLIDER.stops.map((name, i) => ({ name, label: sliderWords().tiers[i] }))].find((e) => e.name === effort);
  const name = m.slug === 'latest' ? sliderWords().latest : m.label;
  if (b) b.firstChild.textContent = name + (tier ? ` · ${tier.label}` : '');
}

/**
 * The picker's drift (config `picker_drift: "<slug>"`): the first time the composer holds
 * text, the page switches its model by itself — what a person or the page could do
 * between the extension's check and its grant ask.
 */
export function composerChanged(empty) {
  if (empty || drifted || !config.picker_drift) return;
  drifted = true;
  set(config.picker_drift, null);
}

function mountPicker(header) {
  if (config.picker === 'none') return; // an account with no picker
  const b = document.createElement('button');
  b.type = 'button';
  b.dataset.testid = config.picker === 'unknown' ? 'composer-model-menu' : 'model-switcher-dropdown-button';
  trigger = b;
  b.setAttribute('aria-haspopup', 'menu');
  b.setAttribute('aria-expanded', 'false');
  b.append(document.createTextNode(''));
  // Like a Radix dropdown trigger: it opens on a primary-button pointerdown, not on a click.
  b.addEventListener('pointerdown', (ev) => {
    if (ev.button === 0) menu ? closeMenu() : openMenu();
  });
  header.appendChild(b);
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') closeMenu();
  });
  const asked = new URLSearchParams(location.search).get('model');
  const first = config.picker === 'slider' ? 'latest' : 'auto';
  set(MODELS.some((m) => m.slug === asked) ? asked : first, null);
}

/** Mounts the picker into the page's header (the surface switch comes with the page). */
export async function mountPlaces() {
  config = { ...config, ...(await (await fetch('/__fake/config')).json()) };
  const header = document.querySelector('header');
  // config picker_mount_ms: the picker comes that long after the page (its composer) is there.
  if (config.picker_mount_ms) await new Promise((resolve) => setTimeout(resolve, Number(config.picker_mount_ms)));
  mountPicker(header);
  const project = projectFromPath();
  if (project) {
    const tag = document.createElement('small');
    tag.dataset.testid = 'project-name';
    tag.textContent = ` — Project ${project}`;
    header.appendChild(tag);
  }
  window.__fakePicker = { set, chosen };
}
