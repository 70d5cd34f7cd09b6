// An offline stand-in for the Anthropic Messages API, for driving the real
// Claude Code CLI (or anything else that speaks the Messages API) in tests.
//
// It listens on 127.0.0.1 only (an OS-chosen port), answers
// `POST /v1/messages` (with or without `?beta=true`) as a server-sent event
// stream (`stream: true`, what Claude Code sends) or as one JSON message, and
// logs every request with the usage it returned. Every other path gets a 404
// Messages-API error (and is logged too, so a test can see it).
//
//   import { startFakeAnthropic } from './fake-anthropic.mjs';
//   const api = await startFakeAnthropic({
//     respond: (req) => req.lastUserText.includes('list files')
//       ? { toolCalls: [{ name: 'Bash', input: { command: 'ls' } }] }
//       : { text: 'done', delayMs: 500 },
//   });
//   // env for the CLI: ANTHROPIC_BASE_URL=api.url, ANTHROPIC_API_KEY=anything
//   …
//   api.usageBySession()  // { '<session id>': { inputTokens, outputTokens, … } }
//   await api.close();
//
// The responder is called once per request with a `FakeRequest` and returns
// an `Answer` (or a string: the answer's text, or nothing: the default
// answer), synchronously or as a promise. See the JSDoc types below.

import http from 'node:http';

/**
 * @typedef {object} FakeRequest What the responder sees of one request.
 * @property {number} n 1-based number of the request on this server.
 * @property {number} nInSession 1-based number of the request among those of its session id.
 * @property {string|null} sessionId The `x-claude-code-session-id` header (Claude Code sends the
 *   session's id; a subagent's calls carry its parent's id, a fork's calls the fork's new id).
 * @property {string|null} agentId The `x-claude-code-agent-id` header (set on a subagent's calls).
 * @property {Record<string,string>} headers Every request header (lower-case names).
 * @property {object} body The parsed JSON body.
 * @property {string} model `body.model`.
 * @property {object[]} messages `body.messages`.
 * @property {string} lastUserText The text of the last user message that has text besides tool
 *   results and the `<system-reminder>` blocks Claude Code adds ('' when there is none), its text
 *   blocks joined by a newline.
 * @property {object[]} toolResults The `tool_result` blocks of the last message (what the tools answered).
 * @property {string[]} toolNames The names of the tools the request offers.
 * @property {string} systemText The system prompt's text, blocks joined by a newline.
 */

/**
 * @typedef {object} ToolCall A `tool_use` block of an answer.
 * @property {string} name Tool name, e.g. `Bash`, `Agent`, `Task`.
 * @property {object} input The tool's input (streamed as `input_json_delta` chunks).
 * @property {string} [id] The tool-use id; default `toolu_fake_<request>_<index>`.
 */

/**
 * @typedef {object} Usage Token counts of one answer (the Messages API's `usage`). Any field left out
 * takes its default; `cacheCreation5m + cacheCreation1h` is reported as `cache_creation_input_tokens`.
 * @property {number} [inputTokens] Uncached input tokens.
 * @property {number} [outputTokens] Output tokens.
 * @property {number} [cacheReadTokens] Input tokens read from the prompt cache.
 * @property {number} [cacheCreation5m] Input tokens written to the 5-minute cache.
 * @property {number} [cacheCreation1h] Input tokens written to the 1-hour cache.
 */

/**
 * @typedef {object} Answer What the fake API answers to one request.
 * @property {string} [text] A text block (default: `OK <n>.` when there are no tool calls).
 * @property {string} [thinking] A thinking block before the text.
 * @property {ToolCall[]} [toolCalls] `tool_use` blocks after the text; stop reason `tool_use`.
 * @property {Usage} [usage] Token counts; defaults are derived from the request's size (see `defaultUsage`).
 * @property {number} [delayMs] Wait this long after `message_start` before the content (a slow answer).
 * @property {Promise<unknown>} [hold] Wait for this promise after `message_start` (a test releases the answer).
 * @property {string} [stopReason] Default `tool_use` with tool calls, else `end_turn`.
 * @property {{status: number, type: string, message: string}} [error] Answer with this API error instead.
 */

