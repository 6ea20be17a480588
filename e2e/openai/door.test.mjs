// The OpenAI door driven by the official `openai` npm package (pinned in package.json)
// with node's own test runner: a real `sendledger serve` child ($SENDLEDGER_BIN), a named
// key made with the CLI, and the extension played by player.py over HTTP (it prints the
// number of dispatch grants — the page's POSTs — when it has answered one send).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';

const here = dirname(fileURLToPath(import.meta.url));
const BIN = process.env.SENDLEDGER_BIN ?? join(here, '../../target/debug/sendledger');
const PYTHON = process.env.SENDLEDGER_PYTHON ?? 'python3';
const ANSWER = 'Two lines, one send:\nthe ledger remembers.';

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function lineOf(child, pattern) {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} within 30 s`)), 30_000);
    rl.on('line', (line) => {
      if (pattern.test(line)) { clearTimeout(timer); resolve(line); }
    });
    child.on('exit', (code) => reject(new Error(`exited (${code}) before ${pattern}`)));
  });
}

async function owner() {
  const profile = join(mkdtempSync(join(tmpdir(), 'sl-openai-')), 'profile');
  mkdirSync(profile, { mode: 0o700 });
  const port = await freePort();
  const serve = spawn(BIN, ['--profile', profile, 'serve', '--port', String(port)], { stdio: ['ignore', 'pipe', 'ignore'] });
  await lineOf(serve, /^port /);
  const made = JSON.parse(execFileSync(BIN, ['--profile', profile, '--json', 'keys', 'create', 'node-companion', '--by', 'tester']));
  return { profile, port, serve, key: made.secret, baseURL: `http://127.0.0.1:${port}/v1` };
}

function player(o) {
  const p = spawn(PYTHON, [join(here, 'player.py'), String(o.port), o.profile, ANSWER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = lineOf(p, /"ready"/);
  const done = lineOf(p, /"grants"/).then((l) => JSON.parse(l));
  return { ready, done };
}

async function sends(o) {
  const token = readFileSync(join(o.profile, 'client.token'), 'utf8').trim();
  const r = await fetch(`http://127.0.0.1:${o.port}/v1/sends`, { headers: { authorization: `Bearer ${token}` } });
  return (await r.json()).sends;
}

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
