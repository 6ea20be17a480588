// A local HTTPS stand-in for claude.ai, for the browser end-to-end suite (issue 36). Built
// from docs/claude-provider.md's formats (formats.mjs); its own words and uuids.
//
// The page (page.mjs, app.js): a new chat (/new), a conversation (/chat/<uuid>), a Project's
// page (/project/<uuid>), a ProseMirror composer in a fieldset, the model picker, the send
// and stop buttons. The API, under /api/organizations/<ORG>/:
//   POST chat_conversations                      the create call → 201 (formats.created)
//   GET  chat_conversations?…                    the recent list (the page's first call)
//   GET  chat_conversations/<uuid>?tree=True…    the conversation read (404: the error answer)
//   POST chat_conversations/<uuid>/completion    the send: an event stream (message_start,
//        a thinking block, a text block, message_delta, message_limit, message_stop)
//   POST chat_conversations/<uuid>/retry_completion   counted (`retries`): must stay 0
//   POST chat_conversations/<uuid>/stop_response      the page's stop: ends a held answer
// Test routes under /__test/:
//   GET  /__test/state   → {clicks, stop_clicks, completions, creates, reads, retries,
//                           stop_requests, held, requests: [{conversation_id, prompt,
//                           human_uuid, assistant_uuid, parent, model, project_uuid, concurrent}]}
//   POST /__test/config  {hold?: false|"answer"|"response", error?: false|"stream"|"limit"|"limit_only",
//                         picker?: "standard"|"unknown"|"none"} → config
//        hold "answer": message_start, the thinking and the answer's first words, then the
//        stream waits (a release, or the page's stop); "response": no answer at all until a
//        release. error "stream": the answer's first words then an `error` event;
//        "limit": message_start, a `message_limit` exceeded (resetsAt an hour ahead) and an
//        `error` event (tests/fixtures/claude/stream_limit_exceeded.sse's shape); "limit_only":
//        the limit and message_stop, no error (which the live page sends is not known).
//        picker "unknown": its items carry no test id; "none": no picker button.
//   POST /__test/release  releases every hold → {released}
//   POST /__test/reset    zeroes the counts, releases holds, default config, keeps conversations
//
// Run alone: node server.mjs --port 8444 --cert cert.pem --key key.pem

import https from 'node:https';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { IMPORTS, VENDOR } from '../fake-chatgpt/server.mjs';
import * as f from './formats.mjs';
import { page } from './page.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const nodeModules = path.join(here, '..', 'node_modules');
const API = `/api/organizations/${f.ORG}/chat_conversations`;
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const PAGE = new RegExp(`^/(new|chat/${UUID}|project/${UUID})$`);
const CONV = new RegExp(`^${API}/(${UUID})(/completion|/retry_completion|/stop_response)?$`);
const DEFAULTS = { hold: false, error: false, picker: 'standard' };

const fresh = () => ({ clicks: 0, stop_clicks: 0, completions: 0, creates: 0, reads: 0, retries: 0, stop_requests: 0, requests: [] });
const readBody = (req) => new Promise((resolve, reject) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (d) => (body += d));
  req.on('end', () => resolve(body));
  req.on('error', reject);
});
function json(res, status, obj) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(obj));
}

