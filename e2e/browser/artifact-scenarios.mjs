// Files out (issue 29), through the real extension in Chromium: an answer's generated image
// (the fake's `answer_images`: an `image_asset_pointer` message before the final text) is
// recorded by the owner as the send's artifact, fetched by the tab through the page's own
// download route while the tab shows that conversation, and handed to the owner, which
// serves it (`GET /v1/sends/{op}/artifacts/{n}`, the Responses door). Each scenario is named
// after its rule; every one is also chosen by the word `artifacts`.
//
// Registered by run.mjs: `artifactScenarios({scenario, ready, fakeState, fakeConfig,
// fakeRelease, fakeBytes, conversation, otherConversation})`.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { REFUSAL } from './fake-chatgpt/artifacts.mjs';
import { createKey, openaiClient, within } from './lib/doors.mjs';
import { waitFor } from './lib/wait.mjs';

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const MIB = 1024 * 1024;

export function artifactScenarios({ scenario: register, ready, fakeState, fakeConfig, fakeRelease, fakeBytes, conversation, otherConversation }) {
  const scenario = (name, fn) => register(name, fn, 'artifacts');

  /** The send's artifacts as its view lists them (contract §3). */
  const artifactsOf = async (w, op) => {
    const view = await w.send(op);
    return view.artifacts || view.send.artifacts || [];
  };

  /** Waits until every artifact of the send is in one of `states` (and there are `count`). */
  async function settled(w, op, count, states = ['stored', 'unavailable'], ms = 60_000) {
    let last = [];
    await waitFor(
      async () => {
        last = await artifactsOf(w, op);
        return last.length === count && last.every((a) => states.includes(a.state));
      },
      { ms, what: `send ${op}'s ${count} artifact(s) to be ${states.join(' or ')}`, detail: async () => `artifacts ${JSON.stringify(last)}; fake ${JSON.stringify((await fakeState()).artifacts)}` },
    );
    return last;
  }

  /** The fake's record of a generated file, by its file id. */
  const generated = async (fileId) => (await fakeState()).artifacts.find((f) => f.file_id === fileId);

  /** The page's thread shows every generated image loaded (the page's own `<img>`s). */
  const imagesShown = (page, n) =>
    page.waitForFunction((count) => {
      const imgs = [...document.querySelectorAll('[data-testid="generated-image"]')];
      return imgs.length >= count && imgs.every((i) => i.complete && i.naturalWidth > 0);
    }, n, { timeout: 20_000 });

  scenario('a_generated_image_comes_back_byte_identical_through_the_pages_own_download_route', async (w) => {
    const a = conversation();
    const [page] = await ready(w, { conversations: [a] });
    await fakeConfig({ answer_images: [{ width: 480, height: 320 }] });
    const op = await w.queue('Draw a sun over a hill.', { conversation_id: a });
    const { send } = await w.until(op, 'completed', 30_000);
    assert.match(send.answer.text, /^Received 23 characters/, "the answer's text is the assistant's, not the image message");
    const [art] = await settled(w, op, 1);
    assert.equal(art.state, 'stored', `stored: ${JSON.stringify(art)}`);
    const fake = (await fakeState()).artifacts;
    assert.equal(fake.length, 1);
    assert.equal(art.file_id, fake[0].file_id, "the page's file id");
    const original = await fakeBytes(`/__test/artifact/${fake[0].file_id}`);
    const served = await w.owner.bytes(`/v1/sends/${op}/artifacts/0`);
    assert.equal(served.status, 200);
    assert.ok(served.bytes.equals(original), 'GET /v1/sends/{op}/artifacts/0 answers the bytes the page generated');
    assert.equal(served.headers['content-type'], 'image/png');
    assert.match(served.headers['content-disposition'] || '', /attachment; filename="generated-1\.png"/, "under the page's file name");
    assert.deepEqual([art.sha256, art.size, art.mime, art.name], [sha256(original), original.length, 'image/png', 'generated-1.png']);
    const f = await generated(art.file_id);
    assert.equal(f.fetches, 1, 'the bytes were fetched once');
    await imagesShown(page, 1);
    await page.locator('[data-testid="generated-image"]').scrollIntoViewIfNeeded();
    await w.screenshot(page, '.thread-with-generated-image');
  });

  scenario('a_generated_files_bytes_and_the_pages_token_stay_out_of_logs_and_storage', async (w) => {
    const a = conversation();
    const [page] = await ready(w, { conversations: [a] });
    await fakeConfig({ answer_images: [{ width: 300, height: 200 }] });
    const op = await w.queue('Draw it and keep it to yourself.', { conversation_id: a });
    await w.until(op, 'completed', 30_000);
    const [art] = await settled(w, op, 1);
    assert.equal(art.state, 'stored');
    const bytes = await fakeBytes(`/__test/artifact/${art.file_id}`);
    const sample = bytes.subarray(64, 112).toString('base64'); // bytes from the picture's data, as base64
    const { accessToken } = JSON.parse((await fakeBytes('/api/auth/session')).toString('utf8'));
    const worker = await w.worker();
    const places = [
      ['extension storage', JSON.stringify(await worker.evaluate(async () => ({ ...(await chrome.storage.local.get(null)), ...(await chrome.storage.session.get(null)) })))],
      ['page storage', await page.evaluate(() => JSON.stringify({ l: { ...localStorage }, s: { ...sessionStorage } }))],
      ["the owner's log", fs.readFileSync(w.ownerLog, 'utf8')],
      ['the console', w.console.join('\n')],
    ];
    for (const [where, text] of places) {
      assert.ok(!text.includes(sample), `no bytes of the generated file in ${where}`);
      assert.ok(!text.includes(accessToken), `the page's access token is not in ${where}`);
    }
  });

  scenario('a_generated_image_in_a_turn_handed_off_to_the_websocket_comes_back_byte_identical', async (w) => {
    const a = conversation();
    await ready(w, { conversations: [a] });
    await fakeConfig({ format: 'handoff', answer_images: [{ width: 200, height: 150 }] });
    const op = await w.queue('Draw it over the WebSocket.', { conversation_id: a });
    await w.until(op, 'completed', 30_000);
    const [art] = await settled(w, op, 1);
    assert.equal(art.state, 'stored', JSON.stringify(art));
    const original = await fakeBytes(`/__test/artifact/${art.file_id}`);
    assert.ok((await w.owner.bytes(`/v1/sends/${op}/artifacts/0`)).bytes.equals(original), 'byte-identical');
    assert.equal((await generated(art.file_id)).fetches, 1);
  });

  scenario('a_generated_image_reaches_the_openai_sdk_through_the_responses_door_as_image_generation_call', async (w) => {
    const a = conversation();
    await ready(w, { conversations: [a] });
    await fakeConfig({ answer_images: [{ width: 320, height: 200 }] });
    const client = openaiClient(w.owner.address, createKey(w.profile, 'image-companion'));
    const response = await within(
      client.responses.create({ model: 'chatgpt-tab', metadata: { conversation_id: a }, input: 'Draw a sun over a hill, please.' }),
      90_000,
      'the response',
    );
    const calls = response.output.filter((o) => o.type === 'image_generation_call');
    assert.equal(calls.length, 1, `one image_generation_call: ${JSON.stringify(response.output.map((o) => o.type))}`);
    assert.equal(calls[0].status, 'completed');
    const fake = (await fakeState()).artifacts;
    const original = await fakeBytes(`/__test/artifact/${fake[0].file_id}`);
    assert.ok(Buffer.from(calls[0].result, 'base64').equals(original), "the SDK's result decodes to the bytes the page generated");
    assert.ok(response.output.findIndex((o) => o.type === 'image_generation_call') < response.output.findIndex((o) => o.type === 'message'), 'the image before the message');
    assert.match(response.output_text, /^Received \d+ characters/, "the page's answer");
    assert.equal((await generated(fake[0].file_id)).fetches, 1, 'fetched once');
  });

  scenario('a_streamed_response_gives_the_openai_sdk_the_generated_image_as_an_output_item', async (w) => {
    const a = conversation();
    await ready(w, { conversations: [a] });
    await fakeConfig({ answer_images: [{ width: 256, height: 160 }] });
    const client = openaiClient(w.owner.address, createKey(w.profile, 'image-stream'));
    const events = await within((async () => {
      const seen = [];
      const stream = await client.responses.create({ model: 'chatgpt-tab', metadata: { conversation_id: a }, input: 'Draw it as you stream.', stream: true });
      for await (const ev of stream) seen.push(ev);
      return seen;
    })(), 90_000, 'the streamed response');
    const types = events.map((e) => e.type);
    const added = events.filter((e) => e.type === 'response.output_item.added' && e.item.type === 'image_generation_call');
    const done = events.filter((e) => e.type === 'response.output_item.done' && e.item.type === 'image_generation_call');
    assert.equal(added.length, 1, `one image item added: ${types.join(', ')}`);
    assert.equal(done.length, 1, 'and done');
    const fake = (await fakeState()).artifacts;
    const original = await fakeBytes(`/__test/artifact/${fake[0].file_id}`);
    assert.ok(Buffer.from(done[0].item.result, 'base64').equals(original), "the item's result decodes to the page's bytes");
    assert.ok(types.includes('response.output_text.delta'), 'the text streamed too');
    const completed = events.find((e) => e.type === 'response.completed');
    assert.ok(completed && completed.response.output.some((o) => o.type === 'image_generation_call' && o.result === done[0].item.result), 'response.completed carries it');
  });

  scenario('the_pages_refusal_to_download_leaves_the_artifact_unavailable_with_its_words_and_the_answer_completed', async (w) => {
    const a = conversation();
    const [page] = await ready(w, { conversations: [a] });
    await fakeConfig({ answer_images: [{ width: 200, height: 120 }], download_refuse: true });
    const op = await w.queue('Draw something the page will not hand out.', { conversation_id: a });
    await w.until(op, 'completed', 30_000);
    const [art] = await settled(w, op, 1);
    assert.equal(art.state, 'unavailable', JSON.stringify(art));
    assert.equal(art.words, REFUSAL.message, "the page's own words");
    const served = await w.owner.bytes(`/v1/sends/${op}/artifacts/0`);
    assert.equal(served.status, 410, 'GET answers 410 artifact_unavailable');
    assert.match(served.bytes.toString('utf8'), /artifact_unavailable/);
    assert.ok(served.bytes.toString('utf8').includes(REFUSAL.message), 'with the words');
    assert.equal((await generated(art.file_id)).fetches, 0, 'no bytes were read');
    assert.equal((await w.send(op)).send.state, 'completed', 'the answer still completed');
    await page.waitForSelector('[data-testid="generated-image-error"]');
    await w.screenshot(page, '.thread-with-refused-image');
  });

  /**
   * The most polls naming a wanted artifact that one page (a document the worker saw first
   * after `since`, ms) had answered: the tab's page opened after `since`, not the one before.
   */
  /** Answered polls of the one page opened after `since`, and how many wanted they named. */
  async function pollsOfNewPage(w, since) {
    const worker = await w.worker();
    const { artifact_polls: polls = [] } = await worker.evaluate(() => chrome.storage.session.get('artifact_polls'));
    const before = new Set(polls.filter((p) => p.at <= since).map((p) => p.document_id));
    const mine = polls.filter((p) => p.at > since && p.status === 200 && !before.has(p.document_id));
    return { answered: mine.length, named: mine.reduce((n, p) => n + (p.wanted || 0), 0) };
  }

  scenario('an_artifact_is_fetched_only_while_the_tab_shows_its_conversation', async (w) => {
    const a = conversation();
    const b = otherConversation();
    const [page] = await ready(w, { conversations: [a] });
    // The page's route is busy when the answer ends: the tab on `a` tries, reads no bytes,
    // and would try again 30 s later; meanwhile the person opens conversation `b` in it.
    await fakeConfig({ answer_images: [{ width: 240, height: 160 }], download_busy: true });
    const op = await w.queue('Draw it, then look elsewhere.', { conversation_id: a });
    await w.until(op, 'completed', 30_000);
    const [pending] = await artifactsOf(w, op);
    await waitFor(async () => (await generated(pending.file_id)).route_calls >= 2, { what: "the tab's try at the busy route (after the page's own)" });
    await fakeConfig({ download_busy: false });
    const away = Date.now();
    await page.goto(`https://chatgpt.com/c/${b}`);
    await page.waitForSelector('html[data-fake-ready="true"]');
    // The tab on `b` asks for `b`'s artifacts only: its long-poll ends with none named, and
    // nothing is fetched. (A fetch meanwhile ends the wait too, and fails the assertions.)
    await waitFor(async () => (await pollsOfNewPage(w, away)).answered >= 1 || (await generated(pending.file_id)).fetches > 0, { what: 'a poll of the tab on b to be answered', ms: 60_000 });
    assert.equal((await generated(pending.file_id)).fetches, 0, 'not fetched while the tab shows another conversation');
    assert.equal((await pollsOfNewPage(w, away)).named, 0, "the tab on b is not told of a's artifact");
    assert.equal((await artifactsOf(w, op))[0].state, 'wanted');
    await page.goto(`https://chatgpt.com/c/${a}`);
    await page.waitForSelector('html[data-fake-ready="true"]');
    const [art] = await settled(w, op, 1);
    assert.equal(art.state, 'stored');
    assert.equal((await generated(art.file_id)).fetches, 1, 'fetched once, when the tab showed its conversation again');
    const original = await fakeBytes(`/__test/artifact/${art.file_id}`);
    assert.ok((await w.owner.bytes(`/v1/sends/${op}/artifacts/0`)).bytes.equals(original));
  });

  scenario('a_generated_image_is_downloaded_once_even_when_the_owner_is_killed_mid_fetch', async (w) => {
    const a = conversation();
    await ready(w, { conversations: [a] });
    await fakeConfig({ answer_images: [{ width: 640, height: 400 }], download_hold: true });
    const op = await w.queue('Draw it while the owner dies.', { conversation_id: a });
    await w.until(op, 'completed', 30_000);
    await waitFor(async () => (await fakeState()).held_downloads === 1, { what: "the tab's fetch of the bytes to be held" });
    const port = w.owner.port;
    await w.owner.kill('SIGKILL');
    await fakeConfig({ download_hold: false });
    await fakeRelease(); // the bytes reach the tab while no owner listens
    await w.startOwner(port);
    const [art] = await settled(w, op, 1);
    assert.equal(art.state, 'stored', JSON.stringify(art));
    const f = await generated(art.file_id);
    assert.equal(f.fetches, 1, 'the bytes were read from the page once: the tab handed its copy to the new owner');
    const original = await fakeBytes(`/__test/artifact/${art.file_id}`);
    assert.ok((await w.owner.bytes(`/v1/sends/${op}/artifacts/0`)).bytes.equals(original), 'byte-identical');
    assert.equal((await artifactsOf(w, op)).length, 1, 'stored once');
  });

  scenario('eleven_generated_images_bring_ten_back_and_the_eleventh_is_named_never_fetched', async (w) => {
    const a = conversation();
    await ready(w, { conversations: [a] });
    await fakeConfig({ answer_images: Array.from({ length: 11 }, () => ({ width: 48, height: 32 })) });
    const op = await w.queue('Eleven small pictures.', { conversation_id: a });
    await w.until(op, 'completed', 30_000);
    const arts = await settled(w, op, 10);
    const fake = (await fakeState()).artifacts;
    assert.deepEqual(arts.map((x) => x.file_id), fake.slice(0, 10).map((f) => f.file_id), 'the first ten, in the answer\'s order');
    assert.ok(arts.every((x) => x.state === 'stored'), JSON.stringify(arts.map((x) => x.state)));
    for (const [i, x] of arts.entries()) {
      const original = await fakeBytes(`/__test/artifact/${x.file_id}`);
      assert.ok((await w.owner.bytes(`/v1/sends/${op}/artifacts/${i}`)).bytes.equals(original), `artifact ${i} byte-identical`);
    }
    const eleventh = fake[10];
    assert.equal((await generated(eleventh.file_id)).fetches, 0, 'the eleventh is never fetched');
    assert.ok(fake.slice(0, 10).every((f) => f.fetches === 1), 'each of the ten fetched once');
    const view = JSON.stringify(await w.send(op));
    assert.ok(view.includes(eleventh.file_id) && view.includes('not fetched'), 'the eleventh is named in a note');
  });

  scenario('generated_files_of_exactly_32_mib_come_back_and_one_byte_more_is_unavailable_with_a_sentence', async (w) => {
    const a = conversation();
    await ready(w, { conversations: [a] });
    await fakeConfig({ answer_images: [{ width: 64, height: 64, bytes: 32 * MIB, name: 'edge.png' }, { width: 64, height: 64, bytes: 32 * MIB + 1, name: 'over.png' }] });
    const op = await w.queue('Two large pictures.', { conversation_id: a });
    await w.until(op, 'completed', 30_000);
    const [edge, over] = await settled(w, op, 2, ['stored', 'unavailable'], 120_000);
    assert.equal(edge.state, 'stored', JSON.stringify(edge));
    assert.equal(edge.size, 32 * MIB);
    const original = await fakeBytes(`/__test/artifact/${edge.file_id}`);
    assert.ok((await w.owner.bytes(`/v1/sends/${op}/artifacts/0`)).bytes.equals(original), 'the 32 MiB file byte-identical');
    assert.equal(over.state, 'unavailable', JSON.stringify(over));
    assert.match(over.words, /larger than the 32 MiB sendledger keeps of one file: open the conversation in ChatGPT to get it/);
  });
}
