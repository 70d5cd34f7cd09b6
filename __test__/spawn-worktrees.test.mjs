// Isolation through the addon on real git repositories: a spawn into a busy
// repository gets a worktree of its own (`preflightSpawn`'s `isolation`,
// `params.cwd`), and the worktree's end (`finishSpawnWorktree`), listing
// and pruning (`listSpawnWorktrees`, `pruneSpawnWorktrees`), and what a
// spawn did (`spawnOutcomes`). The faults and
// their clean-up are proven in crates/core/tests/spawn_worktrees.rs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addon, assistantLine, jsonl, userLine, uuid, writeSession } from './support/helpers.mjs';
import { git, world } from './support/spawn-world.mjs';

const options = (w, extra = {}) => ({ claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir, persistentCache: false, ...extra });

test('preflightSpawn: a spawn into a busy repository runs in a worktree of its own, its cwd rewritten, its subfolder kept', async () => {
  const w = world();
  const status = git(w.repo, 'status', '--porcelain');
  const head = git(w.repo, 'rev-parse', 'HEAD');
  const inFlight = [{ cwd: w.repo, repoPath: w.repo, childSessionKey: 'agent:claude:acp:1' }];
  const r = await addon.preflightSpawn({ task: 'Add tax', cwd: path.join(w.repo, 'src') }, options(w, { inFlight, nonce: 'feedc0de00000002' }));
  assert.deepEqual([r.decision, r.block, r.guard], ['brief', false, undefined], r.reason);
  const root = path.join(w.repo, '.claude', 'worktrees', 'spawn-feedc0de00000002');
  assert.equal(r.params.cwd, path.join(root, 'src'));
  assert.deepEqual(r.isolation, {
    worktreePath: root, branch: 'worktree-spawn-feedc0de00000002', baseCommit: head, repoPath: w.repo,
    subfolder: 'src', reason: 'another spawn is starting in the main working tree', fromSpare: false,
  });
  assert.equal(r.baseCommit, head);
  assert.match(r.briefing, /Isolated worktree: you work in .*on its own branch worktree-spawn-feedc0de00000002/);
  assert.match(r.briefing, /uncommitted changes are not in your worktree: src\/cart\.js, notes\.txt/);
  assert.equal(git(w.repo, 'status', '--porcelain'), status, 'the main tree\'s status is untouched');
  // Idle, and with isolation off, nothing is isolated; every spawn has its base.
  const idle = await addon.preflightSpawn({ task: 'Add tax', cwd: w.repo }, options(w));
  assert.deepEqual([idle.isolation, idle.params.cwd, idle.baseCommit], [undefined, undefined, head]);
  const off = await addon.preflightSpawn({ task: 'Add tax', cwd: w.repo }, options(w, { inFlight, isolation: 'off' }));
  assert.deepEqual([off.block, off.guard], [true, 'busy']);
  await assert.rejects(addon.preflightSpawn({ task: 't', cwd: w.repo }, options(w, { isolation: 'sometimes' })), (e) => e.code === 'E_INVALID_ARGUMENT' && /sometimes/.test(e.message));
});

test('finishSpawnWorktree removes a worktree that holds nothing; list and prune keep uncommitted and unmerged work unless forced', async () => {
  const w = world();
  const inFlight = [{ cwd: w.repo, repoPath: w.repo }];
  const isolate = async (nonce) => (await addon.preflightSpawn({ task: 't', cwd: w.repo }, options(w, { inFlight, nonce }))).isolation;
  const empty = await isolate('0000000000000001');
  const done = await addon.finishSpawnWorktree(empty.worktreePath);
  assert.deepEqual([done.removed, done.commitsAhead, done.dirty], [true, 0, false]);
  assert.ok(!fs.existsSync(empty.worktreePath));
  assert.equal(git(w.repo, 'branch', '--list', empty.branch), '');

  const work = await isolate('0000000000000002');
  fs.writeFileSync(path.join(work.worktreePath, 'tax.js'), 'export const tax = 1;\n');
  git(work.worktreePath, 'add', '.');
  git(work.worktreePath, 'commit', '-q', '-m', 'Add tax');
  const kept = await addon.finishSpawnWorktree(work.worktreePath);
  assert.deepEqual([kept.removed, kept.commitsAhead, kept.merged, kept.branch], [false, 1, false, work.branch]);

  const listed = await addon.listSpawnWorktrees(w.repo, { claudeConfigDir: w.claudeConfigDir });
  assert.deepEqual(listed.map((x) => [x.path, x.commitsAhead, x.nonce]), [[work.worktreePath, 1, '0000000000000002']]);
  const pruned = await addon.pruneSpawnWorktrees(w.repo, { claudeConfigDir: w.claudeConfigDir });
  assert.deepEqual(pruned.map((x) => x.removed), [false], 'unmerged work stays');
  const forced = await addon.pruneSpawnWorktrees(w.repo, { force: true, paths: [work.worktreePath], claudeConfigDir: w.claudeConfigDir });
  assert.deepEqual(forced.map((x) => x.removed), [true]);
  assert.deepEqual(await addon.listSpawnWorktrees(w.repo), []);
  await assert.rejects(addon.listSpawnWorktrees(w.claudeConfigDir), (e) => e.code === 'E_WRITE_FAILED' && typeof e.hint === 'string');
});

