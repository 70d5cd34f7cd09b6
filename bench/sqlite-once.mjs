#!/usr/bin/env node
// In a fresh process, on a SQLite agent store:
//   node bench/sqlite-once.mjs edit <stateDir> <session> <preset>   → {editMs, removed, maxRssKb}
//   node bench/sqlite-once.mjs list <stateDir> <runs>               → {firstMs, medianMs, sessions}
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';

const { executeEdit, listTranscripts } = createRequire(import.meta.url)('../index.js');
const [mode, stateDir, a, b] = process.argv.slice(2);
if (mode === 'edit') {
  const t = performance.now();
  const r = await executeEdit({ stateDir, sessionId: a, toolRemoval: { preset: b } });
  console.log(JSON.stringify({ editMs: performance.now() - t, removed: r.statistics.toolCallsRemoved, sizeOriginal: r.statistics.sizeOriginal, maxRssKb: process.resourceUsage().maxRSS }));
} else {
  const times = [];
  let sessions = 0;
  for (let i = 0; i < Number(a); i++) {
    const t = performance.now();
    sessions = (await listTranscripts({ stateDir })).length;
    times.push(performance.now() - t);
  }
  const firstMs = times[0];
  times.sort((x, y) => x - y);
  console.log(JSON.stringify({ firstMs, medianMs: times[Math.floor(times.length / 2)], sessions }));
}
