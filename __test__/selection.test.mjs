// selectSession / assessTaskRelevance against a real HTTP server on
// 127.0.0.1 standing in for the Anthropic API, and through a host callback.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { addon } from './support/helpers.mjs';

const hour = 3600_000;
function session(id, lastTask, extra = {}) {
  return {
    sessionId: id, agentId: 'main', branch: 'main', firstMessage: lastTask, lastTask, lastModified: new Date(Date.now() - hour / 2),
    messageCount: 40, fileSizeBytes: 10_000, compactionCount: 0, totalInputTokens: 1000, totalOutputTokens: 1000, ...extra,
  };
}
const S1 = session('s1', 'Refactor the webhook handler to use v2 payloads');
const S2 = session('s2', 'Update README formatting');
const status = (recent, active = []) => ({ git: { currentBranch: 'main' }, sessions: { active, recent } });
const TASK = 'Fix webhook error handling';

/** Runs `fn(url, requests)` against a server answering with `reply(req, body)`. */
async function withApi(reply, fn) {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      req.rawBody = body;
      requests.push({ method: req.method, url: req.url, headers: req.headers, body: JSON.parse(body) });
      reply(req, res);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const saved = { key: process.env.ANTHROPIC_API_KEY, base: process.env.ANTHROPIC_BASE_URL };
  process.env.ANTHROPIC_API_KEY = 'sk-test-123';
  process.env.ANTHROPIC_BASE_URL = `http://127.0.0.1:${server.address().port}`;
  try {
    return await fn(requests);
  } finally {
    for (const [k, v] of [['ANTHROPIC_API_KEY', saved.key], ['ANTHROPIC_BASE_URL', saved.base]]) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}
const text = (t) => (req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id: 'msg_x', type: 'message', role: 'assistant', content: [{ type: 'text', text: t }] }));
};

test('defaults are the reference\'s', () => {
  assert.deepEqual({ ...addon.DEFAULT_SESSION_SELECTION_CONFIG }, { relevanceModel: 'claude-haiku', relevanceMaxTokens: 500, relevanceTimeoutMs: 3000, resumeThreshold: 0.6, enabled: true });
});

test('a good reply: the request is checked and the relevances mapped back to sessions', async () => {
  await withApi(text('[{"index": 1, "relevance": 0.9, "reasoning": "same handler"}, {"index": 2, "relevance": 0.05, "reasoning": "docs"}]'), async (requests) => {
    const r = await addon.assessTaskRelevance(TASK, [S1, S2]);
    assert.deepEqual(r, [{ sessionId: 's1', relevance: 0.9, reasoning: 'same handler' }, { sessionId: 's2', relevance: 0.05, reasoning: 'docs' }]);
    const [req] = requests;
    assert.equal(req.method, 'POST');
    assert.equal(req.url, '/v1/messages');
    assert.equal(req.headers['x-api-key'], 'sk-test-123');
    assert.equal(req.headers['anthropic-version'], '2023-06-01');
    assert.match(req.headers['content-type'], /application\/json/);
    assert.equal(req.body.model, 'claude-haiku-4-5-20251001');
    assert.equal(req.body.temperature, 0);
    assert.equal(req.body.max_tokens, 500);
    const prompt = req.body.messages[0].content;
    assert.equal(req.body.messages[0].role, 'user');
    assert.match(prompt, /NEW TASK: Fix webhook error handling/);
    assert.match(prompt, /1\. \[branch: main\] Refactor the webhook handler to use v2 payloads/);
    assert.match(prompt, /2\. \[branch: main\] Update README formatting/);
    assert.match(prompt, /Return JSON array/);
    const pick = await addon.selectSession(TASK, '/repo', 'main', status([S1, S2]));
    assert.equal(pick.action, 'resume');
    assert.equal(pick.sessionId, 's1');
    assert.equal(pick.scores.length, 2);
    assert.equal(pick.reason, "Resume (score: 1.00) — same branch, recent, related: same handler");
  });
});

test('a reply in a fenced block, with out-of-range indices and relevance values', async () => {
  const reply = 'Sure!\n```json\n[{"index": 1, "relevance": 7, "reasoning": "way over"}, {"index": 5, "relevance": 0.9}, {"index": 2, "relevance": -1, "reasoning": "under"}]\n```';
  await withApi(text(reply), async () => {
    const r = await addon.assessTaskRelevance(TASK, [S1, S2, session('s3', 'Add retries to webhookHandler')]);
    assert.deepEqual(r.slice(0, 2), [{ sessionId: 's1', relevance: 1, reasoning: 'way over' }, { sessionId: 's2', relevance: 0, reasoning: 'under' }]);
    // Index 3 is missing from the reply: scored offline.
    assert.equal(r[2].sessionId, 's3');
    assert.match(r[2].reasoning, /^shared terms: /);
    assert.ok(r[2].relevance > 0);
  });
});

