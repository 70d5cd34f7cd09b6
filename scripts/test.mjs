#!/usr/bin/env node
// npm test: the Rust tests (for the host's target, so that they share the
// build napi made), the TypeScript drop-in check, and the node:test suites;
// the suites that discover sessions run twice: with the persistent scan
// cache (in a temporary folder, never the user's) and the change monitor,
// and with neither (of occ's suite, the tests that discover sessions).
// Stress loops run a few iterations unless OSI_STRESS=full (CONTRIBUTING.md).
// CI (scripts/ci.mjs) runs the same steps, the Rust ones beside the others.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The steps of `npm test` as `[command, args, env]`, in two groups that
 *  share nothing: `rust` (cargo) and `node` (the TypeScript check and the
 *  node:test suites, whose persistent scan cache lives in `cacheDir`). */
export function testSteps(cacheDir) {
  const host = execFileSync('rustc', ['-vV'], { encoding: 'utf8' }).match(/^host: (.+)$/m)[1];
  const withCache = { OPENCLAW_SESSION_INTEL_CACHE_DIR: cacheDir };
  const withoutCache = { OPENCLAW_SESSION_INTEL_CACHE: 'off', OPENCLAW_SESSION_INTEL_WATCH: 'off' };
  const discovering = ['discovery', 'project-status', 'resume', 'hooks', 'mcp'].map((s) => `__test__/${s}.test.mjs`);
  const occDiscovering = ['--test-name-pattern=^cc ', '--test-name-pattern=README', '--test-name-pattern=npm start', '__test__/occ.test.mjs'];
  return {
    rust: [['cargo', ['test', '--workspace', '--target', host]]],
    node: [
      [process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', '__test__']],
      [process.execPath, ['--test', '__test__/'], withCache],
      [process.execPath, ['--test', ...discovering], withoutCache],
      [process.execPath, ['--test', ...occDiscovering], withoutCache],
    ],
  };
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'osi-scan-cache-'));
  const { rust, node } = testSteps(cacheDir);
  for (const [cmd, args, env = {}] of [...rust, ...node]) {
    const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
    if (r.status !== 0) {
      console.error(`\n${path.basename(cmd)} ${args.join(' ')} failed (exit ${r.status ?? r.signal}).`);
      process.exit(r.status || 1);
    }
  }
  fs.rmSync(cacheDir, { recursive: true, force: true });
}
