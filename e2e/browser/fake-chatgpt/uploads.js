// The fake chatgpt.com's attachments in the composer (issue 29, issue 35): a hidden
// `input[type=file]` beside the composer (opened by the "+" button) — with config
// `file_inputs: 3`, two images-only inputs before it, as on the live page — and the
// composer as a drop target; a chip per file — a spinner while it uploads, done once
// uploaded, an error with the page's words when the page refuses it — and the upload
// itself, as the page does it: `POST /backend-api/files` for a file id and an upload URL,
// the bytes `PUT` to that URL on the blob store's host (`x-ms-blob-type: BlockBlob`),
// `POST /backend-api/files/{id}/uploaded`. The page's limits and words come from
// `/__fake/config` (files.mjs `LIMITS`). Config `upload_on_send`: files wait (a bar at 0,
// nothing busy) until the Send click starts their uploads, and the page sends by itself
// once they are uploaded.
//
// Chip structure (config `chips`, CHIPS below): "standard" is `[data-testid="file-chip"]`
// in `[data-testid="composer-attachments"]`, the file's name in
// `[data-testid="file-chip-name"]`, `aria-busy="true"` and a `[role="progressbar"]` spinner
// while uploading, a `[role="alert"]` with the page's words when refused, a remove button
// `[data-testid="remove-file-button"]`; "other" and "unknown" are built differently.

const files = []; // {file, chip, state: 'waiting'|'uploading'|'done'|'error', id, width, height}
let onChange = () => {};
let config = null;

/** Whether a file is still uploading (the page keeps its send button disabled meanwhile). */
export const busy = () => files.some((f) => f.state === 'uploading');

/** Whether a file waits for the Send click to start its upload (config `upload_on_send`). */
export const waiting = () => files.some((f) => f.state === 'waiting');

async function pageConfig() {
  if (!config) config = await (await fetch('/__fake/config')).json();
  return config;
}

const el = (tag, attrs = {}, text = '') => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
};

// The chips, three ways (config `chips`): "standard" (the test ids above); "other" — the
// same meaning built differently (a role=group tile with other test ids, a progressbar
// with a value, an error said by aria-invalid and aria-describedby, a preview button
// beside the remove button); "unknown" — plain list items whose state is only a
// percentage and a colour, nothing an extension can read without guessing.
const CHIPS = {
  standard: {
    tray: () => el('div', { 'data-testid': 'composer-attachments', class: 'composer-attachments' }),
    chip(file) {
      const chip = el('div', { 'data-testid': 'file-chip', class: 'file-chip', 'aria-busy': 'true' });
      chip.append(el('span', { class: 'file-icon', 'aria-hidden': 'true' }, file.type.startsWith('image/') ? '🖼' : '📄'),
        el('span', { 'data-testid': 'file-chip-name', class: 'file-name' }, file.name),
        el('span', { role: 'progressbar', 'aria-label': 'Uploading', class: 'spinner' }),
        el('button', { type: 'button', 'data-testid': 'remove-file-button', 'aria-label': 'Remove file' }, '×'));
      return chip;
    },
    progress(chip, pct) {
      chip.setAttribute('aria-busy', pct === 0 ? 'false' : 'true');
      const bar = chip.querySelector('[role="progressbar"]');
      if (!bar) return;
      // Waiting for the click: a bar at 0 of 100, nothing busy; then a spinner again.
      if (pct === 0) for (const [k, v] of Object.entries({ 'aria-valuenow': '0', 'aria-valuemin': '0', 'aria-valuemax': '100' })) bar.setAttribute(k, v);
      else ['aria-valuenow', 'aria-valuemin', 'aria-valuemax'].forEach((k) => bar.removeAttribute(k));
    },
    settle(chip, state, words) {
      chip.setAttribute('aria-busy', 'false');
      chip.dataset.state = state;
      chip.querySelector('[role="progressbar"]')?.remove();
      if (words) chip.insertBefore(el('span', { role: 'alert', class: 'file-error' }, words), chip.querySelector('button'));
    },
  },
  other: {
    tray: () => el('div', { 'data-testid': 'composer-upload-list', class: 'composer-attachments' }),
    chip(file) {
      const chip = el('div', { role: 'group', 'data-testid': 'upload-tile', class: 'file-chip' });
      chip.append(el('div', { class: 'file-name' }, file.name),
        el('div', { role: 'progressbar', 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '5', class: 'spinner' }),
        el('button', { type: 'button', 'data-testid': 'upload-tile-preview' }, '⤢'),
        el('button', { type: 'button', 'data-testid': 'upload-tile-remove' }, '×'));
      return chip;
    },
    progress(chip, pct) {
      chip.querySelector('[role="progressbar"]')?.setAttribute('aria-valuenow', String(pct));
    },
    settle(chip, state, words) {
      chip.dataset.state = state;
      chip.querySelector('[role="progressbar"]')?.remove();
      if (!words) return;
      const id = `tile-error-${Math.random().toString(36).slice(2)}`;
      chip.setAttribute('aria-invalid', 'true');
      chip.setAttribute('aria-describedby', id);
      chip.insertBefore(el('div', { id, class: 'file-error' }, words), chip.querySelector('button'));
    },
  },
  unknown: {
    tray: () => el('ul', { class: 'composer-attachments' }),
    chip(file) {
      const chip = el('li', { class: 'file-chip' });
      chip.append(el('span', { class: 'file-name' }, file.name), el('span', { class: 'pct' }, '0%'), el('button', { type: 'button', class: 'x' }, '×'));
      return chip;
    },
    progress(chip, pct) {
      chip.querySelector('.pct').textContent = `${pct}%`;
    },
    settle(chip, state, words) {
      chip.dataset.state = state;
      chip.querySelector('.pct').textContent = state === 'done' ? '100%' : '';
      if (words) chip.insertBefore(el('span', { class: 'file-error' }, words), chip.querySelector('button'));
    },
  },
};
const chips = () => CHIPS[(config && config.chips) || 'standard'] || CHIPS.standard;
let tray = null;

