// Every retry is the same send, whatever the client (issue 24): the Vercel AI SDK
// (`ai`'s generateText, default maxRetries 2) through `@ai-sdk/openai-compatible`'s chat
// model, `@ai-sdk/openai`'s default model (the Responses API, POST /v1/responses) and its
// `.chat()` model, against a real owner with the page played by player.py. The AI SDK
// marks no retry as a retry and ignores x-should-retry; it retries a dropped connection
// and a headers timeout as fresh requests. Each test counts the page's POSTs (grants) and
// reads the ledger's sends.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, APICallError } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { Agent, fetch as undiciFetch } from 'undici';
import { withOwner } from './harness.mjs';

const ANSWER = 'Two lines, one send:\nthe ledger remembers.';
const PROMPT = 'Two lines about ledgers, please.';

// Node's fetch (undici) with a 2 s headers timeout instead of its default 300 s: the same
// error (UND_ERR_HEADERS_TIMEOUT), which the AI SDK retries, at a scale a test can wait for.
const impatient = new Agent({ headersTimeout: 2_000 });
const fetch2s = (url, init) => undiciFetch(url, { ...init, dispatcher: impatient });

const PROVIDERS = {
  '@ai-sdk/openai-compatible chat': (o, fetch) =>
    createOpenAICompatible({ name: 'sendledger', baseURL: o.baseURL, apiKey: o.key, fetch }).chatModel('chatgpt-tab'),
  "@ai-sdk/openai's default model (Responses API)": (o, fetch) =>
    createOpenAI({ baseURL: o.baseURL, apiKey: o.key, fetch })('chatgpt-tab'),
  '@ai-sdk/openai .chat()': (o, fetch) =>
    createOpenAI({ baseURL: o.baseURL, apiKey: o.key, fetch }).chat('chatgpt-tab'),
};

async function assertOneSend(o, page, state) {
  const sends = await o.sends();
  assert.equal(page.grants.length, 1, `the page saw ${page.grants.length} POSTs`);
  assert.deepEqual(sends.map((s) => s.state), [state]);
  return sends[0].op_id;
}

for (const [name, model] of Object.entries(PROVIDERS)) {
  describe(`Vercel AI SDK, ${name}`, () => {
    test('gets the page\'s answer from one post', () => withOwner({ name: `ai-sdk ${name} answer` }, async (o, startPage) => {
      const page = startPage(ANSWER);
      await page.ready;
      const result = await generateText({ model: model(o), prompt: PROMPT });
      assert.equal(result.text, ANSWER);
      const op = await assertOneSend(o, page, 'completed');
      assert.equal(result.response.headers['x-sendledger-operation-id'], op);
    }));

    test('retrying after an owner SIGKILL attaches to the uncertain send and ends in its no-retry error', () => withOwner({ name: `ai-sdk ${name} sigkill` }, async (o, startPage) => {
      const page = startPage(null); // grants, never answers: the owner dies with the send clicked
      await page.ready;
      const asked = generateText({ model: model(o), prompt: PROMPT }).then((v) => ({ v }), (e) => ({ e }));
      const op = await page.granted;
      await o.restart(); // SIGKILL, then a new owner on the same port and profile
      const { v, e } = await asked;
      assert.equal(v, undefined, `the caller got an answer: ${v?.text}`);
      const last = e.lastError ?? e; // a RetryError after a retried dropped connection
      assert.ok(APICallError.isInstance(last), String(e));
      assert.equal(last.statusCode, 424, last.message);
      assert.equal(last.responseHeaders['x-should-retry'], 'false');
      const error = JSON.parse(last.responseBody).error;
      assert.equal(error.code, 'send_uncertain');
      assert.match(error.message, /do not retry/);
      assert.ok(error.message.includes(op), error.message);
      assert.deepEqual((await o.sends()).map((s) => [s.op_id, s.state]), [[op, 'uncertain']]);
      assert.equal(page.grants.length, 1, `the page saw ${page.grants.length} POSTs`);
    }));

    test('retrying past its headers timeout attaches to the same send and gets the answer', () => withOwner({ name: `ai-sdk ${name} timeout` }, async (o, startPage) => {
      const page = startPage(ANSWER, 5); // attempts at 0 s (2 s), 4 s (held), 10 s
      await page.ready;
      const result = await generateText({ model: model(o, fetch2s), prompt: PROMPT });
      assert.equal(result.text, ANSWER);
      assert.equal(result.response.headers['x-sendledger-attached'], 'true', 'a retry got the answer');
      await assertOneSend(o, page, 'completed');
    }));
  });
}
