#!/usr/bin/env node
// One executeEdit in a fresh process: prints {editMs, maxRssKb}.
//   node bench/edit-once.mjs <stateDir> <preset>
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';

const { executeEdit } = createRequire(import.meta.url)('../index.js');
const [stateDir, preset] = process.argv.slice(2);
const t = performance.now();
const r = await executeEdit({ stateDir, toolRemoval: { preset } });
console.log(JSON.stringify({ editMs: performance.now() - t, changed: r.changed, removed: r.statistics.toolCallsRemoved, maxRssKb: process.resourceUsage().maxRSS }));
