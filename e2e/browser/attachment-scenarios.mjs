// Files in (issue 29), through the real extension in Chromium: a send's attachments are
// stored by the owner (`POST /v1/attachments`), given by the tab to the page's own file
// input, uploaded by the page (its `POST /backend-api/files`, the blob PUT on a second
// host, `…/uploaded`), and only then is the text typed and the grant asked — or the send
// fails before dispatch with the page's words, nothing typed, nothing clicked. Each
// scenario is named after its rule.
//
// Registered by run.mjs: `attachmentScenarios({scenario, ready, fakeState, fakeConfig,
// fakeRelease, fakeBytes, conversation})`.

import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createKey, mcpClient, openaiClient, within } from './lib/doors.mjs';
import { gradientPng } from './fake-chatgpt/images.mjs';
import { waitFor } from './lib/wait.mjs';

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/**
 * A real PNG of `width`×`height` RGB pixels (a colour gradient), its image data stored
 * uncompressed so the file is as large as the pixels: 1280×1366 is ≈ 5.2 MB.
 */
export const png = (width = 1280, height = 1366) => gradientPng(width, height);

/** A small, valid one-page PDF. */
export function pdf() {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    '<< /Length 58 >>\nstream\nBT /F1 18 Tf 24 72 Td (Custody notes, page one.) Tj ET\nendstream',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

export function attachmentScenarios({ scenario: register, ready, fakeState, fakeConfig, fakeRelease, fakeBytes, conversation }) {
  /** Every scenario here is also chosen by the word `attachments`. */
  const scenario = (name, fn) => register(name, fn, 'attachments');
  /** Stores a file with the owner; returns its sha256 (checked against the bytes). */
  async function store(w, name, bytes, mime) {
    const r = await w.owner.upload(name, bytes, mime);
    assert.ok(r.status === 201 || r.status === 200, `POST /v1/attachments answers 201: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.attachment.sha256, sha256(bytes), 'content-addressed by SHA-256');
    assert.equal(r.body.attachment.size, bytes.length);
    return r.body.attachment.sha256;
  }

  const composer = (page) =>
    page.evaluate(() => ({
      text: document.querySelector('#prompt-textarea').textContent,
      chips: [...document.querySelectorAll('[data-testid="file-chip"]')].map((c) => c.querySelector('[data-testid="file-chip-name"]').textContent),
    }));

  /** The attachments the owner recorded with a send (its view), as `[name, size, file id]`. */
  const recorded = (view) => view.attachments.map((a) => [a.name, a.size, a.file_id || null]);

  scenario('a_png_and_a_pdf_go_with_one_send_in_one_conversation_post_byte_identical_at_the_blob_store', async (w) => {
    const a = conversation();
    const [page] = await ready(w, { conversations: [a] });
    const image = png();
    const doc = pdf();
    const shas = [await store(w, 'gradient.png', image, 'image/png'), await store(w, 'custody-notes.pdf', doc, 'application/pdf')];
    // The PDF's PUT is held at the blob store: the composer shows the PNG uploaded and the
    // PDF still uploading, and nothing is typed meanwhile.
    await fakeConfig({ upload_hold: 'custody-notes.pdf' });
    const op = await w.queue('Two files: a gradient and a page of notes.', { conversation_id: a, attachments: shas });
    await waitFor(async () => (await fakeState()).held_uploads === 1, { what: "the PDF's upload to be held" });
    await page.waitForSelector('[data-testid="file-chip"][data-state="done"]');
    const during = await composer(page);
    assert.deepEqual(during, { text: '', chips: ['gradient.png', 'custody-notes.pdf'] }, 'both files attached, nothing typed while one uploads');
    await w.screenshot(page, '.chips-uploading');
    await fakeConfig({ upload_hold: false });
    await fakeRelease();
    const view = await w.until(op, 'completed', 60_000);
    const st = await fakeState();
    assert.equal(st.posts, 1, 'one conversation POST');
    assert.equal(st.clicks, 1, 'one click');
    const req = st.requests[0];
    const byName = Object.fromEntries(st.files.map((f) => [f.name, f]));
    assert.deepEqual(req.attachments.map((f) => [f.id, f.name, f.size]), [
      [byName['gradient.png'].file_id, 'gradient.png', image.length],
      [byName['custody-notes.pdf'].file_id, 'custody-notes.pdf', doc.length],
    ], 'the request names both files, in order, by the page\'s file ids');
    assert.equal(req.content_type, 'multimodal_text');
    assert.deepEqual(req.pointers.map((p) => [p.asset_pointer, p.size_bytes, p.width, p.height]), [[`file-service://${byName['gradient.png'].file_id}`, image.length, 1280, 1366]], "the image's asset pointer");
    assert.equal(req.text, 'Two files: a gradient and a page of notes.', 'the text beside them');
    assert.ok((await fakeBytes(`/__test/blob/${byName['gradient.png'].file_id}`)).equals(image), 'the PNG at the blob store is byte-identical');
    assert.ok((await fakeBytes(`/__test/blob/${byName['custody-notes.pdf'].file_id}`)).equals(doc), 'the PDF at the blob store is byte-identical');
    assert.equal(st.files.length, 2, 'each file uploaded once');
    assert.deepEqual(recorded(view), [
      ['gradient.png', image.length, byName['gradient.png'].file_id],
      ['custody-notes.pdf', doc.length, byName['custody-notes.pdf'].file_id],
    ], "the send records its attachments with the page's file ids from the grant");
    assert.deepEqual(view.page_attachments.seen.map((f) => f.file_id), req.attachments.map((f) => f.id), "the page's request's files recorded with the receipt");
    assert.equal(view.page_attachments.mismatch, null, 'no attachment_mismatch');
    const notes = view.timeline.filter((e) => /mismatch/.test(e.evidence || ''));
    assert.deepEqual(notes, [], 'no mismatch note');
  });

  scenario('ten_files_one_of_32_mib_go_with_one_send_byte_identical_and_never_into_a_log_or_storage', async (w) => {
    // The bounds at their edges: a send's ten files, the largest exactly 32 MiB (through the
    // owner, the worker's message to the tab, the page's input and the blob PUT); the page's
    // own limit raised above it.
    const a = conversation();
    await fakeConfig({ file_limit: 40 * 1024 * 1024 });
    const [page] = await ready(w, { conversations: [a] });
    const big = randomBytes(32 * 1024 * 1024);
    const files = [{ name: 'archive.bin', bytes: big, mime: 'application/octet-stream' }];
    for (let i = 1; i <= 9; i += 1) files.push({ name: `tile-${i}.png`, bytes: png(16 + i, 16), mime: 'image/png' });
    const shas = [];
    for (const f of files) shas.push(await store(w, f.name, f.bytes, f.mime));
    const op = await w.queue('Ten files, one of them as large as a file may be.', { conversation_id: a, attachments: shas });
    const view = await w.until(op, 'completed', 120_000);
    const st = await fakeState();
    assert.equal(st.posts, 1, 'one conversation POST');
    assert.deepEqual(st.requests[0].attachments.map((f) => [f.name, f.size]), files.map((f) => [f.name, f.bytes.length]), 'all ten, in order');
    assert.equal(st.requests[0].pointers.length, 9, "an asset pointer per image");
    for (const f of files) {
      const at = st.files.find((x) => x.name === f.name);
      assert.ok((await fakeBytes(`/__test/blob/${at.file_id}`)).equals(f.bytes), `${f.name} byte-identical at the blob store`);
    }
    assert.equal(view.page_attachments.mismatch, null);
    // The bytes and the names stay out of logs and storage (the profile's store keeps the bytes).
    const samples = files.map((f) => f.bytes.subarray(0, 48).toString('base64')); // each file's first bytes, as base64
    const worker = await w.worker();
    const stored = JSON.stringify(await worker.evaluate(async () => ({ ...(await chrome.storage.local.get(null)), ...(await chrome.storage.session.get(null)) })));
    const pageStorage = await page.evaluate(() => JSON.stringify({ l: { ...localStorage }, s: { ...sessionStorage } }));
    const log = fs.readFileSync(w.ownerLog, 'utf8');
    for (const [where, text] of [['extension storage', stored], ['page storage', pageStorage], ["the owner's log", log], ['the console', w.console.join('\n')]]) {
      assert.ok(!samples.some((b) => text.includes(b)), `no bytes in ${where}`);
      assert.ok(!files.some((f) => text.includes(f.name)), `no file name in ${where}`);
    }
  });

  scenario('files_go_in_by_a_drop_on_the_composer_when_the_page_shows_no_file_input', async (w) => {
    const a = conversation();
    await fakeConfig({ file_input: false });
    const [page] = await ready(w, { conversations: [a] });
    assert.equal(await page.locator('input[type="file"]').count(), 0, 'the page has no file input');
    const doc = pdf();
    const sha = await store(w, 'dropped.pdf', doc, 'application/pdf');
    const op = await w.queue('A file dropped on the composer.', { conversation_id: a, attachments: [sha] });
    await w.until(op, 'completed', 30_000);
    const st = await fakeState();
    assert.equal(st.posts, 1);
    assert.deepEqual(st.requests[0].attachments.map((f) => [f.id, f.name, f.size]), [[st.files[0].file_id, 'dropped.pdf', doc.length]]);
    assert.ok((await fakeBytes(`/__test/blob/${st.files[0].file_id}`)).equals(doc), 'byte-identical at the blob store');
  });

  scenario('a_file_the_page_refuses_fails_the_send_before_dispatch_with_the_pages_words', async (w) => {
    const a = conversation();
    const [page] = await ready(w, { conversations: [a] });
    // A type the page refuses outright.
    const exe = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(510, 1)]);
    const bad = await store(w, 'setup.exe', exe, 'application/x-msdownload');
    const op = await w.queue('Never typed: the page refuses the file.', { conversation_id: a, attachments: [bad] });
    const { send } = await w.until(op, 'rejected', 30_000);
    assert.match(send.evidence, /the page refused the attachment "setup\.exe" \("Files of this type are not supported\."\): nothing was typed/);
    // A file over the page's own size limit (1 MiB here), beside one it takes.
    await fakeConfig({ file_limit: 1024 * 1024 });
    const big = Buffer.alloc(2 * 1024 * 1024, 3);
    const shas = [await store(w, 'notes.pdf', pdf(), 'application/pdf'), await store(w, 'dump.bin', big, 'application/octet-stream')];
    const second = await w.queue('Never typed either: one file is too large for the page.', { conversation_id: a, attachments: shas });
    const refused = (await w.until(second, 'rejected', 30_000)).send;
    assert.match(refused.evidence, /the page refused the attachment "dump\.bin" \("This file is too large\. Files can be at most 1 MB\."\): nothing was typed/);
    // An upload the blob store fails.
    await fakeConfig({ file_limit: false, upload_fail: true });
    const third = await w.queue('Never typed: the upload fails.', { conversation_id: a, attachments: [shas[0]] });
    const failed = (await w.until(third, 'rejected', 30_000)).send;
    assert.match(failed.evidence, /the page refused the attachment "notes\.pdf" \("The upload failed\. Remove the file and try again\."\): nothing was typed/);
    const st = await fakeState();
    assert.equal(st.clicks + st.posts + st.enter_submits, 0, 'nothing clicked, posted or submitted');
    await waitFor(async () => JSON.stringify(await composer(page)) === JSON.stringify({ text: '', chips: [] }), { what: 'the chips to be removed, nothing typed' });
  });

  scenario('an_upload_the_page_never_finishes_fails_the_send_before_dispatch_at_the_tabs_bound', async (w) => {
    // The blob store holds the PUT and never answers: the tab's bound (40 s for a send's
    // files, under the owner's 60 s claim bound) ends the wait, and the send fails before
    // dispatch with the file named.
    const a = conversation();
    const [page] = await ready(w, { conversations: [a] });
    const sha = await store(w, 'stuck.pdf', pdf(), 'application/pdf');
    await fakeConfig({ upload_hold: true });
    const op = await w.queue('Never typed: the upload never ends.', { conversation_id: a, attachments: [sha] });
    const { send } = await w.until(op, 'rejected', 120_000);
    assert.match(send.evidence, /the page did not show "stuck\.pdf" as uploaded within 40 s: nothing was typed/);
    const st = await fakeState();
    assert.equal(st.held_uploads, 1, 'the upload was still held');
    assert.equal(st.clicks + st.posts, 0, 'nothing clicked');
    assert.deepEqual(await composer(page), { text: '', chips: [] }, 'the file removed, nothing typed');
  });

  scenario('files_a_person_left_in_the_composer_keep_a_send_from_being_typed_there', async (w) => {
    const a = conversation();
    const [page] = await ready(w, { conversations: [a] });
    // The person attached two files themselves: one the page took, one it refused.
    await page.setInputFiles('input[type="file"]', [
      { name: 'holiday.pdf', mimeType: 'application/pdf', buffer: pdf() },
      { name: 'tool.exe', mimeType: 'application/x-msdownload', buffer: Buffer.from('MZ') },
    ]);
    await page.waitForSelector('[data-testid="file-chip"][data-state="error"]');
    await page.waitForSelector('[data-testid="file-chip"][data-state="done"]');
    const op = await w.queue('Would go out with the person\'s files.', { conversation_id: a });
    const { send } = await w.until(op, 'rejected', 30_000);
    assert.match(send.evidence, /the composer holds attached files: send or remove them in the ChatGPT tab, then queue again; nothing was typed/);
    assert.deepEqual(await composer(page), { text: '', chips: ['holiday.pdf', 'tool.exe'] }, "the person's files stay; nothing typed");
    const st = await fakeState();
    assert.equal(st.clicks + st.posts, 0, 'nothing clicked');
    await w.screenshot(page, '.chips-refused');
  });

  scenario('a_page_request_without_one_of_the_files_completes_once_with_the_attachment_mismatch_shown', async (w) => {
    // The page showed both files uploaded (the grant matched them) but its conversation
    // request names only the first: the owner notes the difference; nothing is resent.
    const a = conversation();
    await fakeConfig({ request_files: 'drop_last' });
    await ready(w, { conversations: [a] });
    const shas = [await store(w, 'first.pdf', pdf(), 'application/pdf'), await store(w, 'second.png', png(32, 32), 'image/png')];
    const op = await w.queue('Two files, the page sends one.', { conversation_id: a, attachments: shas });
    const view = await w.until(op, 'completed', 30_000);
    const st = await fakeState();
    assert.equal(st.posts, 1, 'one POST, never a second');
    assert.equal(st.clicks, 1);
    assert.deepEqual(st.requests[0].attachments.map((f) => f.name), ['first.pdf'], 'the request named one file');
    assert.match(view.page_attachments.mismatch || '', /second\.png/, `the mismatch names the missing file: ${view.page_attachments.mismatch}`);
    assert.ok(view.timeline.some((e) => (e.evidence || '').startsWith('attachment_mismatch')), 'an attachment_mismatch note on the timeline');
    assert.match(w.cli(['show', op]), /MISMATCH   .*second\.png/, '`show` prints it');
    const { body } = await w.owner.request('GET', '/v1/queue');
    const row = ['pending', 'uncertain', 'stopped', 'history'].flatMap((k) => body[k] || []).find((r) => r.op_id === op);
    assert.match((row && row.mismatch) || '', /^attachment_mismatch: .*second\.png/, "the queue's row carries the mismatch the window shows in red");
  });

  /** The send's files as the page's request named them and as the blob store holds them. */
  async function filesAtThePage(view) {
    const st = await fakeState();
    assert.equal(st.posts, 1, 'one conversation POST');
    assert.equal(st.clicks, 1, 'one click');
    const named = st.requests[0].attachments;
    assert.deepEqual(named.map((f) => [f.name, f.size]), view.attachments.map((a) => [a.name, a.size]), "the request names the send's files, in order");
    const held = [];
    for (const f of named) held.push(await fakeBytes(`/__test/blob/${f.id}`));
    return { named, held };
  }

  scenario('an_image_and_a_pdf_through_the_openai_sdk_reach_the_page_in_one_post_byte_identical', async (w) => {
    const a = conversation();
    await ready(w, { conversations: [a] });
    const image = png(120, 80);
    const doc = pdf();
    const client = openaiClient(w.owner.address, createKey(w.profile, 'files-companion'));
    const completion = await within(
      client.chat.completions.create({
        model: 'chatgpt-tab',
        metadata: { conversation_id: a },
        messages: [{
          role: 'user',
          content: [
            { type: 'text', text: 'What is in the picture and the notes?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${image.toString('base64')}` } },
            { type: 'file', file: { file_data: `data:application/pdf;base64,${doc.toString('base64')}`, filename: 'notes.pdf' } },
          ],
        }],
      }),
      60_000,
      'the completion',
    );
    assert.match(completion.choices[0].message.content, /^Received \d+ characters on the local chatgpt\.com test double/, "the page's answer");
    const { body } = await w.owner.request('GET', '/v1/sends');
    const view = await w.send(body.sends[0].op_id);
    const { named, held } = await filesAtThePage(view);
    assert.deepEqual(named.map((f) => f.mime_type), ['image/png', 'application/pdf']);
    assert.equal(named[1].name, 'notes.pdf', "the file part's filename");
    assert.ok(held[0].equals(image) && held[1].equals(doc), 'both byte-identical at the blob store');
  });

  scenario('an_input_file_and_an_input_image_through_the_responses_api_reach_the_page_in_one_post', async (w) => {
    const a = conversation();
    await ready(w, { conversations: [a] });
    const image = png(64, 64);
    const doc = pdf();
    const client = openaiClient(w.owner.address, createKey(w.profile, 'responses-companion'));
    const response = await within(
      client.responses.create({
        model: 'chatgpt-tab',
        metadata: { conversation_id: a },
        input: [{
          role: 'user',
          content: [
            { type: 'input_text', text: 'Summarise the report and the chart.' },
            { type: 'input_file', filename: 'report.pdf', file_data: `data:application/pdf;base64,${doc.toString('base64')}` },
            { type: 'input_image', image_url: `data:image/png;base64,${image.toString('base64')}`, detail: 'auto' },
          ],
        }],
      }),
      60_000,
      'the response',
    );
    assert.match(response.output_text, /^Received \d+ characters on the local chatgpt\.com test double/, "the page's answer");
    const { body } = await w.owner.request('GET', '/v1/sends');
    const { named, held } = await filesAtThePage(await w.send(body.sends[0].op_id));
    assert.equal(named[0].name, 'report.pdf', 'in the order of the input');
    assert.ok(held[0].equals(doc) && held[1].equals(image), 'both byte-identical at the blob store');
  });

  scenario('a_file_by_path_through_the_mcp_tool_reaches_the_page_in_one_post_byte_identical', async (w) => {
    const a = conversation();
    await ready(w, { conversations: [a] });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sendledger-mcp-file-'));
    const file = path.join(dir, 'drawing.png');
    const image = png(200, 120);
    fs.writeFileSync(file, image);
    const mcp = await mcpClient(w.profile, path.join(path.dirname(w.ownerLog), `${w.name}.mcp.log`));
    try {
      const r = await mcp.call('send_message', { text: 'A drawing, by path.', conversation_id: a, idempotency_key: 'mcp-file-1', attachments: [{ path: file }], wait_seconds: 30 });
      assert.equal(r.isError, false, r.text);
      assert.equal(r.result.status, 'completed', r.text);
    } finally {
      await mcp.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const view = await w.send('mcp-mcp-file-1');
    const { named, held } = await filesAtThePage(view);
    assert.deepEqual(named.map((f) => f.name), ['drawing.png']);
    assert.ok(held[0].equals(image), 'byte-identical at the blob store');
  });

  scenario('owner_killed_during_the_upload_clicks_nothing_and_the_send_is_rejected_or_uncertain', async (w) => {
    const a = conversation();
    const [page] = await ready(w, { conversations: [a] });
    const sha = await store(w, 'notes.pdf', pdf(), 'application/pdf');
    await fakeConfig({ upload_hold: true });
    const op = await w.queue('Caught mid-upload.', { conversation_id: a, attachments: [sha] });
    await waitFor(async () => (await fakeState()).held_uploads === 1, { what: 'the upload to be held' });
    const port = w.owner.port;
    await w.owner.kill('SIGKILL');
    await w.startOwner(port);
    const { send } = await w.until(op, ['rejected', 'uncertain']);
    assert.ok(send.evidence, 'the person sees why');
    await fakeConfig({ upload_hold: false });
    await fakeRelease(); // the page finishes its upload; the tab's lease is gone
    await waitFor(async () => (await w.leaseCount()) > 0, { what: 'the tab to lease the new owner' });
    await waitFor(async () => JSON.stringify(await composer(page)) === JSON.stringify({ text: '', chips: [] }), { what: 'the composer emptied of the send', ms: 30_000 });
    let st = await fakeState();
    assert.equal(st.clicks + st.posts, 0, 'nothing clicked, no conversation POST');
    assert.equal((await w.send(op)).send.state, send.state, 'the send stays as recovery left it');
    // The tab works on: the next send with the same file goes out there, once.
    const next = await w.queue('After the restart, with the file.', { conversation_id: a, attachments: [sha] });
    await w.until(next, 'completed', 30_000);
    st = await fakeState();
    assert.equal(st.posts, 1);
    assert.deepEqual(st.requests[0].attachments.map((f) => f.name), ['notes.pdf']);
  });

  scenario('owner_killed_after_the_click_leaves_the_send_uncertain_with_its_attachments_recorded', async (w) => {
    const a = conversation();
    await ready(w, { conversations: [a] });
    const image = png(64, 48);
    const sha = await store(w, 'small.png', image, 'image/png');
    await fakeConfig({ hold: 'response' });
    const op = await w.queue('Sent with a picture, then the owner dies.', { conversation_id: a, attachments: [sha] });
    await waitFor(async () => (await fakeState()).clicks === 1, { what: 'the granted click' });
    assert.equal((await w.send(op)).send.state, 'dispatched', 'the click came after the dispatch commit');
    const port = w.owner.port;
    await w.owner.kill('SIGKILL');
    await w.startOwner(port);
    const view = await w.send(op);
    assert.equal(view.send.state, 'uncertain', 'recovery makes a dispatched send uncertain, never queued again');
    const st = await fakeState();
    assert.deepEqual(recorded(view), [['small.png', image.length, st.files[0].file_id]], "its attachment recorded, with the page's file id");
    assert.equal(st.posts, 1, 'one conversation POST');
    assert.deepEqual(st.requests[0].attachments.map((f) => [f.name, f.size]), [['small.png', image.length]]);
    await fakeConfig({ hold: false });
    await fakeRelease();
    await w.until(op, ['accepted', 'completed']);
    assert.equal((await fakeState()).clicks, 1, 'clicked once in all');
  });
}
