// The fake chatgpt.com's attachments in the composer (issue 29): a hidden
// `input[type=file]` beside the composer (opened by the "+" button) and the composer as a
// drop target; a chip per file — a spinner while it uploads, done once uploaded, an error
// with the page's words when the page refuses it — and the upload itself, as the page does
// it: `POST /backend-api/files` for a file id and an upload URL, the bytes `PUT` to that URL
// on the blob store's host (`x-ms-blob-type: BlockBlob`), `POST /backend-api/files/{id}/uploaded`.
// The page's limits and words come from `/__fake/config` (files.mjs `LIMITS`).
//
// Chip structure (what the extension reads, selectors.js): `[data-testid="file-chip"]` in
// `[data-testid="composer-attachments"]`, the file's name in `[data-testid="file-chip-name"]`,
// `aria-busy="true"` and a `[role="progressbar"]` spinner while uploading, a `[role="alert"]`
// with the page's words when refused, a remove button `[data-testid="remove-file-button"]`.

const files = []; // {file, chip, state: 'uploading'|'done'|'error', id, width, height}
let onChange = () => {};
let config = null;

/** Whether a file is still uploading (the page keeps its send button disabled meanwhile). */
export const busy = () => files.some((f) => f.state === 'uploading');

async function pageConfig() {
  if (!config) config = await (await fetch('/__fake/config')).json();
  return config;
}

function chipFor(file) {
  const chip = document.createElement('div');
  chip.dataset.testid = 'file-chip';
  chip.className = 'file-chip';
  chip.setAttribute('aria-busy', 'true');
  chip.innerHTML = '<span class="file-icon" aria-hidden="true"></span><span data-testid="file-chip-name" class="file-name"></span>'
    + '<span role="progressbar" aria-label="Uploading" class="spinner"></span>'
    + '<button type="button" data-testid="remove-file-button" aria-label="Remove file">×</button>';
  chip.querySelector('.file-icon').textContent = file.type.startsWith('image/') ? '🖼' : '📄';
  chip.querySelector('.file-name').textContent = file.name;
  document.querySelector('[data-testid="composer-attachments"]').appendChild(chip);
  return chip;
}

function settle(entry, state, words) {
  entry.state = state;
  entry.chip.setAttribute('aria-busy', 'false');
  entry.chip.dataset.state = state;
  const spinner = entry.chip.querySelector('[role="progressbar"]');
  if (spinner) spinner.remove();
  if (words) {
    const alert = document.createElement('span');
    alert.setAttribute('role', 'alert');
    alert.className = 'file-error';
    alert.textContent = words;
    entry.chip.insertBefore(alert, entry.chip.querySelector('button'));
  }
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

/** One file's upload, as the page does it; ends with the chip done or in error. */
async function upload(entry) {
  const { file } = entry;
  const l = (await pageConfig()).limits;
  if (l.refused_types.includes(file.type)) return settle(entry, 'error', l.words.refused_type);
  if (file.size > l.file_bytes) return settle(entry, 'error', l.words.too_large);
  const use = file.type.startsWith('image/') ? 'multimodal' : 'my_files';
  const created = await postJson('/backend-api/files', {
    file_name: file.name, file_size: file.size, use_case: use, timezone_offset_min: 0, reset_rate_limits: false,
  });
  const answer = await created.json().catch(() => ({}));
  if (!created.ok) return settle(entry, 'error', answer.detail || l.words.upload_failed);
  entry.id = answer.file_id;
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

function add(list) {
  for (const file of list) {
    const entry = { file, chip: chipFor(file), state: 'uploading', id: null, width: null, height: null };
    files.push(entry);
    entry.chip.querySelector('button').addEventListener('click', () => {
      files.splice(files.indexOf(entry), 1);
      entry.chip.remove();
      onChange();
    });
    onChange();
    upload(entry).catch(() => settle(entry, 'error', 'The upload failed. Remove the file and try again.'));
  }
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

/**
 * Mounts the file input, the "+" button and the drop target (config `file_input: false`: a
 * page with the drop target only); `changed` runs on every chip change.
 */
export async function mountUploads(form, changed) {
  onChange = changed;
  const tray = document.createElement('div');
  tray.dataset.testid = 'composer-attachments';
  tray.className = 'composer-attachments';
  form.prepend(tray);
  form.addEventListener('dragover', (ev) => ev.preventDefault());
  form.addEventListener('drop', (ev) => {
    ev.preventDefault();
    if (ev.dataTransfer && ev.dataTransfer.files.length) add([...ev.dataTransfer.files]);
  });
  if ((await pageConfig()).file_input === false) return;
  const input = document.createElement('input');
  input.type = 'file';
  input.multiple = true;
  input.hidden = true;
  input.id = 'upload-files';
  input.addEventListener('change', () => {
    add([...input.files]);
    input.value = '';
  });
  const plus = document.createElement('button');
  plus.type = 'button';
  plus.dataset.testid = 'composer-plus-btn';
  plus.setAttribute('aria-label', 'Add files');
  plus.textContent = '+';
  plus.addEventListener('click', () => input.click());
  form.prepend(plus, input);
}