/** Starts the fake. Returns `{port, close()}`. */
export async function startFakeClaude({ cert, key, port = 0, host = '127.0.0.1' }) {
  let config = { ...DEFAULTS };
  let state = fresh();
  const conversations = new Map(); // uuid → {id, project, model, messages: [{uuid, sender, text, parent, stop_reason, at}]}
  const holds = new Set(); // release functions of held answers
  let writing = 0; // answers being written now

  const conversation = (id, project = null, model = f.MODELS[0]) => {
    if (!conversations.has(id)) conversations.set(id, { id, project, model, messages: [] });
    return conversations.get(id);
  };
  const hold = (res) => new Promise((resolve) => {
    const release = () => {
      holds.delete(release);
      resolve();
    };
    holds.add(release);
    res.on('close', release);
  });

  /** The send: one completion, answered as an event stream (formats.mjs). */
  async function completion(req, res, id) {
    const body = JSON.parse((await readBody(req)) || '{}');
    const t = body.turn_message_uuids || {};
    const conv = conversation(id, (body.create_conversation_params || {}).project_uuid || null, body.model);
    const turn = { conversation_id: id, prompt: body.prompt, human_uuid: t.human_message_uuid, assistant_uuid: t.assistant_message_uuid, parent: body.parent_message_uuid, model: body.model, project_uuid: conv.project, concurrent: writing };
    state.completions += 1;
    state.requests.push(turn);
    const at = new Date().toISOString();
    conv.messages.push({ uuid: turn.human_uuid, sender: 'human', text: turn.prompt, parent: turn.parent, at });
    if (config.hold === 'response') await hold(res);
    if (res.destroyed) return;
    const nowS = Math.floor(Date.now() / 1000);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    if (config.error === 'limit') return res.end(f.start(turn) + f.limit('exceeded_limit', nowS + 3600, nowS) + f.error('rate_limit_error', f.WORDS.limit));
    if (config.error === 'limit_only') return res.end(f.start(turn) + f.limit('exceeded_limit', nowS + 3600, nowS) + f.event('message_stop'));
    const [first, rest] = f.answerPieces([...(turn.prompt || '')].length);
    const answer = { uuid: turn.assistant_uuid, sender: 'assistant', text: first, parent: turn.human_uuid, stop_reason: null, at };
    conv.messages.push(answer);
    writing += 1;
    try {
      res.write(f.start(turn) + f.thinkingThenText(first));
      if (config.error === 'stream') return res.end(f.error('overloaded_error', f.WORDS.failed));
      if (config.hold === 'answer') await hold(res);
      if (res.destroyed || answer.stopped) {
        answer.stop_reason = 'user_canceled';
        return res.end();
      }
      answer.text = first + rest;
      answer.stop_reason = 'end_turn';
      res.end(f.finish(rest, nowS));
    } finally {
      writing -= 1;
    }
  }

  async function api(req, res, p, url) {
    if (req.method === 'POST' && p === API) {
      const body = JSON.parse((await readBody(req)) || '{}');
      state.creates += 1;
      return json(res, 201, f.created(conversation(body.uuid, body.project_uuid || null, body.model || f.MODELS[0])));
    }
    if (req.method === 'GET' && p === API) return json(res, 200, []);
    const m = p.match(CONV);
    if (!m) return json(res, 404, f.errorAnswer('not_found_error', 'Not found'));
    const [, id, tail] = m;
    if (req.method === 'GET' && !tail) {
      state.reads += 1;
      if (!conversations.has(id) || url.searchParams.get('tree') !== 'True') return json(res, 404, f.errorAnswer('not_found_error', 'Conversation not found'));
      return json(res, 200, f.read(conversations.get(id)));
    }
    if (req.method === 'POST' && tail === '/completion') return completion(req, res, id);
    if (tail === '/retry_completion') {
      state.retries += 1; // the extension never calls it, nor clicks anything that does
      await readBody(req);
      return json(res, 409, f.errorAnswer('invalid_request_error', 'The test double does not retry'));
    }
    if (req.method === 'POST' && tail === '/stop_response') {
      state.stop_requests += 1;
      const conv = conversations.get(id);
      const last = conv && conv.messages[conv.messages.length - 1];
      if (last && last.sender === 'assistant') last.stopped = true;
      for (const release of [...holds]) release();
      return json(res, 200, {});
    }
    return json(res, 405, f.errorAnswer('invalid_request_error', 'Method not allowed'));
  }

  async function testRoute(req, res, p) {
    if (req.method === 'GET' && p === '/__test/state') return json(res, 200, { ...state, held: holds.size });
    if (req.method === 'POST' && p === '/__test/config') {
      config = { ...config, ...JSON.parse((await readBody(req)) || '{}') };
      return json(res, 200, config);
    }
    if (req.method === 'POST' && p === '/__test/release') {
      const released = holds.size;
      for (const release of [...holds]) release();
      return json(res, 200, { released });
    }
    if (req.method === 'POST' && p === '/__test/reset') {
      for (const release of [...holds]) release();
      state = fresh();
      config = { ...DEFAULTS };
      return json(res, 200, {});
    }
    return json(res, 404, {});
  }

  async function route(req, res) {
    const url = new URL(req.url, 'https://claude.ai');
    const p = url.pathname;
    if (req.method === 'GET' && p === '/') {
      res.writeHead(302, { location: '/new' });
      return res.end();
    }
    if (req.method === 'GET' && PAGE.test(p)) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(page(config, IMPORTS));
    }
    if (req.method === 'GET' && p === '/__fake-claude/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(fs.readFileSync(path.join(here, 'app.js')));
    }
    const vendor = p.match(/^\/__fake\/vendor\/([a-z0-9-]+)\/((?:dist\/)?index\.js)$/);
    if (req.method === 'GET' && vendor && VENDOR.has(vendor[1])) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(fs.readFileSync(path.join(nodeModules, vendor[1], vendor[2])));
    }
    if (req.method === 'GET' && p === '/__fake-claude/config') return json(res, 200, { ...config, org: f.ORG, project: f.PROJECT, models: f.MODELS, root: f.ROOT_PARENT });
    if (req.method === 'POST' && p === '/__fake-claude/event') {
      const { kind } = JSON.parse(await readBody(req));
      if (kind === 'click') state.clicks += 1;
      if (kind === 'stop_click') state.stop_clicks += 1;
      return json(res, 200, {});
    }
    if (p.startsWith('/api/')) return api(req, res, p, url);
    if (p.startsWith('/__test/')) return testRoute(req, res, p);
    return json(res, 404, f.errorAnswer('not_found_error', 'Not found'));
  }

  const server = https.createServer({ cert, key }, (req, res) => {
    route(req, res).catch((e) => {
      if (!res.headersSent) json(res, 500, f.errorAnswer('api_error', String(e.message)));
      else res.end();
    });
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  return {
    port: server.address().port,
    close: () => new Promise((resolve) => {
      for (const release of [...holds]) release();
      server.closeAllConnections();
      server.close(resolve);
    }),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name, dflt) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : dflt;
  };
  const fake = await startFakeClaude({ cert: fs.readFileSync(arg('cert')), key: fs.readFileSync(arg('key')), port: Number(arg('port', '8444')) });
  console.log(`fake claude.ai on https://127.0.0.1:${fake.port}`);
}
