#!/usr/bin/env node
// One slimClaudeSession in a fresh process: prints {slimMs, sizeOriginal, sizeAfter, maxRssKb}.
//   node bench/slim-once.mjs <claudeConfigDir> <sessionId>
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';

const { slimClaudeSession } = createRequire(import.meta.url)('../index.js');
const [claudeConfigDir, sessionId] = process.argv.slice(2);
const t = performance.now();
const r = await slimClaudeSession(sessionId, { claudeConfigDir });
console.log(JSON.stringify({ slimMs: performance.now() - t, sizeOriginal: r.sizeOriginal, sizeAfter: r.sizeAfter, maxRssKb: process.resourceUsage().maxRSS }));
