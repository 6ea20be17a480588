// The fake chatgpt.com's places and choices (issue 27): the model picker in two layouts
// (every model in the top-level menu, or the thinking models under Advanced → Model /
// Effort) or none at all, the page's `?model=<slug>` start, and the Project a page belongs
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
];
const EFFORTS = [
  { name: 'standard', label: 'Standard' },
  { name: 'extended', label: 'Extended' },
];

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
export const chosen = () => ({ model, effort });

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

function openMenu() {
  closeMenu();
  menu = document.createElement('div');
  menu.setAttribute('role', 'menu');
  menu.className = 'picker-menu';
  if (config.picker === 'advanced') {
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
    const id = pick.dataset.testid;
    if (id.startsWith('model-switcher-')) set(id.slice('model-switcher-'.length), effort);
    else set(model, id.slice('effort-switcher-'.length));
    closeMenu();
  });
  button().after(menu);
  button().setAttribute('aria-expanded', 'true');
}

const button = () => document.querySelector('[data-testid="model-switcher-dropdown-button"]');

function set(slug, level) {
  const m = MODELS.find((x) => x.slug === slug);
  if (!m) return;
  model = slug;
  effort = m.efforts ? level || effort || 'standard' : null;
  const b = button();
  if (b) b.firstChild.textContent = m.label + (effort ? ` · ${EFFORTS.find((e) => e.name === effort).label}` : '');
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
  b.dataset.testid = 'model-switcher-dropdown-button';
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
  set(MODELS.some((m) => m.slug === asked) ? asked : 'auto', null);
}

/** Mounts the picker into the page's header (the surface switch comes with the page). */
export async function mountPlaces() {
  config = { ...config, ...(await (await fetch('/__fake/config')).json()) };
  const header = document.querySelector('header');
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
