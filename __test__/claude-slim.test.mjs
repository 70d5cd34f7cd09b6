// slimClaudeSession / restoreClaudeSession through the addon and `occ cc
// slim` in a child process, on what the real Claude Code 2.1.328 wrote
// (fixtures/claude-code-2.1) bloated as sessions grow: a tool result with a
// base64 image and a long text, and the CLI's toolUseResult copy of it.
// The real CLI resuming slimmed sessions is proven in claude-slim.cli.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { addon, root, tempDir, uuid, userLine, assistantLine, jsonl, writeSession } from './support/helpers.mjs';
import { world } from './support/spawn-world.mjs';

const OCC = path.join(root, 'bin', 'occ.mjs');
const SLUG = '-tmp-osi-claude-code-2-1-work-alpha';
const CWD = '/tmp/osi-claude-code-2.1/work/alpha';
const ID = '8fe872f4-07ea-4932-a67d-831299623dc6';

/** A config dir with the fixture's projects, the `subagents` session bloated. */
function bloated() {
  const config = tempDir('osi-slim-');
  fs.cpSync(path.join(root, 'fixtures', 'claude-code-2.1', 'projects'), path.join(config, 'projects'), { recursive: true });
  const file = path.join(config, 'projects', SLUG, `${ID}.jsonl`);
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => {
    if (!l.includes('"tool_use_id":"toolu_fake_5_0"')) return l;
    const v = JSON.parse(l);
    v.message.content[0].content.push({ type: 'text', text: 'output line\n'.repeat(20_000) });
    v.message.content[0].content.push({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo'.repeat(30_000) } });
    v.toolUseResult.content[0].text = 'output line\n'.repeat(20_000);
    return JSON.stringify(v);
  });
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return { config, file };
}

const discovered = async (config) => (await addon.discoverSessions(CWD, { claudeConfigDir: config, registryRoot: tempDir('osi-slim-state-'), persistentCache: false })).find((s) => s.sessionId === ID);

test('slimClaudeSession: in place with a backup, discovery unchanged, restore byte for byte', async () => {
  const { config, file } = bloated();
  const original = fs.readFileSync(file);
  const before = await discovered(config);
  const dry = await addon.slimClaudeSession(ID.slice(0, 8), { claudeConfigDir: config, dryRun: true });
  assert.equal(dry.dryRun, true);
  assert.deepEqual(fs.readFileSync(file), original, 'a dry run writes nothing');
  const r = await addon.slimClaudeSession(ID, { claudeConfigDir: config });
  assert.equal(r.sessionId, ID);
  assert.equal(r.changed, true);
  assert.deepEqual({ ...r.stats }, { ...dry.stats });
  assert.deepEqual({ images: r.stats.imagesRemoved, results: r.stats.toolResultsCut, copies: r.stats.toolUseResultsSlimmed }, { images: 1, results: 1, copies: 1 });
  assert.ok(r.reductionPercent > 80, `${r.reductionPercent}%`);
  assert.ok(r.estimatedInputTokensSaved > 100_000);
  assert.ok(fs.existsSync(r.backupPath));
  assert.equal(fs.statSync(file).size, r.sizeAfter);
  const after = await discovered(config);
  for (const k of ['totalInputTokens', 'totalOutputTokens', 'cacheReadTokens', 'cacheCreationTokens', 'totalCostUsd', 'title', 'firstMessage', 'lastUserMessage', 'promptCount', 'responseCount', 'compactionCount', 'messageCount']) {
    assert.deepEqual(after[k], before[k], k);
  }
  const restored = await addon.restoreClaudeSession(ID, { claudeConfigDir: config });
  assert.equal(restored.restoredFrom, r.backupPath);
  assert.deepEqual(fs.readFileSync(file), original);
});

test('discovery reports what a slim would save, as a dry run measures it, and the session list names the session worth slimming', async (t) => {
  const { config, file } = bloated();
  const cacheDir = tempDir('osi-slim-cache-');
  process.env.OPENCLAW_SESSION_INTEL_CACHE_DIR = cacheDir;
  t.after(() => delete process.env.OPENCLAW_SESSION_INTEL_CACHE_DIR);
  const look = async () => (await addon.discoverSessions(CWD, { claudeConfigDir: config, registryRoot: tempDir('osi-slim-state-') })).find((s) => s.sessionId === ID);
  const s = await look();
  const dry = await addon.slimClaudeSession(ID, { claudeConfigDir: config, dryRun: true });
  assert.ok(dry.sizeOriginal - dry.sizeAfter > 400_000, JSON.stringify(dry));
  assert.deepEqual([s.slimSavingsBytes, s.slimSavingsTokens], [dry.sizeOriginal - dry.sizeAfter, dry.estimatedInputTokensSaved]);
  const list = addon.sessionListToolPayload([s]);
  assert.deepEqual(list.worthSlimming, [ID]);
  assert.equal(list.sessions[0].slimSavingsTokens, dry.estimatedInputTokensSaved);
  // From the persistent scan cache in a fresh look, and after a line is appended.
  assert.deepEqual([(await look()).slimSavingsBytes], [s.slimSavingsBytes]);
  fs.appendFileSync(file, `${JSON.stringify({ type: 'progress', data: { type: 'hook_progress' }, uuid: uuid(), parentUuid: null, sessionId: ID })}\n`);
  const grown = await look();
  const dry2 = await addon.slimClaudeSession(ID, { claudeConfigDir: config, dryRun: true });
  assert.equal(grown.slimSavingsBytes, dry2.sizeOriginal - dry2.sizeAfter);
  assert.ok(grown.slimSavingsBytes > s.slimSavingsBytes);
  await addon.slimClaudeSession(ID, { claudeConfigDir: config });
  const slimmed = await look();
  assert.deepEqual([slimmed.slimSavingsBytes, slimmed.slimSavingsTokens], [0, 0]);
  assert.deepEqual(addon.sessionListToolPayload([slimmed]).worthSlimming, []);
});

test('slimClaudeSession: a fork under its own title; errors carry codes', async () => {
  const { config, file } = bloated();
  const original = fs.readFileSync(file);
  const r = await addon.slimClaudeSession(ID, { claudeConfigDir: config, fork: true, forkTitle: 'Lighter copy', preset: 'aggressive' });
  assert.notEqual(r.forkSessionId, ID);
  assert.equal(r.forkTitle, 'Lighter copy');
  assert.deepEqual(fs.readFileSync(file), original);
  const fork = (await addon.discoverSessions(CWD, { claudeConfigDir: config, registryRoot: tempDir('osi-slim-state-'), persistentCache: false })).find((s) => s.sessionId === r.forkSessionId);
  assert.equal(fork.title, 'Lighter copy');
  await assert.rejects(addon.slimClaudeSession(ID, { claudeConfigDir: config, preset: 'extreme' }), { code: 'E_UNKNOWN_PRESET' });
  await assert.rejects(addon.slimClaudeSession(ID, { claudeConfigDir: config, toolResultMaxBytes: 100 }), { code: 'E_INVALID_ARGUMENT' });
  await assert.rejects(addon.slimClaudeSession('00000000-0000', { claudeConfigDir: config }), { code: 'E_SESSION_NOT_FOUND' });
  await assert.rejects(addon.restoreClaudeSession(ID, { claudeConfigDir: config }), { code: 'E_NO_BACKUP' });
});

function occ(args, config) {
  const r = spawnSync(process.execPath, [OCC, ...args], { env: { ...process.env, CLAUDE_CONFIG_DIR: config }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('occ cc slim: --dry-run, --json, the slim, --restore, --fork, and its usage errors', () => {
  const { config, file } = bloated();
  const original = fs.readFileSync(file);
  const dry = occ(['cc', 'slim', ID.slice(0, 8), '--dry-run', '--json'], config);
  assert.equal(dry.code, 0, dry.stderr);
  assert.equal(JSON.parse(dry.stdout).dryRun, true);
  assert.deepEqual(fs.readFileSync(file), original);
  const slim = occ(['cc', 'slim', ID], config);
  assert.equal(slim.code, 0, slim.stderr);
  assert.match(slim.stdout, /✓ Session slimmed: 8fe872f4/);
  assert.match(slim.stdout, /Cut: 1 image\(s\), 1 long tool result\(s\), 1 tool output copies/);
  assert.match(slim.stdout, /--restore to undo/);
  const restore = occ(['cc', 'slim', ID, '--restore'], config);
  assert.equal(restore.code, 0, restore.stderr);
  assert.deepEqual(fs.readFileSync(file), original);
  const fork = occ(['cc', 'slim', ID, '--fork', '--title', 'Slim copy', '--json'], config);
  assert.equal(fork.code, 0, fork.stderr);
  assert.equal(JSON.parse(fork.stdout).forkTitle, 'Slim copy');
  const err = (args, code, message) => {
    const r = occ(args, config);
    assert.equal(r.code, code, r.stderr);
    assert.match(r.stderr, message);
    assert.match(r.stderr, /^Hint: /m);
  };
  err(['cc', 'slim'], 2, /cc slim needs a session id/);
  err(['cc', 'slim', ID, '--preset', 'extreme'], 2, /unknown slim preset/);
  err(['cc', 'slim', ID, '--title', 'x'], 2, /--title names a fork/);
  err(['cc', 'slim', '00000000-0000'], 3, /no Claude Code session/);
  err(['cc', 'slim', ID, '--restore', '--fork'], 2, /--restore takes no other slim option/);
});

test('preflightSpawn slimOverMb: a resumed session over the size is slimmed first, and the briefing says so', async () => {
  const w = world();
  const id = uuid();
  const cwd = w.repo;
  const big = 'export const total = 0;\n'.repeat(40_000);
  const call = assistantLine(id, 'm1', { input_tokens: 10, output_tokens: 5 }, { cwd, gitBranch: 'feature/totals' });
  call.message.content = [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: 'src/cart.js' } }];
  call.message.stop_reason = 'tool_use';
  const result = userLine(id, [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: big }] }], { cwd, gitBranch: 'feature/totals', toolUseResult: { type: 'text', file: { filePath: 'src/cart.js', content: big } } });
  const done = assistantLine(id, 'm2', { input_tokens: 10, output_tokens: 5 }, { cwd, gitBranch: 'feature/totals' });
  done.message.stop_reason = 'end_turn';
  const file = writeSession(w.claudeConfigDir, w.repo, id, jsonl([userLine(id, 'Refactor the cart totals into cents', { cwd, gitBranch: 'feature/totals' }), call, result, done]));
  const old = new Date(Date.now() - 3_600_000);
  fs.utimesSync(file, old, old);
  const before = fs.statSync(file).size;
  const options = (slimOverMb) => ({ claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir, persistentCache: false, slimOverMb, resumable: [{ claudeSessionId: id, cwd, childSessionKey: 'agent:claude:acp:1' }] });
  const request = { task: 'Finish the cart totals refactor in cents', cwd, agentId: 'main' };
  const off = await addon.preflightSpawn(request, options(undefined));
  assert.equal(off.decision, 'resume', off.reason);
  assert.equal(off.resumeSlim, undefined);
  assert.equal(fs.statSync(file).size, before);
  const r = await addon.preflightSpawn(request, options(0.5));
  assert.equal(r.decision, 'resume', r.reason);
  assert.equal(r.resumeSlim.sessionId, id);
  assert.equal(r.resumeSlim.sizeOriginal, before);
  assert.equal(r.resumeSlim.sizeAfter, fs.statSync(file).size);
  assert.ok(r.resumeSlim.sizeAfter * 4 < before);
  assert.ok(r.briefing.includes(r.resumeSlim.briefingLine), r.briefing);
  assert.ok(fs.existsSync(r.resumeSlim.backupPath));
});