/**
 * @typedef {object} LoggedRequest One entry of `api.requests`.
 * @property {number} n 1-based request number.
 * @property {string} time ISO time the request arrived.
 * @property {string} method
 * @property {string} path Path and query, e.g. `/v1/messages?beta=true`.
 * @property {string|null} sessionId `x-claude-code-session-id`.
 * @property {Record<string,string>} claudeHeaders Every `x-claude-code-*` and `anthropic-*` header.
 * @property {string|null} model
 * @property {boolean} stream
 * @property {object[]} messages The messages Claude Code sent.
 * @property {string} lastUserText See `FakeRequest`.
 * @property {string[]} toolNames
 * @property {string} systemText See `FakeRequest` (what a test asserts the client told its model).
 * @property {{text?: string, thinking?: string, toolCalls: ToolCall[], stopReason: string}|null} answer
 * @property {object|null} usage The usage object returned, in the API's own snake_case shape.
 * @property {boolean} completed The whole answer was written (false when the client went away first).
 * @property {boolean} ready The request was read and answered or is being answered (`answer` and `usage` are set).
 */

/** Text of the content of one message (a string or blocks), text blocks only. */
export function messageText(message) {
  const c = message?.content;
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  return c.filter((b) => b?.type === 'text').map((b) => b.text).join('\n');
}

/** Text of a user message without the `<system-reminder>` blocks Claude Code adds to it. */
function typedText(message) {
  const c = message?.content;
  if (typeof c === 'string') return c.startsWith('<system-reminder>') ? '' : c;
  if (!Array.isArray(c)) return '';
  return c.filter((b) => b?.type === 'text' && !b.text.startsWith('<system-reminder>')).map((b) => b.text).join('\n');
}

function lastUserTextOf(messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== 'user') continue;
    const text = typedText(m);
    if (text) return text;
  }
  return '';
}

const systemTextOf = (system) => typeof system === 'string' ? system
  : Array.isArray(system) ? system.filter((b) => b?.type === 'text').map((b) => b.text).join('\n') : '';

/**
 * The usage the fake API reports when an answer names none: deterministic, derived from the
 * request's size, so that different requests report different numbers (sums catch a double count).
 * Roughly 4 bytes a token: the messages' size is read from the cache except for the last
 * message, which is written to the 5-minute cache; the system prompt and tools add 1 h cache writes
 * on a session's first request only.
 */
export function defaultUsage(req, answer) {
  const msgBytes = JSON.stringify(req.messages).length;
  const lastBytes = JSON.stringify(req.messages.at(-1) ?? '').length;
  const answerBytes = (answer.text?.length ?? 0) + (answer.thinking?.length ?? 0)
    + (answer.toolCalls ?? []).reduce((s, t) => s + JSON.stringify(t.input).length + t.name.length, 0);
  return {
    inputTokens: 3 + (req.messages.length % 7),
    outputTokens: 5 + Math.ceil(answerBytes / 4),
    cacheReadTokens: Math.max(0, Math.ceil((msgBytes - lastBytes) / 4)),
    cacheCreation5m: Math.ceil(lastBytes / 4),
    cacheCreation1h: req.nInSession === 1 ? 1000 + (systemTextOf(req.body.system).length % 1000) : 0,
  };
}

function apiUsage(u) {
  return {
    input_tokens: u.inputTokens,
    cache_creation_input_tokens: u.cacheCreation5m + u.cacheCreation1h,
    cache_read_input_tokens: u.cacheReadTokens,
    cache_creation: { ephemeral_5m_input_tokens: u.cacheCreation5m, ephemeral_1h_input_tokens: u.cacheCreation1h },
    output_tokens: u.outputTokens,
    service_tier: 'standard',
  };
}

/** The content blocks of an answer, in the API's shape. */
function contentBlocks(answer, n) {
  const blocks = [];
  if (answer.thinking) blocks.push({ type: 'thinking', thinking: answer.thinking, signature: `sig_fake_${n}` });
  if (answer.text) blocks.push({ type: 'text', text: answer.text });
  (answer.toolCalls ?? []).forEach((t, i) => blocks.push({ type: 'tool_use', id: t.id ?? `toolu_fake_${n}_${i}`, name: t.name, input: t.input ?? {} }));
  return blocks;
}

