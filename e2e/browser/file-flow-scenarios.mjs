// The page's file flow as the live page has it (issue 35), through the real extension in
// Chromium: several file inputs of which two take only images, a page whose first Send
// click starts the uploads, and chips recognised by what they show rather than by one test
// id — built differently, or of a structure the extension cannot read. Each scenario is
// named after its rule and was seen red without it (the commit messages say how).
//
// Registered by run.mjs: `fileFlowScenarios({scenario, ready, fakeState, fakeConfig,
// fakeBytes, conversation})`; chosen by the word `files` too.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { pdf, png } from './attachment-scenarios.mjs';
import { waitFor } from './lib/wait.mjs';

export function fileFlowScenarios({ scenario: register, ready, fakeState, fakeConfig, fakeBytes, conversation }) {
  const scenario = (name, fn) => register(name, fn, 'files');

  async function store(w, name, bytes, mime) {
    const r = await w.owner.upload(name, bytes, mime);
    assert.ok(r.status === 201 || r.status === 200, `POST /v1/attachments answers 201: ${JSON.stringify(r.body)}`);
    return r.body.attachment.sha256;
  }

  /** The composer's text and what it shows of files (any chip structure: its tray's text). */
  const composer = (page) =>
    page.evaluate(() => ({
      text: document.querySelector('#prompt-textarea').textContent,
      files: document.querySelector('.composer-attachments').children.length,
    }));

  /** The owner's log lines that name a page fact on a failed send. */
  const factLogged = (w, id) => fs.readFileSync(w.ownerLog, 'utf8').split('\n').some((l) => l.includes('page_fact') && l.includes(id));

  scenario('a_document_never_goes_into_an_images_only_input', async (w) => {
    // The live page's three inputs: photos (image/*) and camera (a list of image types)
    // come first, the one for files last. A document given to an images-only input stalls
    // at 0 % with no upload request; it must go through the input that takes it.
    const a = conversation();
    await fakeConfig({ file_inputs: 3 });
    const [page] = await ready(w, { conversations: [a] });
    assert.deepEqual(await page.$$eval('form input[type="file"]', (l) => l.map((i) => i.getAttribute('accept'))), [
      'image/*', 'image/png,.png,image/jpeg,.jpg,.jpeg,image/webp,.webp,image/gif,.gif', null,
    ], 'three inputs, two images only, first');
    const doc = pdf();
    const image = png(40, 30);
    const shas = [await store(w, 'notes.pdf', doc, 'application/pdf'), await store(w, 'chart.png', image, 'image/png')];
    const op = await w.queue('A document and a picture, each through an input that takes it.', { conversation_id: a, attachments: shas });
    await w.until(op, 'completed', 60_000);
    const st = await fakeState();
    assert.equal(st.stalled_uploads, 0, 'no file stalled in an images-only input');
    assert.equal(st.posts, 1, 'one conversation POST');
    assert.equal(st.clicks, 1, 'one click');
    assert.deepEqual(st.requests[0].attachments.map((f) => f.name).sort(), ['chart.png', 'notes.pdf']);
    const byName = Object.fromEntries(st.files.map((f) => [f.name, f]));
    assert.ok((await fakeBytes(`/__test/blob/${byName['notes.pdf'].file_id}`)).equals(doc), 'the PDF byte-identical at the blob store');
  });

  scenario('a_file_no_input_takes_fails_before_dispatch_naming_it_and_nothing_is_typed', async (w) => {
    // A page whose only inputs take images (its input for files gone): the document goes
    // nowhere, the send fails at once with the sentence, nothing typed or attached.
    const a = conversation();
    await fakeConfig({ file_inputs: 3 });
    const [page] = await ready(w, { conversations: [a] });
    await page.evaluate(() => document.querySelector('#upload-files').remove());
    const sha = await store(w, 'notes.pdf', pdf(), 'application/pdf');
    const op = await w.queue('Never typed: no input takes the document.', { conversation_id: a, attachments: [sha] });
    const { send } = await w.until(op, 'rejected', 30_000);
    assert.match(send.evidence, /no file input of the page takes attachment 1 \("notes\.pdf"\), of type application\/pdf: its inputs accept only image\/\*; image\/png,[^:]*; nothing was typed/);
    const st = await fakeState();
    assert.equal(st.stalled_uploads + st.file_creates + st.clicks + st.posts, 0, 'nothing given, uploaded, clicked or posted');
    assert.deepEqual(await composer(page), { text: '', files: 0 });
    await waitFor(async () => factLogged(w, 'files.document_input'), { what: 'the page fact in the fail report' });
  });

  scenario('a_first_click_that_starts_the_uploads_is_the_one_click_and_the_page_sends_once', async (w) => {
    // Files wait in the composer (a bar at 0, nothing busy, no upload in the traffic) until
    // the Send click starts their uploads; the page then sends by itself. The tab asks the
    // grant with the files waiting, clicks once, and never again.
    const a = conversation();
    await fakeConfig({ upload_on_send: true });
    await ready(w, { conversations: [a] });
    const doc = pdf();
    const shas = [await store(w, 'first.pdf', doc, 'application/pdf'), await store(w, 'second.png', png(24, 24), 'image/png')];
    const op = await w.queue('Uploaded by the click that sends.', { conversation_id: a, attachments: shas });
    const view = await w.until(op, 'completed', 60_000);
    const st = await fakeState();
    assert.equal(st.clicks, 1, 'exactly one click on Send');
    assert.equal(st.posts, 1, 'exactly one conversation POST');
    assert.deepEqual(st.requests[0].attachments.map((f) => f.name), ['first.pdf', 'second.png'], 'the request names both files');
    assert.equal(st.files.length, 2, 'each file uploaded once, after the click');
    assert.equal(view.page_attachments.mismatch, null, 'the request carries the send\'s files');
    assert.ok((await fakeBytes(`/__test/blob/${st.files.find((f) => f.name === 'first.pdf').file_id}`)).equals(doc));
  });

  scenario('a_file_the_page_fails_to_upload_after_the_one_click_makes_the_send_uncertain_with_its_words_and_nothing_is_clicked_again', async (w) => {
    // The click started the uploads and the blob store fails one: the page shows its words
    // and does not send. The send was clicked (dispatched): it becomes uncertain at once
    // with the page's words, not at its receipt bound; no second click.
    const a = conversation();
    await fakeConfig({ upload_on_send: true, upload_fail: true });
    await ready(w, { conversations: [a] });
    const sha = await store(w, 'notes.pdf', pdf(), 'application/pdf');
    const op = await w.queue('Clicked once; the page could not upload the file.', { conversation_id: a, attachments: [sha] });
    const { send } = await w.until(op, 'uncertain', 30_000);
    assert.match(send.evidence, /^failed after dispatch: the page refused the attachment "notes\.pdf" \("The upload failed\. Remove the file and try again\."\) after the one Send click that started its upload: the page did not send the message/);
    const st = await fakeState();
    assert.equal(st.clicks, 1, 'one click, never a second');
    assert.equal(st.posts, 0, 'the page did not send');
  });

  scenario('chips_built_differently_with_the_same_meaning_let_the_send_go', async (w) => {
    // Other test ids, a role=group tile, a progressbar with a value, a preview button
    // beside the remove button: the same meaning, so the send goes once.
    const a = conversation();
    await fakeConfig({ chips: 'other' });
    const [page] = await ready(w, { conversations: [a] });
    const image = png(30, 20);
    const sha = await store(w, 'tile.png', image, 'image/png');
    const op = await w.queue('With a picture in a differently built chip.', { conversation_id: a, attachments: [sha] });
    await w.until(op, 'completed', 60_000);
    const st = await fakeState();
    assert.equal(st.posts, 1);
    assert.equal(st.clicks, 1);
    assert.deepEqual(st.requests[0].attachments.map((f) => f.name), ['tile.png']);
    assert.equal(await page.locator('[data-testid="file-chip"]').count(), 0, 'no chip of the known test id was ever needed');
  });

  scenario('a_refused_file_in_a_differently_built_chip_fails_with_the_pages_words_not_after_the_bound', async (w) => {
    // The page says its refusal by aria-invalid and the element the chip is described by:
    // read at once, the send fails with those words (not "did not show … as uploaded").
    const a = conversation();
    await fakeConfig({ chips: 'other' });
    const [page] = await ready(w, { conversations: [a] });
    const exe = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200, 1)]);
    const sha = await store(w, 'setup.exe', exe, 'application/x-msdownload');
    const op = await w.queue('Never typed: the page refuses the file.', { conversation_id: a, attachments: [sha] });
    const { send } = await w.until(op, 'rejected', 30_000);
    assert.match(send.evidence, /the page refused the attachment "setup\.exe" \("Files of this type are not supported\."\): nothing was typed/);
    const st = await fakeState();
    assert.equal(st.clicks + st.posts, 0, 'nothing clicked');
    await waitFor(async () => (await composer(page)).files === 0, { what: 'the refused chip removed by its own remove button' });
  });

  scenario('chips_of_an_unknown_structure_fail_the_send_fast_as_not_recognised_and_keep_the_next_send_out', async (w) => {
    // Plain list items whose state is only a percentage: the extension cannot read them.
    // The send fails within the chip bound (5 s), not the upload bound (40 s), naming the
    // fact as not recognised; the file it could not remove keeps a plain send from going.
    const a = conversation();
    await fakeConfig({ chips: 'unknown' });
    const [page] = await ready(w, { conversations: [a] });
    const sha = await store(w, 'notes.pdf', pdf(), 'application/pdf');
    const op = await w.queue('Never typed: the chips are not recognised.', { conversation_id: a, attachments: [sha] });
    const { send } = await w.until(op, 'rejected', 30_000);
    assert.match(send.evidence, /^failed before dispatch: file chips this extension does not recognise \(no chip with a name, a readable state and a remove button for attachment 1 \("notes\.pdf"\) within 5 s\) \[page fact files\.chip\]: nothing was typed/);
    await waitFor(async () => factLogged(w, 'files.chip'), { what: 'the page fact in the fail report' });
    let st = await fakeState();
    assert.equal(st.clicks + st.posts, 0, 'nothing clicked');
    assert.equal((await composer(page)).text, '', 'nothing typed');
    const plain = await w.queue('Would go out with the file left in the composer.', { conversation_id: a });
    const next = (await w.until(plain, 'rejected', 30_000)).send;
    assert.match(next.evidence, /the composer holds attached files/);
    st = await fakeState();
    assert.equal(st.clicks + st.posts, 0, 'still nothing clicked');
  });
}
