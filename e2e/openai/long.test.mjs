// A non-streamed answer that outlasts Node's fetch (undici: 300 s for the response
// headers) ends in one send, and its caller gets the answer or the door's named
// `still_pending` sentence — never a bare timeout after several attempts (issue 24). Real
// Node fetch with its default timeouts, the owner's default hold (240 s), a page that
// answers 6 minutes after its grant. Each client runs concurrently (≈ 6.5 min in all);
// scripts/test-openai.sh starts this file first, in the background.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, APICallError } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import OpenAI from 'openai';
import { withOwner } from './harness.mjs';

const ANSWER = 'Six minutes later:\nstill one send.';
const PROMPT = 'Think long about ledgers.';
const ANSWER_AFTER_S = 360;

/** Each client as `(owner) => ask()`, where ask resolves `{text, headers}` or rejects
 * with `{status, headers, error}` (the door's OpenAI error object) — or anything else. */
const CLIENTS = {
  'Vercel AI SDK, @ai-sdk/openai-compatible chat': (o) => aiSdk(
    createOpenAICompatible({ name: 'sendledger', baseURL: o.baseURL, apiKey: o.key }).chatModel('chatgpt-tab')),
  "Vercel AI SDK, @ai-sdk/openai's default model (Responses API)": (o) => aiSdk(
    createOpenAI({ baseURL: o.baseURL, apiKey: o.key })('chatgpt-tab')),
  'openai-node responses.create': (o) => {
    const client = new OpenAI({ baseURL: o.baseURL, apiKey: o.key });
    return async () => {
      try {
        const { data, response } = await client.responses.create({ model: 'chatgpt-tab', input: PROMPT }).withResponse();
        return { text: data.output_text, headers: Object.fromEntries(response.headers) };
      } catch (e) {
        if (!(e instanceof OpenAI.APIError) || e.status === undefined) throw e;
        throw { status: e.status, headers: Object.fromEntries(e.headers), error: e.error };
      }
    };
  },
};

function aiSdk(model) {
  return async () => {
    try {
      const r = await generateText({ model, prompt: PROMPT });
      return { text: r.text, headers: r.response.headers };
    } catch (e) {
      const last = e.lastError ?? e;
      if (!APICallError.isInstance(last) || last.statusCode === undefined) throw e;
      throw { status: last.statusCode, headers: last.responseHeaders, error: JSON.parse(last.responseBody).error };
    }
  };
}

describe('a six-minute non-streamed answer through Node', { concurrency: true }, () => {
  for (const [name, client] of Object.entries(CLIENTS)) {
    test(`${name}: one send, and the answer or the named still_pending sentence`, { timeout: 900_000 }, () =>
      withOwner({ name: `long ${name}` }, async (o, startPage) => {
        const page = startPage(ANSWER, ANSWER_AFTER_S);
        await page.ready;
        const ask = client(o);
        let got = await ask().then((v) => ({ v }), (e) => ({ e }));
        if (got.e) {
          const { status, headers, error } = got.e;
          assert.equal(status, 424, `not a bare timeout: ${got.e?.stack ?? JSON.stringify(got.e)}`);
          assert.equal(error.code, 'still_pending', error.message);
          assert.equal(headers['x-should-retry'], 'false');
          const op = headers['x-sendledger-operation-id'];
          assert.ok(op && error.message.includes(op), `the sentence names the send: ${error.message}`);
          got = await ask().then((v) => ({ v }), (e) => ({ e })); // the same request again attaches
          assert.equal(got.v?.headers['x-sendledger-attached'], 'true', JSON.stringify(got.e ?? got.v));
          assert.equal(got.v.headers['x-sendledger-operation-id'], op);
        }
        assert.equal(got.v.text, ANSWER);
        assert.deepEqual((await o.sends()).map((s) => s.state), ['completed']);
        assert.equal(page.grants.length, 1, `the page saw ${page.grants.length} POSTs`);
      }));
  }
});
