// Isolation through the addon on real git repositories: a spawn into a busy
// repository gets a worktree of its own (`preflightSpawn`'s `isolation`,
// `params.cwd`), and the worktree's end (`finishSpawnWorktree`), listing
// and pruning (`listSpawnWorktrees`, `pruneSpawnWorktrees`). The faults and
// their clean-up are proven in crates/core/tests/spawn_worktrees.rs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addon } from './support/helpers.mjs';
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
    subfolder: 'src', reason: 'another spawn is starting in the main working tree',
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
