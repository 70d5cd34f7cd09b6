// The real Claude Code CLI, run offline: `@anthropic-ai/claude-code` from npm
// (its platform package carries the native binary) installed once into the
// shared test cache, and run against the fake Messages API on 127.0.0.1 with
// a scratch HOME and config folder and every phone-home switch off, so every
// byte it writes is its own and nothing leaves the machine.
//
//   const api = await startFakeAnthropic({ respond });
//   const box = claudeScratch();                       // { root, home, config, tmp }
//   const repo = gitRepo(path.join(box.root, 'repo'));  // a real repository (git CLI)
//   const run = await runClaude(box, api, ['-p', 'hello'], { cwd: repo });
//   run.sessionId, run.result.total_cost_usd, run.events …
//   const term = claudeInTerminal(box, api, ['--resume'], { cwd: repo }); // as a person runs it
//   await term.waitFor(/Resume session/); term.close();

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cacheDir, installOnce } from '../openclaw/support/env.mjs';

/** The Claude Code release the suites run. */
export const CLAUDE_CODE = '2.1.328';

/** The platform package npm installs beside `@anthropic-ai/claude-code` for the running platform and CPU. */
function platformPackage() {
  const arch = process.arch;
  if (process.platform === 'win32') return { name: `claude-code-win32-${arch}`, exe: 'claude.exe' };
  if (process.platform === 'darwin') return { name: `claude-code-darwin-${arch}`, exe: 'claude' };
  const musl = !process.report?.getReport?.().header?.glibcVersionRuntime;
  return { name: `claude-code-linux-${arch}${musl ? '-musl' : ''}`, exe: 'claude' };
}

/**
 * The CLI's native binary, installed once into the shared test cache
 * (`<cache>/claude-code-<version>`; npm skips the package's postinstall, so
 * the binary is taken from the platform package itself).
 */
