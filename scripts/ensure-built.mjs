#!/usr/bin/env node
// Makes a fresh clone runnable: installs the npm dev dependencies when they
// are missing, then (re)builds the addon. Cargo rebuilds only what changed,
// so on an up-to-date tree this takes a second or two.
//   node scripts/ensure-built.mjs           release build (npm start, bench)
//   node scripts/ensure-built.mjs --debug   debug build (npm test)

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// npm is npm.cmd on Windows, which only a shell starts.
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], shell: process.platform === 'win32' && cmd === 'npm' });
  if (r.status !== 0) {
    console.error(`\n${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal}).`);
    process.exit(r.status || 1);
  }
};

const napi = path.join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js');
if (!fs.existsSync(napi)) {
  console.error('Installing npm dev dependencies...');
  run('npm', ['install', '--no-audit', '--no-fund']);
}
const debug = process.argv.includes('--debug');
console.error(`Building the addon (${debug ? 'debug' : 'release'})...`);
run(process.execPath, [napi, 'build', '--platform', '--no-const-enum', ...(debug ? [] : ['--release'])]);
