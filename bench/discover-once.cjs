#!/usr/bin/env node
// One fresh process of the addon, as the gateway would run it:
//   node bench/discover-once.cjs <repo> <claudeDir> <stateDir> [--repeat] [--json-out FILE]
// Prints {count, coldMs, warmMs?, appendMs?, maxRssKb}. With --repeat it also
// times a second call (nothing changed) and a call after one appended line
// (the line is removed again afterwards, so the corpus stays as it was).
//
// CommonJS, like the `node -e 'require(...)'` floor it is compared with: an
// ES module would add Node's ESM loader (5-7 ms per process here) to what
// is measured as the addon's cost.

'use strict';
const fs = require('node:fs');
const { performance } = require('node:perf_hooks');
const { discoverSessions } = require('../entry.js'); // the package, as users load it

main();

async function main() {
  const [repo, claudeConfigDir, registryRoot] = process.argv.slice(2);
  const opts = { claudeConfigDir, registryRoot };
  const out = {};

  let t = performance.now();
  const sessions = await discoverSessions(repo, opts);
  out.coldMs = performance.now() - t;
  out.count = sessions.length;

  if (process.argv.includes('--repeat')) {
    const warm = [];
    for (let i = 0; i < 20; i++) {
      t = performance.now();
      await discoverSessions(repo, opts);
      warm.push(performance.now() - t);
    }
    out.warmMs = warm.sort((a, b) => a - b)[10];
    const file = sessions[0].transcriptPath;
    const size = fs.statSync(file).size;
    const line = JSON.stringify({ parentUuid: null, isSidechain: false, type: 'user', sessionId: sessions[0].sessionId, message: { role: 'user', content: 'one more thing' }, uuid: '00000000-0000-4000-8000-00000000ffff', timestamp: new Date().toISOString() }) + '\n';
    const appended = [];
    try {
      for (let i = 0; i < 10; i++) {
        fs.appendFileSync(file, line);
        t = performance.now();
        const after = await discoverSessions(repo, opts);
        appended.push(performance.now() - t);
        if (after.find((s) => s.sessionId === sessions[0].sessionId).lastUserMessage !== 'one more thing') throw new Error('append not seen');
      }
    } finally {
      fs.truncateSync(file, size);
    }
    out.appendMs = appended.sort((a, b) => a - b)[5];
  }
  const jsonOut = process.argv.indexOf('--json-out');
  if (jsonOut > 0) fs.writeFileSync(process.argv[jsonOut + 1], JSON.stringify(sessions));
  out.maxRssKb = process.resourceUsage().maxRSS;
  console.log(JSON.stringify(out));
}
