#!/usr/bin/env node
// In one fresh process: the spawn pre-flight of a Claude Code spawn in a
// repository, or what it is measured against, gatherProjectStatus and
// discoverSessions called one after the other. Prints the first call's time
// and the median of the repeated calls, in ms.
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
const t = performance.now();
await call();
const firstMs = performance.now() - t;
const times = [];
for (let i = 0; i < runs; i++) {
  const s = performance.now();
  await call();
  times.push(performance.now() - s);
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ firstMs, medianMs: times[Math.floor(runs / 2)] }));