/** Splits `s` into pieces of at most `size` characters (at least one piece). */
const chunks = (s, size) => s.length ? Array.from({ length: Math.ceil(s.length / size) }, (_, i) => s.slice(i * size, (i + 1) * size)) : [''];

/**
 * Starts the fake API. Options:
 * - `respond(req: FakeRequest) => Answer | string | undefined | Promise<…>`: scripts the answers
 *   (default: a plain text answer `OK <n>.` with `defaultUsage`). It can be replaced later with
 *   `api.respond = fn`.
 * - `log(line)`: called with a one-line summary of every request (e.g. `console.error` to debug).
 *
 * Resolves to `{ url, port, requests, respond, usageBySession, waitForRequest, close }`:
 * - `url`: `http://127.0.0.1:<port>` (for `ANTHROPIC_BASE_URL`).
 * - `requests`: `LoggedRequest[]`, in arrival order.
 * - `usageBySession()`: per session id, the sums of what was returned: `{ requests, inputTokens,
 *   outputTokens, cacheReadTokens, cacheCreationTokens, cacheCreation5m, cacheCreation1h, models }`
 *   (`models` sorted, unique). Only completed answers count.
 * - `waitForRequest(pred, timeoutMs = 60000)`: resolves with the first logged request (past or
 *   future) for which `pred(loggedRequest)` holds, when it arrives.
 * - `close()`: stops listening and ends every open connection.
 */
