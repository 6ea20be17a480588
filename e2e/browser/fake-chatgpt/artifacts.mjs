// The fake chatgpt.com's generated files (issue 29, "files out"), modelled on the page's
// traffic in the project's own words and ids: an answer's generated image is a message of
// the turn whose content is `multimodal_text` with `image_asset_pointer` parts
// (`sediment://file_<32 hex>`, or the older `file-service://file-<id>`), and the page gets
// its bytes in two steps: `GET /backend-api/conversation/{c}/attachment/{file_id}/download`
// answers a short-lived `download_url` on the blob store's host (the second origin, as for
// uploads), whose `GET` answers the bytes with their content type. The route asks for the
// page's own credentials: `authorization: Bearer <the page's access token>` (the page reads
// it from `/api/auth/session`, as chatgpt.com does); without them it answers 401.
//
// Config (`POST /__test/config`):
//   answer_images: [{width, height, name?, scheme?: "sediment"|"file-service", bytes?}] — the
//     next answers each carry these images (made here: generatedPng, grown to exactly
//     `bytes` when given; kept byte for byte);
//   download_refuse: false | true | "<file id>" — the download route refuses that file (or
//     every file) with a 404 and the page's words (`REFUSAL`);
//   download_busy: false | true — the download route answers 503 (a passing failure);
//   download_hold: false | true — the blob store holds a fetch of a file's bytes (not the
//     page's own `<img>` showing it) until a release; `held_downloads` counts them.
// The test view (`/__test/state`'s `artifacts`): per file, its conversation, name, size,
// sha256, `route_calls` (download-route answers), `fetches` (the bytes read by a fetch: the
// extension's) and `views` (read by an `<img>`: the page showing it). `GET
// /__test/artifact/<file id>` answers the bytes.

import { createHash, randomBytes } from 'node:crypto';
import { generatedPng, paddedPng } from './images.mjs';

/** The page's words when its download route refuses a file. */
export const REFUSAL = {
  code: 'file_not_found',
  message: 'This file is no longer available. It may have expired or been deleted.',
};

/** The page's access token for this run of the fake (`/api/auth/session`). */
const ACCESS_TOKEN = `fake-access-${randomBytes(12).toString('hex')}`;

const hex = (n) => randomBytes(n).toString('hex');

/**
 * The generated-files side of the fake. `config` is the fake's live config, `holds` its
 * release callbacks, `blobOrigin()` the blob store's origin. Returns route handlers and the
 * test view.
 */
export function artifactStore({ config, holds, blobOrigin }) {
  const files = new Map(); // file id → {file_id, pointer, conversation_id, name, mime, bytes, width, height, sig, route_calls, fetches, views}
  let counts = { held_downloads: 0, download_refusals: 0 };
  let made = 0;

  /**
   * The images an answer in `conversationId` carries now (config `answer_images`), made and
   * kept: `[{pointer, file_id, size_bytes, width, height, gen_id}]` ([] when none).
   */
  function forAnswer(conversationId) {
    const specs = Array.isArray(config.answer_images) ? config.answer_images : [];
    return specs.map((spec) => {
      made += 1;
      const width = Number(spec.width) || 256;
      const height = Number(spec.height) || 256;
      const old = spec.scheme === 'file-service';
      const fileId = old ? `file-${hex(11)}` : `file_${hex(16)}`;
      const picture = generatedPng(width, height, made);
      const bytes = spec.bytes ? paddedPng(picture, Number(spec.bytes)) : picture;
      const name = spec.name || `generated-${made}.png`;
      files.set(fileId, { file_id: fileId, conversation_id: conversationId, name, mime: 'image/png', bytes, width, height, sig: hex(12), route_calls: 0, fetches: 0, views: 0 });
      const pointer = `${old ? 'file-service' : 'sediment'}://${fileId}`;
      return { pointer, file_id: fileId, size_bytes: bytes.length, width, height, gen_id: `gen_${hex(8)}` };
    });
  }

  /** `GET /backend-api/conversation/{c}/attachment/{id}/download`: `{status, body}`. */
  function download(conversationId, fileId, headers) {
    if (headers.authorization !== `Bearer ${ACCESS_TOKEN}`) return { status: 401, body: { detail: 'Unauthorized - Access token is missing' } };
    const f = files.get(fileId);
    if (!f || f.conversation_id !== conversationId) return { status: 404, body: { status: 'error', error_code: 'file_not_found', error_message: 'File not found.' } };
    f.route_calls += 1;
    if (config.download_busy) return { status: 503, body: { detail: 'Service temporarily unavailable' } };
    if (config.download_refuse === true || config.download_refuse === fileId) {
      counts.download_refusals += 1;
      return { status: 404, body: { status: 'error', error_code: REFUSAL.code, error_message: REFUSAL.message } };
    }
    const download_url = `${blobOrigin()}/generated/${fileId}?se=2099-01-01&sp=r&sig=${f.sig}`;
    return { status: 200, body: { status: 'success', download_url, file_name: f.name, file_size_bytes: f.bytes.length, metadata: {} } };
  }

  /**
   * The blob store's `GET /generated/<id>?sig=`: the bytes with their content type, to the
   * page's origin (CORS). A read by an `<img>` (sec-fetch-dest `image`) is the page showing
   * it; any other is a fetch of the bytes (config `download_hold` holds those).
   * Returns false when the path is not one of its own.
   */
  async function blobGet(req, res, url, cors) {
    const m = url.pathname.match(/^\/generated\/(file[-_][A-Za-z0-9]+)$/);
    if (!m || req.method !== 'GET') return false;
    const f = files.get(m[1]);
    if (!f || url.searchParams.get('sig') !== f.sig) {
      res.writeHead(403, { ...cors, 'content-type': 'text/plain' });
      res.end('AuthenticationFailed');
      return true;
    }
    if (req.headers['sec-fetch-dest'] === 'image') f.views += 1;
    else {
      f.fetches += 1;
      if (config.download_hold) {
        counts.held_downloads += 1;
        await new Promise((resolve) => holds.push(resolve));
      }
    }
    res.writeHead(200, { ...cors, 'content-type': f.mime, 'content-length': f.bytes.length, 'cache-control': 'private, no-store' });
    res.end(f.bytes);
    return true;
  }

  function view() {
    const list = [...files.values()].map((f) => ({
      file_id: f.file_id,
      conversation_id: f.conversation_id,
      name: f.name,
      size: f.bytes.length,
      width: f.width,
      height: f.height,
      sha256: createHash('sha256').update(f.bytes).digest('hex'),
      route_calls: f.route_calls,
      fetches: f.fetches,
      views: f.views,
    }));
    return { ...counts, artifacts: list };
  }

  return {
    forAnswer,
    download,
    blobGet,
    view,
    session: () => ({ accessToken: ACCESS_TOKEN, expires: '2099-01-01T00:00:00.000Z', user: { id: 'user-sendledger-test-double' } }),
    bytes: (id) => (files.get(id) || {}).bytes || null,
    reset() {
      files.clear();
      counts = { held_downloads: 0, download_refusals: 0 };
    },
  };
}