function settle(entry, state, words) {
  entry.state = state;
  chips().settle(entry.chip, state, words);
  onChange();
}

/** Width and height of an image (the request's asset pointer carries them), else nulls. */
async function dimensions(file) {
  if (!file.type.startsWith('image/')) return { width: null, height: null };
  try {
    const bitmap = await createImageBitmap(file);
    return { width: bitmap.width, height: bitmap.height };
  } catch {
    return { width: null, height: null };
  }
}

const postJson = (url, body) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** The page's own refusal of a file, before any upload: its words, or null. */
function refusal(file, l) {
  if (l.refused_types.includes(file.type)) return l.words.refused_type;
  if (file.size > l.file_bytes) return l.words.too_large;
  return null;
}

/** One file's upload, as the page does it; ends with the chip done or in error. */
async function upload(entry) {
  const { file } = entry;
  const l = (await pageConfig()).limits;
  entry.state = 'uploading';
  chips().progress(entry.chip, 5);
  const use = file.type.startsWith('image/') ? 'multimodal' : 'my_files';
  const created = await postJson('/backend-api/files', {
    file_name: file.name, file_size: file.size, use_case: use, timezone_offset_min: 0, reset_rate_limits: false,
  });
  const answer = await created.json().catch(() => ({}));
  if (!created.ok) return settle(entry, 'error', answer.detail || l.words.upload_failed);
  entry.id = answer.file_id;
  chips().progress(entry.chip, 40);
  Object.assign(entry, await dimensions(file));
  const put = await fetch(answer.upload_url, {
    method: 'PUT',
    headers: { 'x-ms-blob-type': 'BlockBlob', 'x-ms-version': '2020-04-08', 'content-type': file.type || 'application/octet-stream' },
    body: file,
  }).catch(() => null);
  if (!put || !put.ok) return settle(entry, 'error', l.words.upload_failed);
  const done = await postJson(`/backend-api/files/${entry.id}/uploaded`, {});
  if (!done.ok) return settle(entry, 'error', l.words.upload_failed);
  return settle(entry, 'done', null);
}

const failed = (entry) => () => settle(entry, 'error', 'The upload failed. Remove the file and try again.');

/**
 * The files a person (or the extension) gave, through `via`: an input's `accept`, or null
 * for a drop. A file an images-only input takes that is no image stalls, as on the live
 * page: its chip says uploading at 0 % forever and no upload request is made (the page
 * notes `stalled_upload`). With config `upload_on_send` a file waits for the Send click.
 */
