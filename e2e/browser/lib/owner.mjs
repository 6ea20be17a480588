// The owner as a real child process: `target/debug/sendledger serve --profile DIR --port N`,
// and a client for its bridge using the client token from the profile.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The owner binary (built by scripts/test-browser.sh). */
export const SENDLEDGER = process.env.SENDLEDGER_BIN || path.join(repo, 'target', 'debug', 'sendledger');

/**
 * Starts `sendledger serve` on `profile` (port 0: any free port, printed as `port N`);
 * `args`: more flags (e.g. `--answer-ms 1000`).
 * Returns `{port, pid, address, request(), upload(), bytes(), kill(signal), exited}`.
 */
export async function startOwner({ profile, port = 0, logFile, args = [] }) {
  const log = fs.openSync(logFile, 'a');
  const child = spawn(SENDLEDGER, ['serve', '--profile', profile, '--port', String(port), ...args], {
    stdio: ['ignore', 'pipe', log],
  });
  let out = '';
  let exitCode = null;
  const exited = new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      exitCode = code ?? signal;
      resolve(exitCode);
    }),
  );
  child.stdout.on('data', (d) => {
    out += d;
    fs.writeSync(log, d);
  });
  await waitFor(() => {
    if (exitCode !== null) throw new Error(`sendledger serve exited (${exitCode}) before listening; see ${logFile}`);
    return /^port (\d+)$/m.test(out);
  }, { ms: 20_000, what: 'sendledger serve to print its port' });
  const boundPort = Number(out.match(/^port (\d+)$/m)[1]);
  const token = fs.readFileSync(path.join(profile, 'client.token'), 'utf8').trim();
  const address = `127.0.0.1:${boundPort}`;

  /** A client-scope request with a raw `body` and `contentType`; answers `{status, body}` (JSON when it parses). */
  async function raw(method, route, body, contentType) {
    const r = await fetch(`http://${address}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(contentType ? { 'content-type': contentType } : {}) },
      body,
    });
    const text = await r.text();
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
    return { status: r.status, body: parsed };
  }

  /** A client-scope request; answers `{status, body}`. */
  const request = (method, route, body) =>
    raw(method, route, body ? JSON.stringify(body) : undefined, body ? 'application/json' : null);

  /**
   * Stores a file as an attachment: `POST /v1/attachments?name=NAME` with the raw bytes and
   * their MIME type (issue 29). Answers `{status, body}`.
   */
  const upload = (name, bytes, mime) => raw('POST', `/v1/attachments?name=${encodeURIComponent(name)}`, bytes, mime);

  /** A client-scope GET answering raw bytes: `{status, headers, bytes}` (a send's artifact). */
  async function bytes(route) {
    const r = await fetch(`http://${address}${route}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: r.status, headers: Object.fromEntries(r.headers), bytes: Buffer.from(await r.arrayBuffer()) };
  }

  return {
    port: boundPort,
    upload,
    bytes,
    pid: child.pid,
    address,
    request,
    exited,
    /** Sends SIGSTOP or SIGCONT (the process stays). */
    signal(sig) {
      process.kill(child.pid, sig);
    },
    /** Sends `signal` and waits for the process to be gone. */
    async kill(signal = 'SIGTERM') {
      if (exitCode !== null) return exitCode;
      child.kill(signal);
      return exited;
    },
  };
}
