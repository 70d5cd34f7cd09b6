#!/usr/bin/env node
// In one fresh process: the spawn pre-flight of a Claude Code spawn in a
// repository, or what it is measured against, gatherProjectStatus and
// discoverSessions called one after the other; or the pre-flight of a spawn
// isolated into a worktree of its own (the repository busy with another
// spawn) with no spare worktree ready, or with one ready (prepared before
// each call, untimed), or what both are measured against, `git worktree add`
// of the same repository alone (each worktree removed again, untimed).
// Prints the first call's time and the median of the repeated calls (the
// first call's with no repeated call), wall and CPU (all threads), in ms.
//   node bench/preflight-once.mjs <repo> <claudeDir> <stateDir> preflight|separate|isolated|isolated-spare|worktree-add [runs]

import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { preflightSpawn, gatherProjectStatus, discoverSessions, prepareSpareWorktree } = require('../index.js');
const [repo, claudeConfigDir, registryRoot, what, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 9);
const options = { claudeConfigDir, registryRoot };
const task = 'Fix the flaky cart test in the checkout flow';

const git = (...args) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
/** Removes a worktree and its branch, untimed (git alone, however long it takes). */
function remove(dir, branch) {
  git('worktree', 'remove', '--force', dir);
  git('branch', '-D', branch);
}
const calls = {
  // A spawn into the idle repository's main tree. The spare worktree such a
  // spawn prepares is checked out off the call's path (the isolation rows
  // measure it); not preparing it keeps a background checkout out of the
  // alternating rounds.
  async preflight() {
    const r = await preflightSpawn({ task, cwd: repo, agentId: 'main' }, { ...options, githubTimeoutMs: 1500, spareWorktree: false });
    if (r.block || !r.briefing) throw new Error(`the pre-flight did not brief: ${r.reason}`);
  },
  async separate() {
    await gatherProjectStatus(repo, 'main', { ...options, githubTimeoutMs: 1500 });
    await discoverSessions(repo, options);
  },
  // Another spawn is starting in the repository: this one gets a worktree,
  // checked out in full (no spare is prepared, before or after).
  isolated: () => isolate(false),
  // The same with the repository's spare worktree ready.
  'isolated-spare': () => isolate(true),
  async 'worktree-add'() {
    const name = `bench-${randomBytes(8).toString('hex')}`;
    const dir = path.join(repo, '.claude', 'worktrees', name);
    git('worktree', 'add', '--quiet', '-b', `worktree-${name}`, dir, 'HEAD');
    return () => remove(dir, `worktree-${name}`);
  },
};
/**
 * The pre-flight of a spawn isolated into the repository, which takes a
 * spare worktree when `spare` (one is prepared first, untimed: the
 * background preparation is turned off so that no checkout runs beside
 * the calls measured).
 */
async function isolate(spare) {
  const inFlight = [{ cwd: repo, repoPath: repo }];
  const r = await preflightSpawn({ task, cwd: repo, agentId: 'main' }, { ...options, githubTimeoutMs: 1500, budgetMs: 600_000, inFlight, nonce: randomBytes(8).toString('hex'), spareWorktree: false });
  if (!r.isolation) throw new Error(`the pre-flight did not isolate: ${r.reason}`);
  if (r.isolation.fromSpare !== spare) throw new Error(`the pre-flight ${spare ? 'did not take' : 'took'} a spare worktree`);
  return () => remove(r.isolation.worktreePath, r.isolation.branch);
}
/** Before each call, untimed: a spare worktree ready when the call takes one. */
const before = what === 'isolated-spare' ? () => prepareSpareWorktree(repo) : async () => {};
const call = calls[what];
/** Wall and CPU time (every thread of the process) of one call, in ms. */
async function timed() {
  await before();
  const cpu = process.cpuUsage();
  const t = performance.now();
  const cleanUp = await call();
  const used = process.cpuUsage(cpu);
  const times = { ms: performance.now() - t, cpuMs: (used.user + used.system) / 1000 };
  await cleanUp?.();
  return times;
}
const first = await timed();
const repeated = [];
for (let i = 0; i < runs; i++) repeated.push(await timed());
const median = (key) => (runs ? repeated.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(runs / 2)] : first[key]);
console.log(JSON.stringify({ firstMs: first.ms, firstCpuMs: first.cpuMs, medianMs: median('ms'), medianCpuMs: median('cpuMs') }));