test('a slow reply past the timeout: the decision does not wait for it, offline', async () => {
  await withApi((req, res) => setTimeout(() => text('[]')(req, res), 3000), async () => {
    const started = Date.now();
    const pick = await addon.selectSession(TASK, '/repo', 'main', status([S1, S2]), undefined, undefined, { relevanceTimeoutMs: 400 });
    const took = Date.now() - started;
    // The reply comes at 3 s; the margin over the 400 ms timeout is for a
    // loaded machine (a debug build makes its HTTP client on every call).
    assert.ok(took < 2000, `took ${took} ms`);
    assert.equal(pick.action, 'resume');
    assert.equal(pick.sessionId, 's1');
    assert.match(pick.scores[0].reason, /shared terms: handl, webhook/);
  });
});

test('a timeout given as -1, 0 or 2^32 waits as Node\'s setTimeout would (1 ms), not the 49 days a wrapped u32 would', async () => {
  await withApi((req, res) => setTimeout(() => text('[]')(req, res), 3000), async () => {
    for (const relevanceTimeoutMs of [-1, 0, 2 ** 32, Number.NaN]) {
      const started = Date.now();
      const pick = await addon.selectSession(TASK, '/repo', 'main', status([S1, S2]), undefined, undefined, { relevanceTimeoutMs });
      const took = Date.now() - started;
      assert.ok(took < 2000, `${relevanceTimeoutMs}: took ${took} ms`);
      assert.match(pick.scores[0].reason, /shared terms/);
    }
  });
});

test('relevanceMaxTokens reaches the model as the reference sends it, never wrapped; one the API refuses gives the offline answer', async () => {
  // Like the real API: a 400 unless max_tokens is a positive whole number.
  const api = (req, res) => {
    const { max_tokens: m } = req.parsed;
    if (Number.isInteger(m) && m > 0) return text('[{"index": 1, "relevance": 0.9, "reasoning": "model says so"}]')(req, res);
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end('{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens"}}');
  };
  const given = [1e300, -1, 0, 2.5, Number.NaN, 2 ** 32, 2 ** 32 + 500, 700];
  await withApi((req, res) => api(Object.assign(req, { parsed: JSON.parse(req.rawBody) }), res), async (requests) => {
    for (const relevanceMaxTokens of given) {
      const [r] = await addon.assessTaskRelevance(TASK, [S1], { relevanceMaxTokens });
      // JSON.stringify's number: 2^32 stays 2^32 (a u32 would send 0), NaN is null.
      assert.deepEqual(requests.at(-1).body.max_tokens, JSON.parse(JSON.stringify(relevanceMaxTokens)), String(relevanceMaxTokens));
      const refused = !(Number.isInteger(relevanceMaxTokens) && relevanceMaxTokens > 0);
      assert.match(r.reasoning, refused ? /shared terms/ : /model says so/, String(relevanceMaxTokens));
    }
  });
  const seen = [];
  await addon.assessTaskRelevance(TASK, [S1], { relevanceMaxTokens: 2 ** 32 + 1, relevanceCallback: async (req) => { seen.push(req.maxTokens); return '[]'; } });
  assert.deepEqual(seen, [2 ** 32 + 1]);
});