test('recordSpawn keeps the base commit and the worktree of a spawn', async () => {
  const w = world();
  const stored = await addon.recordSpawn('main', { nonce: 'n1', baseCommit: 'abc', worktreePath: '/r/.claude/worktrees/spawn-n1', worktreeBranch: 'worktree-spawn-n1', worktreeRemoved: false, finalState: 'waiting' }, w.stateDir);
  assert.deepEqual([stored.baseCommit, stored.worktreePath, stored.worktreeBranch, stored.worktreeRemoved, stored.finalState], ['abc', '/r/.claude/worktrees/spawn-n1', 'worktree-spawn-n1', false, 'waiting']);
  const [again] = await addon.listSpawns('main', w.stateDir);
  assert.equal(again.worktreeRemoved, false);
});

test('spawnOutcomes: an isolated spawn read back from its record, transcript and worktree, newest first', async () => {
  const w = world();
  const inFlight = [{ cwd: w.repo, repoPath: w.repo }];
  const r = await addon.preflightSpawn({ task: 'Add tax', cwd: w.repo }, options(w, { inFlight, nonce: 'feedc0de00000003' }));
  const wt = r.isolation.worktreePath;
  await addon.recordSpawn('main', { nonce: r.nonce, task: 'Add tax', cwd: w.repo, repoPath: w.repo, startedAt: new Date(Date.now() - 20_000).toISOString(), baseCommit: r.baseCommit, worktreePath: wt, worktreeBranch: r.isolation.branch, childSessionKey: 'agent:claude:acp:7' }, w.stateDir);
  fs.writeFileSync(path.join(wt, 'tax.js'), 'export const tax = 1;\n');
  git(wt, 'add', '.');
  git(wt, 'commit', '-q', '-m', 'Add tax');
  const id = uuid();
  const answer = { ...assistantLine(id, 'msg_1', { input_tokens: 9, output_tokens: 4 }, { cwd: wt, timestamp: new Date().toISOString() }) };
  answer.message = { ...answer.message, stop_reason: 'end_turn', content: [{ type: 'text', text: 'Tax added and committed.' }] };
  writeSession(w.claudeConfigDir, wt, id, jsonl([userLine(id, r.params.task, { cwd: wt }), answer]));
  const pending = addon.spawnOutcomes({ stateDir: w.stateDir, claudeConfigDir: w.claudeConfigDir, repoPath: w.repo });
  assert.ok(pending instanceof Promise);
  const [o] = await pending;
  assert.deepEqual([o.nonce, o.state, o.sessionId, o.finalMessage, o.turnEnded], [r.nonce, 'ended', id, 'Tax added and committed.', true]);
  assert.deepEqual(o.commits.map((c) => c.subject), ['Add tax']);
  assert.deepEqual(o.filesChanged, ['tax.js']);
  assert.deepEqual([o.inputTokens, o.outputTokens], [9, 4]);
  assert.deepEqual([o.worktree.path, o.worktree.commitsAhead, o.worktree.removed], [wt, 1, false]);
  assert.equal((await addon.spawnOutcomes({ stateDir: w.stateDir, claudeConfigDir: w.claudeConfigDir, childSessionKey: 'agent:claude:acp:8' })).length, 0);
  await assert.rejects(addon.spawnOutcomes({ stateDir: w.stateDir, agentId: '../x' }), (e) => e.code === 'E_INVALID_ARGUMENT');
});