export async function startFakeAnthropic({ respond, log } = {}) {
  const requests = [];
  const perSession = new Map();
  const waiters = new Set();
  const sockets = new Set();
  const api = { respond: respond ?? (() => undefined), requests };

  const notify = (entry) => {
    entry.ready = true;
    for (const w of waiters) if (w.pred(entry)) { waiters.delete(w); clearTimeout(w.timer); w.resolve(entry); }
  };

  const server = http.createServer(async (req, res) => {
    const chunksIn = [];
    for await (const c of req) chunksIn.push(c);
    const n = requests.length + 1;
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
    const sessionId = headers['x-claude-code-session-id'] ?? null;
    const entry = {
      n, time: new Date().toISOString(), method: req.method, path: req.url, sessionId,
      claudeHeaders: Object.fromEntries(Object.entries(headers).filter(([k]) => k.startsWith('x-claude-code-') || k.startsWith('anthropic-'))),
      model: null, stream: false, messages: [], lastUserText: '', toolNames: [], systemText: '', answer: null, usage: null, completed: false,
    };
    requests.push(entry);
    const fail = (status, type, message) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type, message } }));
    };
    const url = new URL(req.url, 'http://127.0.0.1');
    if (req.method !== 'POST' || url.pathname !== '/v1/messages') {
      log?.(`#${n} ${req.method} ${req.url} → 404`);
      notify(entry);
      return fail(404, 'not_found_error', `the fake API answers POST /v1/messages only, not ${req.method} ${url.pathname}`);
    }
    let body;
    try { body = JSON.parse(Buffer.concat(chunksIn).toString('utf8')); } catch (e) {
      notify(entry);
      return fail(400, 'invalid_request_error', `body is not JSON: ${e.message}`);
    }
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const key = sessionId ?? '';
    const nInSession = (perSession.get(key) ?? 0) + 1;
    perSession.set(key, nInSession);
    const last = messages.at(-1);
    const fr = {
      n, nInSession, sessionId, agentId: headers['x-claude-code-agent-id'] ?? null, headers, body,
      model: body.model, messages, lastUserText: lastUserTextOf(messages),
      toolResults: Array.isArray(last?.content) ? last.content.filter((b) => b?.type === 'tool_result') : [],
      toolNames: (body.tools ?? []).map((t) => t.name), systemText: systemTextOf(body.system),
    };
    Object.assign(entry, { model: body.model ?? null, stream: body.stream === true, messages, lastUserText: fr.lastUserText, toolNames: fr.toolNames, systemText: fr.systemText });

    let answer;
    try {
      answer = await api.respond(fr);
    } catch (e) {
      answer = { error: { status: 500, type: 'api_error', message: `responder threw: ${e.stack ?? e}` } };
    }
    if (answer == null) answer = {};
    if (typeof answer === 'string') answer = { text: answer };
    if (answer.error) {
      log?.(`#${n} ${sessionId} ${body.model} → error ${answer.error.status}`);
      entry.answer = { error: answer.error };
      notify(entry);
      return fail(answer.error.status ?? 500, answer.error.type ?? 'api_error', answer.error.message ?? 'error');
    }
    if (answer.text == null && !answer.toolCalls?.length) answer = { ...answer, text: `OK ${n}.` };
    const stopReason = answer.stopReason ?? (answer.toolCalls?.length ? 'tool_use' : 'end_turn');
    const u = { ...defaultUsage(fr, answer), ...answer.usage };
    const usage = apiUsage(u);
    const blocks = contentBlocks(answer, n);
    const id = `msg_fake_${String(n).padStart(6, '0')}`;
    entry.answer = { text: answer.text, thinking: answer.thinking, toolCalls: blocks.filter((b) => b.type === 'tool_use'), stopReason };
    entry.usage = usage;
    log?.(`#${n} ${sessionId} ${body.model} "${fr.lastUserText.slice(0, 60)}" → ${stopReason} ${JSON.stringify(usage)}`);
    notify(entry);

    const wait = async () => {
      if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
      if (answer.hold) await answer.hold;
    };
    let gone = false;
    res.on('close', () => { gone = !res.writableFinished; });

    if (!entry.stream) {
      await wait();
      if (gone) return;
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_fake_${n}` });
      res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model: body.model, content: blocks, stop_reason: stopReason, stop_sequence: null, usage }));
      entry.completed = true;
      return;
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'request-id': `req_fake_${n}` });
    const send = (event, data) => { if (!gone) res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`); };
    send('message_start', { message: { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
    send('ping', {});
    await wait();
    blocks.forEach((b, index) => {
      if (b.type === 'thinking') {
        send('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
        for (const piece of chunks(b.thinking, 40)) send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } });
        send('content_block_delta', { index, delta: { type: 'signature_delta', signature: b.signature } });
      } else if (b.type === 'text') {
        send('content_block_start', { index, content_block: { type: 'text', text: '' } });
        for (const piece of chunks(b.text, 40)) send('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
      } else {
        send('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
        for (const piece of chunks(JSON.stringify(b.input), 40)) send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
      }
      send('content_block_stop', { index });
    });
    send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage });
    send('message_stop', {});
    if (!gone) {
      res.end();
      entry.completed = true;
    }
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise((resolve, reject) => { server.once('error', reject); server.listen(0, '127.0.0.1', resolve); });
  const { port } = server.address();

  api.url = `http://127.0.0.1:${port}`;
  api.port = port;
  api.usageBySession = () => {
    const out = {};
    for (const r of requests) {
      if (!r.completed || !r.usage) continue;
      const s = (out[r.sessionId ?? ''] ??= { requests: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0, cacheCreation5m: 0, cacheCreation1h: 0, models: [] });
      s.requests++;
      s.inputTokens += r.usage.input_tokens;
      s.outputTokens += r.usage.output_tokens;
      s.cacheReadTokens += r.usage.cache_read_input_tokens;
      s.cacheCreationTokens += r.usage.cache_creation_input_tokens;
      s.cacheCreation5m += r.usage.cache_creation.ephemeral_5m_input_tokens;
      s.cacheCreation1h += r.usage.cache_creation.ephemeral_1h_input_tokens;
      if (!s.models.includes(r.model)) s.models = [...s.models, r.model].sort();
    }
    return out;
  };
  api.waitForRequest = (pred, timeoutMs = 60_000) => {
    const hit = requests.find((r) => r.ready && pred(r));
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const w = { pred, resolve };
      w.timer = setTimeout(() => { waiters.delete(w); reject(new Error(`no such request to the fake API within ${timeoutMs} ms`)); }, timeoutMs);
      waiters.add(w);
    });
  };
  api.close = () => new Promise((resolve) => {
    for (const w of waiters) { clearTimeout(w.timer); w.resolve(null); }
    waiters.clear();
    server.close(() => resolve());
    for (const s of sockets) s.destroy();
  });
  return api;
}