test('preflightSpawn slimOverMb: a slim that does not fit the budget is deferred to the host, and the next briefing says what it cut', async () => {
  const w = world();
  const id = uuid();
  const cwd = w.repo;
  const big = 'export const total = 0;\n'.repeat(40_000);
  const call = assistantLine(id, 'm1', { input_tokens: 10, output_tokens: 5 }, { cwd, timestamp: '2026-11-01T10:00:01.000Z' });
  call.message.content = [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: 'src/cart.js' } }];
  call.message.stop_reason = 'tool_use';
  const result = userLine(id, [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: big }] }], { cwd, timestamp: '2026-11-01T10:00:02.000Z' });
  const done = assistantLine(id, 'm2', { input_tokens: 10, output_tokens: 5 }, { cwd, timestamp: '2026-11-01T10:00:03.000Z' });
  done.message.stop_reason = 'end_turn';
  const file = writeSession(w.claudeConfigDir, w.repo, id, jsonl([userLine(id, 'Refactor the cart totals into cents', { cwd, timestamp: '2026-11-01T10:00:00.000Z' }), call, result, done]));
  const aged = () => fs.utimesSync(file, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
  aged();
  const before = fs.statSync(file).size;
  const options = (budgetMs) => ({ claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir, persistentCache: false, slimOverMb: 0.5, budgetMs, resumable: [{ claudeSessionId: id, cwd, childSessionKey: 'agent:claude:acp:1' }] });
  const request = { task: 'Finish the cart totals refactor in cents', cwd, agentId: 'main' };
  // No time left for the slim: the resume goes on, the slim is the host's to do after the run.
  const first = await addon.preflightSpawn(request, options(1));
  assert.equal(first.decision, 'resume', first.reason);
  assert.equal(first.resumeSlim.deferred, true);
  assert.match(first.resumeSlim.skipped, /once this run has ended/);
  assert.equal(first.resumeSlim.briefingLine, undefined);
  assert.equal(fs.statSync(file).size, before, 'nothing slimmed within the pre-flight');
  // The host's slim after the run, then the next resume's briefing.
  const slim = await addon.slimClaudeSession(id, { claudeConfigDir: w.claudeConfigDir });
  const next = await addon.preflightSpawn(request, options(undefined));
  assert.equal(next.decision, 'resume', next.reason);
  assert.equal(next.resumeSlim.deferred, false);
  assert.deepEqual([next.resumeSlim.sizeOriginal, next.resumeSlim.sizeAfter, next.resumeSlim.backupPath], [before, slim.sizeAfter, slim.backupPath]);
  assert.match(next.resumeSlim.briefingLine, /slimmed since it last ran/);
  assert.ok(next.briefing.includes(next.resumeSlim.briefingLine), next.briefing);
  // Once the session has run again, that slim is old news.
  const answer = assistantLine(id, 'm3', { input_tokens: 10, output_tokens: 5 }, { cwd, timestamp: new Date(Date.now() + 1000).toISOString() });
  answer.message.stop_reason = 'end_turn';
  fs.appendFileSync(file, `${JSON.stringify(answer)}\n`);
  aged();
  const later = await addon.preflightSpawn(request, options(undefined));
  assert.equal(later.decision, 'resume', later.reason);
  assert.equal(later.resumeSlim, undefined, JSON.stringify(later.resumeSlim));
});
