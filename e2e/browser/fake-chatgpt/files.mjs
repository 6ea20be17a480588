// The fake chatgpt.com's file uploads (issue 29), modelled on the page's traffic in the
// project's own words and ids: the page asks `POST /backend-api/files` for a file id and an
// upload URL on a blob store at another host, PUTs the bytes there (`x-ms-blob-type:
// BlockBlob`, a cross-origin request with its CORS preflight), then confirms with
// `POST /backend-api/files/{id}/uploaded`. Uploads create nothing in a conversation: only
// the conversation request that names the file ids does.
//
// The blob store keeps every file's bytes, so a test reads them back byte for byte
// (`GET /__test/blob/<file id>`), and can hold a PUT (config `upload_hold`: true for every
// file, or one file's name) or make it fail
// (config `upload_fail`). The page's own limits (a size, refused types) are in `LIMITS`,
// and reach the page through `/__fake/config`.

import { createHash, randomBytes } from 'node:crypto';

/** The blob store's host name (mapped to the second server by Chromium's resolver rules). */
export const BLOB_HOST = 'files.blob.fake-chatgpt.test';

/** The page's limits and its words for them (the page checks them before any upload). */
export const LIMITS = {
  /** Bytes a file may have (config `file_limit` overrides it). */
  file_bytes: 20 * 1024 * 1024,
  /** Types the page refuses outright. */
  refused_types: ['application/x-msdownload', 'application/x-dosexec', 'application/x-msi'],
  words: {
    refused_type: 'Files of this type are not supported.',
    too_large: (mib) => `This file is too large. Files can be at most ${mib} MB.`,
    upload_failed: 'The upload failed. Remove the file and try again.',
  },
};

/** The blob store's CORS answer: the page's origin may PUT and GET there. */
export const BLOB_CORS = {
  'access-control-allow-origin': 'https://chatgpt.com',
  'access-control-allow-methods': 'PUT, GET, OPTIONS',
  'access-control-allow-headers': 'x-ms-blob-type, x-ms-version, content-type',
};

/** The most bytes the blob store takes in one PUT. */
const MAX_PUT_BYTES = 64 * 1024 * 1024;

const fileId = () => `file-${randomBytes(11).toString('base64url').replace(/[-_]/g, 'x')}`;

/**
 * The upload side of the fake. `config` is the fake's live config; `holds` its list of
 * release callbacks (`POST /__test/release` runs them). Returns the route handlers and the
 * test view.
 */
export function fileStore({ config, holds, blobOrigin }) {
  const files = new Map(); // file id → {file_id, name, size, use_case, sig, bytes, uploaded, puts}
  let counts = { held_uploads: 0, blob_puts: 0, file_creates: 0 };

  const limit = () => Number(config.file_limit) || LIMITS.file_bytes;

  /** `POST /backend-api/files` `{file_name, file_size, use_case}` → an upload URL and a file id. */
  function create(body) {
    counts.file_creates += 1;
    const name = String(body.file_name || '');
    const size = Number(body.file_size);
    if (!name || !Number.isSafeInteger(size) || size < 0) return { status: 400, body: { detail: 'file_name and file_size are required' } };
    if (size > limit()) return { status: 413, body: { detail: LIMITS.words.too_large(Math.floor(limit() / (1024 * 1024))) } };
    const id = fileId();
    const sig = randomBytes(12).toString('hex');
    files.set(id, { file_id: id, name, size, use_case: body.use_case || null, sig, bytes: null, uploaded: false, puts: 0 });
    const upload_url = `${blobOrigin()}/files/${id}/raw?se=2099-01-01&sp=cw&sig=${sig}`;
    return { status: 200, body: { status: 'success', upload_url, file_id: id } };
  }

  /** `POST /backend-api/files/{id}/uploaded`: the bytes are at the blob store. */
  function uploaded(id) {
    const f = files.get(id);
    if (!f) return { status: 404, body: { detail: 'File not found' } };
    if (!f.bytes) return { status: 409, body: { detail: 'The file has not been uploaded yet.' } };
    f.uploaded = true;
    return { status: 200, body: { status: 'success', download_url: `${blobOrigin()}/files/${id}/raw?sp=r&sig=${f.sig}`, metadata: {} } };
  }

  const cors = BLOB_CORS;

  /** The blob store's routes: CORS preflight, and the PUT of a file's bytes. */
  async function blobRoute(req, res) {
    const url = new URL(req.url, `https://${BLOB_HOST}`);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors);
      return res.end();
    }
    const m = url.pathname.match(/^\/files\/(file-[A-Za-z0-9]+)\/raw$/);
    const f = m && files.get(m[1]);
    if (req.method !== 'PUT' || !f || url.searchParams.get('sig') !== f.sig) {
      res.writeHead(403, { ...cors, 'content-type': 'text/plain' });
      return res.end('AuthenticationFailed');
    }
    if (req.headers['x-ms-blob-type'] !== 'BlockBlob') {
      res.writeHead(400, { ...cors, 'content-type': 'text/plain' });
      return res.end('MissingRequiredHeader x-ms-blob-type');
    }
    const bytes = await readBytes(req);
    counts.blob_puts += 1;
    f.puts += 1;
    if (config.upload_hold === true || config.upload_hold === f.name) {
      counts.held_uploads += 1;
      await new Promise((resolve) => holds.push(resolve));
    }
    if (config.upload_fail || !bytes) {
      res.writeHead(500, { ...cors, 'content-type': 'text/plain' });
      return res.end('InternalError');
    }
    f.bytes = bytes;
    res.writeHead(201, cors);
    return res.end();
  }

  /** The request's bytes, or null past MAX_PUT_BYTES. */
  function readBytes(req) {
    return new Promise((resolve, reject) => {
      const chunks = [];
      let n = 0;
      req.on('data', (c) => {
        n += c.length;
        if (n <= MAX_PUT_BYTES) chunks.push(c);
      });
      req.on('end', () => resolve(n <= MAX_PUT_BYTES ? Buffer.concat(chunks) : null));
      req.on('error', reject);
    });
  }

  /** What a test reads: every file the page announced, with the digest of the stored bytes. */
  function view() {
    const list = [...files.values()].map((f) => ({
      file_id: f.file_id,
      name: f.name,
      size: f.size,
      use_case: f.use_case,
      uploaded: f.uploaded,
      puts: f.puts,
      stored_bytes: f.bytes ? f.bytes.length : null,
      sha256: f.bytes ? createHash('sha256').update(f.bytes).digest('hex') : null,
    }));
    return { ...counts, files: list };
  }

  return {
    create,
    uploaded,
    blobRoute,
    view,
    bytes: (id) => (files.get(id) || {}).bytes || null,
    reset() {
      files.clear();
      counts = { held_uploads: 0, blob_puts: 0, file_creates: 0 };
    },
  };
}