test('HTTP 500 and invalid JSON fall back offline, never reject', async () => {
  await withApi((req, res) => { res.writeHead(500); res.end('{"type":"error"}'); }, async () => {
    const r = await addon.assessTaskRelevance(TASK, [S1, S2]);
    assert.ok(r[0].relevance > r[1].relevance);
    assert.match(r[0].reasoning, /shared terms/);
  });
  await withApi(text('I think session 1 is relevant!'), async () => {
    const r = await addon.assessTaskRelevance(TASK, [S1, S2]);
    assert.match(r[0].reasoning, /shared terms/);
  });
  await withApi((req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{not json'); }, async () => {
    const pick = await addon.selectSession(TASK, '/repo', 'main', status([S1]));
    assert.equal(pick.sessionId, 's1');
  });
});

test('no API key: offline; enabled false: offline without a call', async () => {
  const saved = process.env.ANTHROPIC_API_KEY;
  delete process.env.ANTHROPIC_API_KEY;
  try {
    const r = await addon.assessTaskRelevance(TASK, [S1, S2]);
    assert.match(r[0].reasoning, /shared terms/);
  } finally {
    if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
  }
  await withApi(text('[]'), async (requests) => {
    await addon.assessTaskRelevance(TASK, [S1], { enabled: false });
    assert.equal(requests.length, 0);
  });
});

test('a host callback is used instead of the API, and its failures fall back', async () => {
  const seen = [];
  const r = await addon.assessTaskRelevance(TASK, [S1, S2], {
    relevanceModel: 'claude-sonnet',
    relevanceTimeoutMs: 1000,
    relevanceCallback: async (req) => { seen.push(req); return '[{"index":2,"relevance":0.8,"reasoning":"host says so"}]'; },
  });
  assert.deepEqual(r[1], { sessionId: 's2', relevance: 0.8, reasoning: 'host says so' });
  assert.equal(seen[0].model, 'claude-sonnet-4-6-20250514');
  assert.equal(seen[0].maxTokens, 500);
  assert.equal(seen[0].timeoutMs, 1000);
  assert.match(seen[0].prompt, /NEW TASK: Fix webhook error handling/);
  for (const relevanceCallback of [
    async () => { throw new Error('boom'); },
    () => { throw new Error('sync boom'); },
    () => new Promise(() => {}),
  ]) {
    const started = Date.now();
    const out = await addon.assessTaskRelevance(TASK, [S1], { relevanceCallback, relevanceTimeoutMs: 300 });
    assert.match(out[0].reasoning, /shared terms/);
    // Well before the default timeout (3 s): the 300 ms given was kept, with room for a loaded machine.
    assert.ok(Date.now() - started < 2500, `${Date.now() - started} ms`);
  }
});

test('a 2.1 transcript padded with bookkeeping lines is long by its prompts and responses, not its lines', async () => {
  const offline = { enabled: false };
  // 900 lines (what 2.1 writes for about 40 prompts and 60 responses), an unrelated task.
  const padded = session('s1', 'Update README formatting', { messageCount: 900 });
  const counted = { ...padded, promptCount: 40, responseCount: 60 };
  const byLines = await addon.selectSession(TASK, '/repo', 'main', status([padded]), undefined, undefined, offline);
  assert.match(byLines.scores[0].reason, /large session \(900 messages\)/);
  const byCounts = await addon.selectSession(TASK, '/repo', 'main', status([counted]), undefined, undefined, offline);
  assert.ok(byCounts.scores[0].score > 0, byCounts.scores[0].reason);
  assert.equal(byCounts.scores[0].factors.sessionHealth, 0.15);
  const long = await addon.selectSession(TASK, '/repo', 'main', status([{ ...counted, promptCount: 150, responseCount: 360 }]), undefined, undefined, offline);
  assert.match(long.scores[0].reason, /large session \(510 messages\)/);
});

test('token density is weighed against the session model\'s context window', async () => {
  const offline = { enabled: false };
  const dense = session('s1', 'Refactor the webhook handler', { messageCount: 10, totalInputTokens: 50_000, totalOutputTokens: 50_000 });
  const capacity = async (s) => (await addon.selectSession(TASK, '/repo', 'main', status([s]), undefined, undefined, offline)).scores[0].factors.contextCapacity;
  assert.ok(Math.abs((await capacity(dense)) - 0.12) < 1e-9);
  assert.ok(Math.abs((await capacity({ ...dense, contextWindow: 1_000_000 })) - 0.15) < 1e-9);
});

test('decision order and the caller\'s threshold', async () => {
  const offline = { enabled: false };
  assert.equal((await addon.selectSession(TASK, '/repo', 'main', status([S1], [S2]), undefined, undefined, offline)).action, 'queue');
  const none = await addon.selectSession(TASK, '/repo', 'ops', status([S1]), undefined, undefined, offline);
  assert.deepEqual({ ...none }, { action: 'fresh', reason: 'No previous sessions found' });
  const labelled = await addon.selectSession(TASK, '/repo', 'main', status([S1]), 'ui', undefined, offline);
  assert.deepEqual({ ...labelled }, { action: 'fresh', reason: 'New labeled session "ui"' });
  const stale = session('s9', 'Write docs', { branch: 'old', lastModified: new Date(Date.now() - 30 * 24 * hour) });
  const low = await addon.selectSession(TASK, '/repo', 'main', status([stale]), undefined, undefined, offline);
  assert.equal(low.action, 'fresh');
  const lenient = await addon.selectSession(TASK, '/repo', 'main', status([stale]), undefined, undefined, { ...offline, resumeThreshold: 0 });
  assert.equal(lenient.action, 'resume');
  // budgetUsedPct from totalCostUsd / maxBudgetUsd.
  const spent = session('s8', TASK, { totalCostUsd: 8 });
  const capped = await addon.selectSession(TASK, '/repo', 'main', status([spent]), undefined, 10, offline);
  assert.equal(capped.action, 'fresh');
  assert.match(capped.scores[0].reason, /used 80% of budget/);
  const kw = addon.keywordFallback('fix webhook error handling', S1);
  assert.deepEqual(kw, { sessionId: 's1', relevance: 2 / 6, reasoning: 'keyword overlap: 1/6 words' });
  const score = addon.scoreSession(S1, TASK, 'main', { sessionId: 's1', relevance: 0.9, reasoning: 'r' });
  assert.equal(score.recommendation, 'resume');
  assert.equal(addon.scoreSession(S1, TASK, 'main', { sessionId: 's1', relevance: 0.9, reasoning: 'r' }, undefined, 1.5).recommendation, 'fresh');
});
