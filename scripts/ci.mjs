#!/usr/bin/env node
// CI on a fresh clone (`.ci/run`): installs what it needs, then proves
// everything: `npm run lint`, every fuzz target for 20 s, the generated
// bindings against the committed ones, and every test suite (Rust, the
// TypeScript drop-in check, Node with the full stress counts, the real
// OpenClaw, the real Claude Code CLI, an install from a real registry).
//
// The work is a graph of jobs. A job starts when the jobs it needs have
// passed and a slot is free: builds and CPU-bound suites take turns on the
// CPU lanes, while the suites that mostly wait on real programs (OpenClaw,
// Claude Code, a registry) run beside them. Each profile is built once, into
// a build cache outside the clone that the next run reuses. Each job's
// output goes to its own log, printed whole when the job ends; at the end a
// table gives every job's time and the total against the budget
// (CONTRIBUTING.md, "CI"), on success and on failure alike.
//
// Environment: OSI_CI_CACHE (the build cache; default
// ~/.cache/openclaw-session-intel-ci), OSI_CI_ONLY (comma-separated jobs to
// run with what they need, for trying CI out locally).

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { minutes, phaseTable, runGraph, selectJobs } from './ci-graph.mjs';
import { testSteps } from './test.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const host = execFileSync('rustc', ['-vV'], { encoding: 'utf8' }).match(/^host: (.+)$/m)[1];

/** Minutes `.ci/run` may take on a 2-core machine: with warm caches, and on a fresh one. */
export const BUDGET_MINUTES = { warm: 40, fresh: 60 };
/** Jobs that compute (builds, the Rust and Node suites) running at once:
 *  one, so that on two cores the suites that wait on real programs (whose
 *  gateways and CLIs have start-up deadlines of their own) keep a core. */
const CPU_LANES = 1;
/** Jobs that mostly wait on real programs running at once beside them. */
const WAITING_LANES = 2;
/** The build cache is pruned to nothing above this size. */
const CACHE_LIMIT_BYTES = 24 * 2 ** 30;

const cache = process.env.OSI_CI_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'openclaw-session-intel-ci');
const targets = { check: 'check', build: 'build', fuzz: 'fuzz', release: 'release' };
for (const k of Object.keys(targets)) targets[k] = path.join(cache, targets[k]);
const releaseAddon = path.join(cache, 'release-addon');
const warm = fs.existsSync(targets.build);
const logs = fs.mkdtempSync(path.join(os.tmpdir(), 'osi-ci-logs-'));
const scanCache = fs.mkdtempSync(path.join(os.tmpdir(), 'osi-ci-scan-cache-'));

/** Builds keep no incremental state (a fresh clone cannot use it) and only
 *  line tables for debug info: the same code, a smaller and faster cache. */
