#!/usr/bin/env node
// npm test: the Rust tests (for the host's target, so that they share the
// build napi made), the TypeScript drop-in check, and the node:test suites.
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const host = execFileSync('rustc', ['-vV'], { encoding: 'utf8' }).match(/^host: (.+)$/m)[1];
const steps = [
  ['cargo', ['test', '--workspace', '--target', host]],
  [process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', '__test__']],
  [process.execPath, ['--test', '__test__/']],
];
for (const [cmd, args] of steps) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`\n${path.basename(cmd)} ${args.join(' ')} failed (exit ${r.status ?? r.signal}).`);
    process.exit(r.status || 1);
  }
}
