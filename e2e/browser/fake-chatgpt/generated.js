// The fake chatgpt.com page's generated images (issue 29, "files out"): a message of the
// answer's turn with `image_asset_pointer` parts is shown as a picture per part. As the
// page does it, each picture's address comes from the page's own download route
// (`GET /backend-api/conversation/{c}/attachment/{file id}/download`, with the page's
// credentials) and the `<img>` loads the short-lived `download_url` on the blob host; a
// refusal shows the page's words in the picture's place.
//
// Also the page's credentials: `/api/auth/session`'s access token, sent as
// `authorization: Bearer …` with the page's `oai-*` headers on its `backend-api` calls.

let session = null;
const deviceId = crypto.randomUUID();

/** The headers the page sends with its `backend-api` calls (its access token). */
export async function pageHeaders() {
  if (!session) session = await (await fetch('/api/auth/session')).json();
  return { authorization: `Bearer ${session.accessToken}`, 'oai-device-id': deviceId, 'oai-language': 'en-US' };
}

/** The asset-pointer parts of a message (`[]` for a text message). */
export function imageParts(message) {
  const parts = (message && message.content && message.content.parts) || [];
  return parts.filter((p) => p && typeof p === 'object' && p.content_type === 'image_asset_pointer' && typeof p.asset_pointer === 'string');
}

const shown = new Set(); // message ids whose pictures are on the page

/** A file id from a pointer: `sediment://file_…` / `file-service://file-…` → `file_…` / `file-…`. */
const fileIdOf = (pointer) => pointer.replace(/^[a-z-]+:\/\//, '');

async function showOne(figure, conversationId, part) {
  const id = fileIdOf(part.asset_pointer);
  const r = await fetch(`/backend-api/conversation/${conversationId}/attachment/${id}/download`, { headers: await pageHeaders() });
  const answer = await r.json().catch(() => ({}));
  if (!r.ok || answer.status !== 'success') {
    const error = document.createElement('div');
    error.dataset.testid = 'generated-image-error';
    error.setAttribute('role', 'alert');
    error.textContent = answer.error_message || `Could not load the image (HTTP ${r.status}).`;
    figure.appendChild(error);
    return;
  }
  const img = document.createElement('img');
  img.dataset.testid = 'generated-image';
  img.alt = 'Generated image';
  img.width = Math.min(part.width || 256, 360);
  img.src = answer.download_url;
  figure.appendChild(img);
  await img.decode().catch(() => {});
}

/**
 * Shows a message's generated images in `container` (once per message): one figure per
 * part, each filled by its download route. Resolves when every picture has loaded or failed.
 */
export async function showGenerated(container, conversationId, message) {
  const parts = imageParts(message);
  if (!parts.length || shown.has(message.id) || !conversationId) return;
  shown.add(message.id);
  const wrap = document.createElement('div');
  wrap.className = 'generated-images';
  wrap.dataset.messageId = message.id;
  container.appendChild(wrap);
  await Promise.all(parts.map((part) => {
    const figure = document.createElement('figure');
    figure.dataset.testid = 'generated-image-figure';
    wrap.appendChild(figure);
    return showOne(figure, conversationId, part);
  }));
}