const buildEnv = { CARGO_TERM_COLOR: 'never', CARGO_INCREMENTAL: '0', CARGO_PROFILE_DEV_DEBUG: 'line-tables-only', OSI_STRESS: 'full', CI: 'true' };
const napi = [path.join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js'), 'build', '--platform', '--no-const-enum'];
const suites = (dir, pattern) => fs.readdirSync(path.join(root, dir)).filter((f) => pattern.test(f)).sort().map((f) => path.join(dir, f));
const nodeTest = (files) => [process.execPath, ['--test', '--test-concurrency=1', ...files]];
const openclawSuites = suites('__test__/openclaw', /\.openclaw\.mjs$/);
/** The chain suites (OpenClaw + acpx + the adapter + Claude Code) run in one
 *  lane, the other OpenClaw suites in another. */
const chainSuites = ['agent-turn', 'spawn-preflight'].map((s) => `__test__/openclaw/${s}.openclaw.mjs`).filter((f) => openclawSuites.includes(f));
const steps = testSteps(scanCache);

/** Every job: what it needs, whether it computes (`cpu`) or mostly waits on
 *  real programs, its environment and its commands. */
const jobs = [
  { name: 'install', cpu: true, steps: [['npm', ['install', '--no-audit', '--no-fund']]] },
  { name: 'build (debug addon, Rust test binaries)', id: 'build', needs: ['install'], cpu: true, env: { CARGO_TARGET_DIR: targets.build },
    steps: [[process.execPath, napi], ['cargo', ['test', '--workspace', '--target', host, '--no-run']]] },
  { name: 'generated bindings are current', id: 'bindings', needs: ['build'], cpu: true, steps: [['git', ['diff', '--exit-code', '--', 'index.js', 'index.d.ts']]] },
  { name: 'OpenClaw chain suites', id: 'chain', needs: ['build'], cpu: false, steps: [nodeTest(chainSuites)] },
  { name: 'OpenClaw suites', id: 'openclaw', needs: ['build'], cpu: false, steps: [nodeTest(openclawSuites.filter((f) => !chainSuites.includes(f)))] },
  { name: 'Rust tests', id: 'rust', needs: ['build'], cpu: true, env: { CARGO_TARGET_DIR: targets.build }, steps: steps.rust },
  { name: 'Node tests (TypeScript, node:test, full stress)', id: 'node', needs: ['build'], cpu: true, steps: steps.node },
  { name: 'Claude Code CLI suites', id: 'claude', needs: ['build'], cpu: false, steps: [nodeTest(suites('__test__', /\.cli\.mjs$/))] },
  { name: 'lint', needs: ['install'], after: ['build'], cpu: true, env: { CARGO_TARGET_DIR: targets.check }, steps: [['npm', ['run', 'lint']]] },
  { name: 'release addon', id: 'release', needs: ['install'], after: ['build'], cpu: true, env: { CARGO_TARGET_DIR: targets.release },
    steps: [[process.execPath, [...napi, '--release', '--output-dir', releaseAddon]]] },
  { name: 'install from a registry', id: 'install-test', needs: ['release'], cpu: false, env: { OSI_RELEASE_ADDON_DIR: releaseAddon },
    steps: [nodeTest(suites('__test__/install', /\.install\.mjs$/))] },
  { name: 'fuzz (every target 20 s)', id: 'fuzz', needs: ['install'], after: ['build'], cpu: true, env: { CARGO_TARGET_DIR: targets.fuzz }, steps: [['bash', ['fuzz/run.sh', '20']]] },
];
for (const j of jobs) j.id ??= j.name;

/** Every real-program suite file must belong to a job: a new one that does not fails CI. */
function unscheduled() {
  const scheduled = new Set(jobs.flatMap((j) => j.steps.flatMap(([, args]) => args)));
  const all = [...openclawSuites, ...suites('__test__', /\.cli\.mjs$/), ...suites('__test__/install', /\.install\.mjs$/)];
  return all.filter((f) => !scheduled.has(f));
}

/** Runs one command of a job, appending its output to the job's log. */
function runStep(job, [cmd, args, env = {}], log) {
  return new Promise((resolve) => {
    fs.appendFileSync(log, `$ ${[cmd === process.execPath ? 'node' : cmd, ...args].join(' ')}\n`);
    const out = fs.openSync(log, 'a');
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', out, out], env: { ...process.env, ...buildEnv, ...job.env, ...env } });
    child.on('error', (e) => { fs.appendFileSync(log, `${e.message}\n`); resolve(1); });
    child.on('close', (code, signal) => { fs.closeSync(out); resolve(code ?? (signal ? 1 : 0)); });
  });
}

/** Prints a job's whole log under a header. */
function printLog(job, { result, ms }) {
  process.stdout.write(`\n== ${job.name}: ${result === 'failed' ? 'FAILED' : result} in ${minutes(ms ?? 0)}\n`);
  const log = logOf(job);
  if (fs.existsSync(log)) process.stdout.write(fs.readFileSync(log, 'utf8'));
}

/** The log file of a job. */
const logOf = (job) => path.join(logs, `${job.id.replace(/[^\w-]+/g, '_')}.log`);

/** Runs a job's commands one after another, until one fails; resolves to the exit status. */
async function runJob(job) {
  const log = logOf(job);
  fs.writeFileSync(log, '');
  for (const step of job.steps) {
    const status = await runStep(job, step, log);
    if (status !== 0) return status;
  }
  return 0;
}

async function main() {
  const start = Date.now();
  const missing = unscheduled();
  if (missing.length) {
    console.error(`ci: these suites are in no CI job (scripts/ci.mjs): ${missing.join(', ')}`);
    process.exit(1);
  }
  prune();
  fs.mkdirSync(cache, { recursive: true });
  console.log(`== CI: ${warm ? 'warm' : 'fresh'} build cache ${cache}; ${CPU_LANES} computing + ${WAITING_LANES} waiting lanes; logs in ${logs}`);
  const todo = selectJobs(jobs, process.env.OSI_CI_ONLY?.split(',').map((s) => s.trim()).filter(Boolean) ?? []);
  const results = await runGraph(todo, { cpu: CPU_LANES, waiting: WAITING_LANES }, runJob, {
    started: (job) => console.log(`-- ${minutes(Date.now() - start)} start ${job.name}`),
    ended: printLog,
  });
  const total = Date.now() - start;
  const budget = warm ? BUDGET_MINUTES.warm : BUDGET_MINUTES.fresh;
  console.log(`\n== CI phases (${warm ? 'warm' : 'fresh'} build cache)`);
  console.log(phaseTable(todo, results));
  console.log(`\n== total ${minutes(total)} of a ${budget}-minute budget (${warm ? 'warm' : 'fresh'} machine)${total > budget * 60_000 ? ': OVER BUDGET, see CONTRIBUTING.md "CI"' : ''}`);
  const count = (result) => [...results.values()].filter((r) => r.result === result).length;
  const notPassed = todo.length - count('passed');
  console.log(`jobs: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`);
  fs.rmSync(scanCache, { recursive: true, force: true });
  process.exit(notPassed ? 1 : 0);
}

/** Empties the build cache when it has grown past its limit. */
function prune() {
  if (!fs.existsSync(cache)) return;
  const size = Number(execFileSync('du', ['-sb', cache], { encoding: 'utf8' }).split('\t')[0]);
  if (size > CACHE_LIMIT_BYTES) {
    console.log(`== the build cache holds ${(size / 2 ** 30).toFixed(1)} GiB (over ${CACHE_LIMIT_BYTES / 2 ** 30}): emptied`);
    fs.rmSync(cache, { recursive: true, force: true });
  }
}

await main().catch((e) => {
  console.error(`ci: ${e.message}`);
  process.exit(1);
});