export function claudeBinary(version = CLAUDE_CODE) {
  const dir = path.join(cacheDir, `claude-code-${version}`);
  installOnce(dir, [`@anthropic-ai/claude-code@${version}`]);
  const { name, exe } = platformPackage();
  const bin = path.join(dir, 'node_modules', '@anthropic-ai', name, exe);
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: npm did not install the platform package ${name} (optional dependencies off?)`);
  return bin;
}

/**
 * A scratch world for one or more CLI runs: `root` (a temp folder, removed
 * at exit unless `OSI_KEEP_SCRATCH` is set), `home`, `config` (the
 * CLAUDE_CONFIG_DIR), `tmp`.
 */
export function claudeScratch(prefix = 'osi-cc-') {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  if (!process.env.OSI_KEEP_SCRATCH) process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));
  const box = { root, home: path.join(root, 'home'), config: path.join(root, 'config'), tmp: path.join(root, 'tmp') };
  for (const d of [box.home, box.config, box.tmp]) fs.mkdirSync(d, { recursive: true });
  return box;
}

/** Every switch that keeps the CLI from reaching anything but `ANTHROPIC_BASE_URL`. */
export const OFFLINE = Object.freeze(Object.fromEntries([
  'DISABLE_AUTOUPDATER', 'DISABLE_UPDATES', 'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC', 'DISABLE_TELEMETRY',
  'DISABLE_ERROR_REPORTING', 'DISABLE_GROWTHBOOK', 'CLAUDE_CODE_DISABLE_FEATURE_FLAGS',
  'CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY', 'CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL',
].map((k) => [k, '1'])));

/**
 * The environment of an offline CLI run in `box` against `api` (anything
 * with a `url`): only PATH and the locale are kept from this process, so no
 * real key, config or proxy leaks in. As root, `--dangerously-skip-permissions`
 * needs `IS_SANDBOX=1`.
 */
export function claudeEnv(box, api, extra = {}) {
  const keep = Object.fromEntries(['PATH', 'LANG', 'LC_ALL', 'SystemRoot', 'TZ'].filter((k) => process.env[k] != null).map((k) => [k, process.env[k]]));
  return {
    ...keep, ...OFFLINE,
    ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-offline-test',
    HOME: box.home, USERPROFILE: box.home, CLAUDE_CONFIG_DIR: box.config,
    CLAUDE_CODE_TMPDIR: box.tmp, XDG_RUNTIME_DIR: box.tmp, TMPDIR: box.tmp,
    IS_SANDBOX: '1', NO_COLOR: '1',
    ...extra,
  };
}

/** Runs `git args…` in `cwd`; returns its trimmed output. */
export function git(cwd, ...args) {
  return execFileSync('git', args, {
    cwd, encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.com', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: os.devNull },
  }).trim();
}

/**
 * A real git repository at `dir` (created with the git CLI) on branch
 * `main`, with `files` (relative path → text; default a README) committed.
 * Returns `dir` with symlinks resolved.
 */
export function gitRepo(dir, files = { 'README.md': '# test\n' }) {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  return fs.realpathSync(dir);
}

/**
 * Starts the CLI: `claude <args…> --dangerously-skip-permissions` in `cwd`
 * with `claudeEnv(box, api, env)`, stdin closed. With `-p` and
 * `--output-format stream-json` (add `--verbose`) its stdout is one JSON
 * event a line. Returns `{ child, pid, done }`; `done` resolves with
 * `{ code, signal, stdout, stderr, events, result, sessionId }` (`result` is
 * the last `type: "result"` event, `sessionId` its or the init event's
 * `session_id`). The run is killed after `timeout` ms.
 */
export function startClaude(box, api, args, { cwd, env = {}, timeout = 120_000 } = {}) {
  const child = spawn(claudeBinary(), [...args, '--dangerously-skip-permissions'], {
    cwd, env: claudeEnv(box, api, env), stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
  const done = new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const events = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => { try { return JSON.parse(l); } catch { return null; } }).filter(Boolean);
      const result = events.filter((e) => e.type === 'result').at(-1) ?? null;
      const sessionId = result?.session_id ?? events.find((e) => e.type === 'system' && e.subtype === 'init')?.session_id ?? null;
      resolve({ code, signal, stdout, stderr, events, result, sessionId });
    });
  });
  return { child, pid: child.pid, done };
}

/**
 * Runs the CLI to its end (see `startClaude`); throws with its output when
 * it fails or reports an error result.
 */
export async function runClaude(box, api, args, opts = {}) {
  const run = await startClaude(box, api, args, opts).done;
  if (run.code !== 0 || run.result?.is_error) {
    throw new Error(`claude ${args.join(' ')} exited ${run.code ?? run.signal}\n${run.stdout.slice(-4000)}\n${run.stderr.slice(-4000)}`);
  }
  return run;
}

/** The arguments for a one-prompt run whose stdout carries the CLI's own totals. */
export const print = (prompt, ...more) => ['-p', prompt, '--output-format', 'stream-json', '--verbose', ...more];

/** Whether tmux, which `claudeInTerminal` runs the CLI in, is installed. */
export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

/**
 * The CLI as a person runs it: `claude <args…>` in a terminal (a detached
 * tmux session, 200×50, on a tmux server of its own) in `cwd`, with
 * `claudeEnv(box, api)`, onboarding done and `cwd` trusted in the config
 * (the CLI would otherwise ask first). Sessions made this way are the ones
 * the `--resume` picker lists (it leaves out those of `-p` runs). Returns
 * `{ screen, waitFor, keys, close }`: the screen's text now, a wait for it
 * to match a pattern (its text; throws with the screen after `ms`), keys
 * sent as tmux names them, and the end of the terminal and the CLI in it
 * (awaited: the CLI has exited).
 */
export function claudeInTerminal(box, api, args, { cwd }) {
  const configFile = path.join(box.config, '.claude.json');
  const config = fs.existsSync(configFile) ? JSON.parse(fs.readFileSync(configFile, 'utf8')) : {};
  Object.assign(config, {
    hasCompletedOnboarding: true, theme: 'dark', lastOnboardingVersion: CLAUDE_CODE,
    customApiKeyResponses: { approved: ['sk-ant-offline-test'.slice(-20)], rejected: [] },
  });
  config.projects = { ...config.projects, [cwd]: { ...config.projects?.[cwd], hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } };
  fs.writeFileSync(configFile, JSON.stringify(config));
  const server = `osi-cc-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const tmux = (...a) => execFileSync('tmux', ['-L', server, '-f', os.devNull, ...a], { encoding: 'utf8' });
  const quote = (v) => `'${String(v).replaceAll("'", "'\\''")}'`;
  const env = Object.entries(claudeEnv(box, api)).map(([k, v]) => `${k}=${quote(v)}`).join(' ');
  tmux('new-session', '-d', '-s', 'cli', '-x', '200', '-y', '50', '-c', cwd, `env -i ${env} ${quote(claudeBinary())} ${args.map(quote).join(' ')}`);
  // `env` execs the CLI: the pane's process is the CLI's.
  const pid = Number(tmux('list-panes', '-t', 'cli', '-F', '#{pane_pid}').trim());
  const alive = () => { try { process.kill(pid, 0); return true; } catch { return false; } };
  const screen = () => tmux('capture-pane', '-p', '-t', 'cli');
  return {
    screen,
    async waitFor(pattern, ms = 60_000) {
      for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
        const text = screen();
        if (pattern.test(text)) return text;
      }
      throw new Error(`the terminal never showed ${pattern}:\n${screen()}`);
    },
    keys: (...keys) => tmux('send-keys', '-t', 'cli', ...keys),
    /** Ends the terminal, and the CLI in it (killed after 5 s). */
    async close() {
      spawnSync('tmux', ['-L', server, 'kill-server']);
      for (let i = 0; i < 100 && alive(); i++) await new Promise((r) => setTimeout(r, 50));
      if (alive()) process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 100 && alive(); i++) await new Promise((r) => setTimeout(r, 50));
    },
  };
}
