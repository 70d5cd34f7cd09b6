#!/usr/bin/env node
// In one fresh process: the spawn pre-flight of a Claude Code spawn in a
// repository, or what it is measured against, gatherProjectStatus and
// discoverSessions called one after the other. Prints the first call's time
// and the median of the repeated calls, wall and CPU (all threads), in ms.
//   node bench/preflight-once.mjs <repo> <claudeDir> <stateDir> preflight|separate [runs]

import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { preflightSpawn, gatherProjectStatus, discoverSessions } = require('../index.js');
const [repo, claudeConfigDir, registryRoot, what, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 9);
const options = { claudeConfigDir, registryRoot };
const task = 'Fix the flaky cart test in the checkout flow';

const calls = {
  async preflight() {
    const r = await preflightSpawn({ task, cwd: repo, agentId: 'main' }, { ...options, githubTimeoutMs: 1500 });
    if (r.block || !r.briefing) throw new Error(`the pre-flight did not brief: ${r.reason}`);
  },
  async separate() {
    await gatherProjectStatus(repo, 'main', { ...options, githubTimeoutMs: 1500 });
    await discoverSessions(repo, options);
  },
};
const call = calls[what];
/** Wall and CPU time (every thread of the process) of one call, in ms. */
async function timed() {
  const cpu = process.cpuUsage();
  const t = performance.now();
  await call();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - t, cpuMs: (used.user + used.system) / 1000 };
}
const first = await timed();
const repeated = [];
for (let i = 0; i < runs; i++) repeated.push(await timed());
const median = (key) => repeated.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(runs / 2)];
console.log(JSON.stringify({ firstMs: first.ms, firstCpuMs: first.cpuMs, medianMs: median('ms'), medianCpuMs: median('cpuMs') }));
