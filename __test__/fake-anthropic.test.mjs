// The offline Messages API the real-CLI suites drive Claude Code against:
// its streamed and JSON answers, scripted tool calls, held answers and the
// request log with the usage it returned.

import test from 'node:test';
import assert from 'node:assert/strict';
import { startFakeAnthropic } from './support/fake-anthropic.mjs';

const post = (api, body, headers = {}) => fetch(`${api.url}/v1/messages?beta=true`, {
  method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
});

/** The events of an SSE body, parsed. */
const events = (text) => text.split('\n\n').filter(Boolean).map((chunk) => {
  const [ev, data] = chunk.split('\n');
  return { event: ev.slice('event: '.length), data: JSON.parse(data.slice('data: '.length)) };
});

test('streams text and tool calls with the usage it logs under the session id', async () => {
  const api = await startFakeAnthropic({
    respond: (req) => req.lastUserText === 'run it'
      ? { text: 'Running.', thinking: 'hmm', toolCalls: [{ name: 'Bash', input: { command: 'echo hi', description: 'x'.repeat(100) } }], usage: { inputTokens: 11, outputTokens: 22, cacheReadTokens: 33, cacheCreation5m: 44, cacheCreation1h: 55 } }
      : undefined,
  });
  try {
    const res = await post(api, { model: 'claude-test-1', stream: true, system: [{ type: 'text', text: 'You are a test.' }, { type: 'text', text: 'Be brief.' }], messages: [{ role: 'user', content: [{ type: 'text', text: 'run it' }] }] }, { 'X-Claude-Code-Session-Id': 'sess-1' });
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const evs = events(await res.text());
    assert.deepEqual(evs.map((e) => e.event).filter((e) => e !== 'content_block_delta'),
      ['message_start', 'ping', 'content_block_start', 'content_block_stop', 'content_block_start', 'content_block_stop', 'content_block_start', 'content_block_stop', 'message_delta', 'message_stop']);
    const json = evs.filter((e) => e.data.delta?.type === 'input_json_delta').map((e) => e.data.delta.partial_json).join('');
    assert.deepEqual(JSON.parse(json), { command: 'echo hi', description: 'x'.repeat(100) });
    assert.ok(evs.filter((e) => e.data.delta?.type === 'input_json_delta').length > 1, 'tool input comes in several chunks');
    const delta = evs.find((e) => e.event === 'message_delta').data;
    assert.equal(delta.delta.stop_reason, 'tool_use');
    assert.deepEqual(delta.usage, { input_tokens: 11, cache_creation_input_tokens: 99, cache_read_input_tokens: 33,
      cache_creation: { ephemeral_5m_input_tokens: 44, ephemeral_1h_input_tokens: 55 }, output_tokens: 22, service_tier: 'standard' });
    const [logged] = api.requests;
    assert.equal(logged.sessionId, 'sess-1');
    assert.equal(logged.model, 'claude-test-1');
    assert.equal(logged.lastUserText, 'run it');
    assert.equal(logged.systemText, 'You are a test.\nBe brief.');
    assert.ok(logged.completed);
    assert.deepEqual(api.usageBySession(), { 'sess-1': { requests: 1, inputTokens: 11, outputTokens: 22, cacheReadTokens: 33, cacheCreationTokens: 99, cacheCreation5m: 44, cacheCreation1h: 55, models: ['claude-test-1'] } });
  } finally {
    await api.close();
  }
});

test('answers JSON when not streaming, with deterministic default usage', async () => {
  const api = await startFakeAnthropic();
  try {
    const body = { model: 'm', stream: false, messages: [{ role: 'user', content: 'hello' }] };
    const a = await (await post(api, body)).json();
    const b = await (await post(api, body)).json();
    assert.equal(a.type, 'message');
    assert.deepEqual(a.content, [{ type: 'text', text: 'OK 1.' }]);
    assert.equal(a.stop_reason, 'end_turn');
    assert.equal(a.usage.output_tokens, b.usage.output_tokens);
    assert.equal(a.usage.cache_read_input_tokens, b.usage.cache_read_input_tokens);
    const missing = await fetch(`${api.url}/v1/models`);
    assert.equal(missing.status, 404);
    assert.equal(api.requests.length, 3);
  } finally {
    await api.close();
  }
});

test('holds an answer until the test releases it, and close ends it', async () => {
  let release;
  const held = new Promise((r) => { release = r; });
  const api = await startFakeAnthropic({ respond: () => ({ text: 'late', hold: held }) });
  try {
    const pending = post(api, { model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] }, { 'x-claude-code-session-id': 's' }).then((r) => r.text());
    const seen = await api.waitForRequest((r) => r.sessionId === 's', 5000);
    assert.equal(seen.completed, false);
    release();
    assert.match(await pending, /message_stop/);
    assert.equal(api.requests[0].completed, true);
  } finally {
    await api.close();
  }
});
