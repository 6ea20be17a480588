// The OpenAI door driven by the official `openai` npm package (pinned in package.json)
// with node's own test runner: a real `sendledger serve` child ($SENDLEDGER_BIN), a named
// key made with the CLI, and the extension played by player.py over HTTP (harness.mjs: it
// prints each dispatch grant — the page's POSTs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import OpenAI from 'openai';
import { BIN, owner, page } from './harness.mjs';

const ANSWER = 'Two lines, one send:\nthe ledger remembers.';

function player(o) {
  const p = page(o, ANSWER);
  const done = p.granted.then(async () => {
    for (let i = 0; i < 600 && (await o.sends()).some((s) => s.state !== 'completed'); i += 1) {
      await new Promise((r) => setTimeout(r, 50)); // the caller has its answer: bounded at 30 s
    }
    p.stop();
    return { grants: p.grants.length };
  });
  return { ready: p.ready, done };
}

const sends = (o) => o.sends();

test('a completion is the page\'s final answer from exactly one post (node SDK)', async () => {
  const o = await owner();
  try {
    const p = player(o);
    await p.ready;
    const client = new OpenAI({ baseURL: o.baseURL, apiKey: o.key });
    const { data, response } = await client.chat.completions
      .create({ model: 'chatgpt-tab', messages: [{ role: 'user', content: 'Two lines, please.' }] })
      .withResponse();
    const played = await p.done;
    assert.equal(data.choices[0].message.content, ANSWER);
    assert.equal(data.model, 'gpt-sl-test');
    assert.equal(data.id, `chatcmpl-${response.headers.get('x-sendledger-operation-id')}`);
    assert.equal(data.usage, null);
    assert.equal(played.grants, 1);
    assert.equal((await sends(o)).length, 1);
  } finally {
    o.serve.kill('SIGTERM');
  }
});

test('streamed deltas concatenate to the answer from exactly one post (node SDK)', async () => {
  const o = await owner();
  try {
    const p = player(o);
    await p.ready;
    const client = new OpenAI({ baseURL: o.baseURL, apiKey: o.key });
    const stream = await client.chat.completions.create({
      model: 'chatgpt-tab', stream: true, messages: [{ role: 'user', content: 'Stream two lines.' }],
    });
    let text = '';
    let pieces = 0;
    let finish = null;
    for await (const chunk of stream) {
      const c = chunk.choices[0];
      if (c.delta.content) { text += c.delta.content; pieces += 1; }
      finish = c.finish_reason ?? finish;
    }
    const played = await p.done;
    assert.equal(text, ANSWER);
    assert.ok(pieces >= 2, `the answer came in pieces (${pieces})`);
    assert.equal(finish, 'stop');
    assert.equal(played.grants, 1);
  } finally {
    o.serve.kill('SIGTERM');
  }
});

test('a revoked key gets 401 with no retry (node SDK)', async () => {
  const o = await owner();
  try {
    execFileSync(BIN, ['--profile', o.profile, '--json', 'keys', 'revoke', 'node-companion', '--by', 'tester']);
    const client = new OpenAI({ baseURL: o.baseURL, apiKey: o.key });
    await assert.rejects(
      client.chat.completions.create({ model: 'chatgpt-tab', messages: [{ role: 'user', content: 'hi' }] }),
      (e) => e instanceof OpenAI.AuthenticationError && e.headers.get('x-should-retry') === 'false',
    );
    assert.equal((await sends(o)).length, 0);
  } finally {
    o.serve.kill('SIGTERM');
  }
});

test('claude-tab goes to a claude.ai tab and the SDK\'s retry after its timeout is the same one send (node SDK)', async () => {
  const o = await owner({ name: 'node-claude' });
  try {
    const p = page(o, ANSWER, 2.5, 'claude');
    await p.ready;
    // The SDK times out at 1.5 s, before the page answers, and retries on its own.
    const client = new OpenAI({ baseURL: o.baseURL, apiKey: o.key, timeout: 1500 });
    const { data, response } = await client.chat.completions
      .create({ model: 'claude-tab', messages: [{ role: 'user', content: 'Two lines, please.' }] })
      .withResponse();
    p.stop();
    assert.equal(data.choices[0].message.content, ANSWER);
    assert.equal(data.model, 'claude-sonnet-4-6', 'the model is the claude.ai page\'s');
    assert.equal(response.headers.get('x-sendledger-attached'), 'true', 'the answer came to the retry');
    const op = response.headers.get('x-sendledger-operation-id');
    assert.deepEqual(p.grants, [op], 'one completion POST of the page');
    assert.deepEqual((await sends(o)).map((s) => s.op_id), [op], 'one send');
    assert.equal((await o.show(op)).destination.site, 'claude');
  } finally {
    o.serve.kill('SIGTERM');
  }
});
