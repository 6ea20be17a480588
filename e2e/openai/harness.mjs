// The node tests' harness: a real `sendledger serve` child ($SENDLEDGER_BIN) on a free port
// with a fresh profile and a named key made with the CLI, restartable on the same port
// (SIGKILL included); the page played by player.py (`--page`: it grants and answers every
// send it is handed, printing each grant — the page's POSTs); the ledger's sends.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const BIN = process.env.SENDLEDGER_BIN ?? join(here, '../../target/debug/sendledger');
const PYTHON = process.env.SENDLEDGER_PYTHON ?? 'python3';
const LOGS = process.env.SENDLEDGER_E2E_LOGS;

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Resolves with the first line of `child`'s stdout matching `pattern` (bound: 30 s). */
export function lineOf(child, pattern) {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} within 30 s`)), 30_000);
    rl.on('line', (line) => {
      if (pattern.test(line)) { clearTimeout(timer); resolve(line); }
    });
    child.on('exit', (code) => reject(new Error(`exited (${code}) before ${pattern}`)));
  });
}

/** The owner: `{profile, port, key, baseURL, kill(), restart(), stop(), sends()}`; `env`
 * is added to its environment (e.g. SENDLEDGER_OPENAI_HOLD_MS); `name` names its log. */
export async function owner({ env = {}, name = 'node-owner' } = {}) {
  const profile = join(mkdtempSync(join(tmpdir(), 'sl-openai-')), 'profile');
  mkdirSync(profile, { mode: 0o700 });
  const port = await freePort();
  const log = LOGS ? openSync(join(LOGS, `${name.replace(/[^\w-]+/g, '_')}.log`), 'a') : 'ignore';
  const o = { profile, port, baseURL: `http://127.0.0.1:${port}/v1`, serve: null };
  o.start = async () => {
    o.serve = spawn(BIN, ['--profile', profile, 'serve', '--port', String(port)], {
      stdio: ['ignore', 'pipe', log], env: { ...process.env, SENDLEDGER_LOG: 'debug', ...env },
    });
    await lineOf(o.serve, /^port /);
  };
  o.kill = () => new Promise((resolve) => { o.serve.once('exit', resolve); o.serve.kill('SIGKILL'); });
  o.restart = async () => { await o.kill(); await o.start(); };
  o.stop = () => { if (o.serve.exitCode === null) o.serve.kill('SIGTERM'); };
  o.sends = async () => {
    const token = readFileSync(join(profile, 'client.token'), 'utf8').trim();
    const r = await fetch(`${o.baseURL}/sends?limit=1000`, { headers: { authorization: `Bearer ${token}` } });
    return (await r.json()).sends;
  };
  /** `GET /v1/sends/{op}`: the send, its destination (with its site) and its timeline. */
  o.show = async (op) => {
    const token = readFileSync(join(profile, 'client.token'), 'utf8').trim();
    const r = await fetch(`${o.baseURL}/sends/${op}`, { headers: { authorization: `Bearer ${token}` } });
    return r.json();
  };
  await o.start();
  const made = JSON.parse(execFileSync(BIN, ['--profile', profile, '--json', 'keys', 'create', 'node-companion', '--by', 'tester']));
  o.key = made.secret;
  return o;
}

/** The page (player.py --page) of a tab of `site` ('chatgpt' | 'claude'): grants every
 * send it is handed and, unless `answer` is null, answers it `delayS` after the grant, in
 * that site's traffic. `{ready, grants: [op ids], granted, stop()}`; `granted` resolves at
 * the first grant. */
export function page(o, answer, delayS = 0, site = 'chatgpt') {
  const p = spawn(PYTHON, [join(here, 'player.py'), '--page', String(o.port), o.profile, answer ?? '-', String(delayS), site],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  const grants = [];
  let first;
  const granted = new Promise((resolve) => { first = resolve; });
  createInterface({ input: p.stdout }).on('line', (line) => {
    const said = JSON.parse(line);
    if (said.granted) { grants.push(said.granted); first(said.granted); }
  });
  return { ready: lineOf(p, /"ready"/), grants, granted, stop: () => p.kill('SIGTERM') };
}

/** Runs `body(o)` with an owner, stopping it (and every page started) however it ends. */
export async function withOwner(opts, body) {
  const o = await owner(opts);
  const pages = [];
  try {
    return await body(o, (answer, delayS) => { const p = page(o, answer, delayS); pages.push(p); return p; });
  } finally {
    pages.forEach((p) => p.stop());
    o.stop();
  }
}
