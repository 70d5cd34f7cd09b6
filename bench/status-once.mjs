#!/usr/bin/env node
// In one process, warm: gatherProjectStatus (and its first call) against the reference's approach
// (the same seven commands spawned concurrently from Node, as
// project-status.ts does). Prints the medians in ms.
//   node bench/status-once.mjs <repo> [runs]

import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { gatherProjectStatus } = require('../index.js');
const [repo, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 9);
const empty = path.join(os.tmpdir(), 'osi-bench-none');
const run = (cmd, args) => new Promise((resolve) => execFile(cmd, args, { cwd: repo, timeout: 5000 }, (err, stdout) => resolve(err ? '' : stdout.trim())));
const reference = () => Promise.allSettled([
  run('git', ['branch', '--show-current']),
  run('git', ['log', '-1', '--format=%h %s']),
  run('git', ['status', '--short']),
  run('git', ['stash', 'list']),
  run('git', ['log', '--oneline', '-10', '--format=%h|%s|%an|%ar']),
  run('gh', ['pr', 'list', '--json', 'number,title,headRefName,state', '--limit', '5']),
  run('gh', ['pr', 'checks', '--json', 'name,state']),
]);
const ours = () => gatherProjectStatus(repo, undefined, { claudeConfigDir: empty, registryRoot: empty });

async function median(fn) {
  await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

// The first status of a work tree in a process stats every tracked file;
// later ones only those in folders inotify reported a change in.
const t = performance.now();
const status = await ours();
const firstMs = performance.now() - t;
console.log(JSON.stringify({ firstMs, oursMs: await median(ours), referenceMs: await median(reference), lines: status.git.uncommittedChanges.length + status.git.stagedChanges.length }));