async function add(list, via = null) {
  const c = await pageConfig();
  for (const file of list) {
    const entry = { file, chip: chips().chip(file), state: 'uploading', id: null, width: null, height: null };
    tray.appendChild(entry.chip);
    files.push(entry);
    const buttons = entry.chip.querySelectorAll('button');
    buttons[buttons.length - 1].addEventListener('click', () => {
      files.splice(files.indexOf(entry), 1);
      entry.chip.remove();
      onChange();
    });
    onChange();
    const words = refusal(file, c.limits);
    if (words) settle(entry, 'error', words);
    else if (via && /image/.test(via) && !file.type.startsWith('image/')) {
      chips().progress(entry.chip, 1);
      fetch('/__fake/event', { method: 'POST', body: JSON.stringify({ kind: 'stalled_upload' }) });
    } else if (c.upload_on_send) {
      entry.state = 'waiting';
      chips().progress(entry.chip, 0);
      onChange();
    } else upload(entry).catch(failed(entry));
  }
}

/**
 * The Send click on a page whose files wait for it: starts their uploads, and runs `send`
 * once every file is uploaded (never when one fails: its chip shows the page's words).
 */
export function uploadWaiting(send) {
  const now = files.filter((f) => f.state === 'waiting');
  Promise.all(now.map((f) => upload(f).catch(failed(f)))).then(() => {
    if (files.every((f) => f.state === 'done')) send();
  });
}

/**
 * What the next message carries, and the chips cleared: `parts` (an image's asset pointer
 * each, before the text) and `attachments` (`metadata.attachments`), from the uploaded files.
 */
export function takeForMessage() {
  const done = files.filter((f) => f.state === 'done');
  // A page that leaves its last uploaded file out of the request (config `request_files:
  // "drop_last"`), as a careless page might: the chip was shown, the request names less.
  if (config && config.request_files === 'drop_last') done.pop();
  const parts = done.filter((f) => f.file.type.startsWith('image/')).map((f) => ({
    content_type: 'image_asset_pointer',
    asset_pointer: `file-service://${f.id}`,
    size_bytes: f.file.size,
    width: f.width,
    height: f.height,
    fovea: null,
    metadata: { dalle: null, gizmo: null, generation: null, container_pixel_height: null, container_pixel_width: null, sanitized: true },
  }));
  const attachments = done.map((f) => ({
    id: f.id,
    size: f.file.size,
    name: f.file.name,
    mime_type: f.file.type || 'application/octet-stream',
    ...(f.width ? { width: f.width, height: f.height } : {}),
    source: 'local',
    is_big_paste: false,
  }));
  for (const f of files.splice(0)) f.chip.remove();
  onChange();
  return { parts, attachments };
}

/** One hidden file input: `id`, its `accept` (none: every file). */
function fileInput(id, accept) {
  const input = el('input', { type: 'file', id, ...(accept ? { accept } : {}) });
  input.multiple = true;
  input.hidden = true;
  input.addEventListener('change', () => {
    add([...input.files], accept);
    input.value = '';
  });
  return input;
}

/** The live page's images-only inputs (photos, camera), before its own input for files. */
const IMAGE_INPUTS = [
  ['upload-photos', 'image/*'],
  ['upload-camera', 'image/png,.png,image/jpeg,.jpg,.jpeg,image/webp,.webp,image/gif,.gif'],
];

/**
 * Mounts the file inputs, the "+" button and the drop target (config `file_input: false`: a
 * page with the drop target only; `file_inputs: 3`: two images-only inputs come first, as
 * on the live page); `changed` runs on every chip change.
 */
export async function mountUploads(form, changed) {
  onChange = changed;
  const c = await pageConfig();
  tray = chips().tray();
  form.prepend(tray);
  form.addEventListener('dragover', (ev) => ev.preventDefault());
  form.addEventListener('drop', (ev) => {
    ev.preventDefault();
    if (ev.dataTransfer && ev.dataTransfer.files.length) add([...ev.dataTransfer.files]);
  });
  if (c.file_input === false) return;
  const input = fileInput('upload-files', null);
  const plus = el('button', { type: 'button', 'data-testid': 'composer-plus-btn', 'aria-label': 'Add files' }, '+');
  plus.addEventListener('click', () => input.click());
  const images = Number(c.file_inputs) === 3 ? IMAGE_INPUTS.map(([id, accept]) => fileInput(id, accept)) : [];
  form.prepend(plus, ...images, input);
}
