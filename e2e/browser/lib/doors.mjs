// The two doors of the owner as their official clients see them: the `openai` npm SDK
// (pinned in package.json) on the bridge's /v1, with a named key made by the CLI, and the
// `@modelcontextprotocol/sdk` client (pinned) spawning `sendledger mcp` over stdio.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import OpenAI from 'openai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SENDLEDGER } from './owner.mjs';

export { OpenAI };

/**
 * Makes a named API key with `sendledger keys create` (through the running owner) and
 * returns its secret (`sk-sl-…`, shown once).
 */
export function createKey(profile, name) {
  const out = execFileSync(SENDLEDGER, ['--profile', profile, '--json', 'keys', 'create', name, '--by', 'e2e']);
  return JSON.parse(out).secret;
}

/**
 * An `openai` client of the owner at `address` (`127.0.0.1:PORT`) with `apiKey`; the SDK's
 * defaults (2 retries, 600 s timeout) unless `options` say otherwise.
 */
export function openaiClient(address, apiKey, options = {}) {
  return new OpenAI({ baseURL: `http://${address}/v1`, apiKey, ...options });
}

/**
 * Starts `sendledger --profile DIR mcp` as the MCP client's child (standard error appended
 * to `logFile`) and connects. Returns `{client, call(name, args), close()}`; `call`
 * answers `{isError, result, text}` (`result`: the structured content).
 */
export async function mcpClient(profile, logFile) {
  const log = fs.openSync(logFile, 'a');
  const transport = new StdioClientTransport({
    command: SENDLEDGER,
    args: ['--profile', profile, 'mcp'],
    stderr: log,
  });
  const client = new Client({ name: 'sendledger-browser-e2e', version: '0.0.0' });
  await client.connect(transport);
  return {
    client,
    async call(name, args = {}) {
      const r = await client.callTool({ name, arguments: args });
      const text = (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
      return { isError: r.isError === true, result: r.structuredContent, text };
    },
    async close() {
      await client.close().catch(() => {});
      fs.closeSync(log);
    },
  };
}

/**
 * `promise`, or a rejection saying that `what` did not happen within `ms` (a bound on a
 * wait, not a timing assertion: the SDKs' own timeout is 600 s).
 */
export function within(promise, ms, what) {
  let timer;
  const bound = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

/**
 * Settles `promise` into `{value}` or `{error}`, so a test can start it and look later;
 * still unsettled after `ms`, it settles into `{error}` saying so.
 */
export function settle(promise, ms = 60_000) {
  return within(promise, ms, 'the client to end').then(
    (value) => ({ value }),
    (error) => ({ error }),
  );
}
