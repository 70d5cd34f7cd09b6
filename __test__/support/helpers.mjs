// Shared helpers of the node:test suites: the built addon, the real fixtures
// (fixtures/shared) copied into writable temp dirs, and
// builders for transcript lines in Claude Code's real shapes.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const addon = createRequire(import.meta.url)(path.join(root, 'entry.js'));
export const fixtures = path.join(root, 'fixtures', 'shared');
/**
 * Writes the agent database OpenClaw wrote for store schema 19, 21 or 23
 * (fixtures; 21 is gzipped) into `state` for agent main; returns its path.
 */
export function writeSqliteStore(state, schema = 23) {
  const db = path.join(state, 'agents', 'main', 'agent', 'openclaw-agent.sqlite');
  fs.mkdirSync(path.dirname(db), { recursive: true });
  const bytes = schema === 21
    ? zlib.gunzipSync(fs.readFileSync(path.join(root, 'fixtures', 'openclaw-sqlite-v21', 'agents', 'main', 'agent', 'openclaw-agent.sqlite.gz')))
    : fs.readFileSync(path.join(fixtures, 'openclaw-sqlite', schema === 23 ? 'v23-2026.9.6' : 'v19-2026.8.2', 'agents', 'main', 'agent', 'openclaw-agent.sqlite'));
  fs.writeFileSync(db, bytes, { mode: 0o600 });
  return db;
}

/**
 * The stress loops (kills, concurrent writers, huge inputs) run their full
 * counts with `OSI_STRESS=full`, which CI sets, and a few iterations
 * otherwise: enough to take every path, in a test loop that stays short.
 */
export const FULL_STRESS = process.env.OSI_STRESS === 'full';
/** `full` with `OSI_STRESS=full`, else `quick`. */
export const stress = (full, quick) => (FULL_STRESS ? full : quick);

/** POSIX permissions and shell scripts exist here (not on Windows). */
export const posix = process.platform !== 'win32';
/** Skips a test off POSIX, saying why. */
export const needsPosix = (why) => ({ skip: posix ? false : why });

const tempDirs = [];
// The addon may still be writing into one at exit: a pre-flight that
// isolated a spawn prepares a spare worktree on a thread of its own, which
// the exit stops wherever it is (the next preparation removes what it left).
// Its files appearing mid-removal are removed on a retry, and a removal that
// still fails leaves the folder behind instead of failing the suite.
process.on('exit', () => {
  for (const dir of tempDirs) {
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    } catch (e) {
      console.error(`# left ${dir}: ${e.code ?? e.message}`);
    }
  }
});

/** Resolves after `ms`. */
export const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

/**
 * Polls `fn` every `everyMs` until it returns a truthy value, and resolves
 * to that value; throws naming `what` after `timeoutMs`. For what the
 * product or its host does off the caller's path (a record written after a
 * hook answered, a real program's turn), which a loaded machine may take
 * its time over.
 */
export async function until(what, fn, timeoutMs = 180_000, everyMs = 250) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * `call()`, made again while it is refused with E_SESSION_BUSY (its lock
 * was not had within the wait, as on a loaded machine with several writers
 * at one file), at most 20 times, as a caller should; any other error is
 * thrown. For the child processes that write one file side by side.
 */
export async function retryBusy(call) {
  for (let tries = 1; ; tries++) {
    try {
      return await call();
    } catch (e) {
      if (e.code !== 'E_SESSION_BUSY' || tries === 20) throw e;
    }
  }
}

/** A fresh temp directory, removed when the process exits. */
export function tempDir(prefix = 'osi-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** A writable copy of the Claude Code fixtures; returns its config root. */
export function fixtureClaudeDir() {
  const dir = tempDir('osi-claude-');
  fs.cpSync(path.join(fixtures, 'claude-code', 'projects'), path.join(dir, 'projects'), { recursive: true });
  for (const p of walk(dir)) fs.chmodSync(p, fs.statSync(p).isDirectory() ? 0o755 : 0o644);
  return dir;
}

function* walk(dir) {
  yield dir;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else yield p;
  }
}

export const slugOf = (p) => p.replace(/[^a-zA-Z0-9]/g, '-');

let counter = 0;
/** A deterministic UUID for test data. */
export function uuid(n = ++counter) {
  const h = n.toString(16).padStart(12, '0');
  return `00000000-0000-4000-8000-${h}`;
}

/** A user prompt line. */
export function userLine(sessionId, text, extra = {}) {
  return { parentUuid: null, isSidechain: false, userType: 'external', cwd: extra.cwd ?? '/repo', sessionId, version: '2.1.39', gitBranch: 'main', type: 'user',
    message: { role: 'user', content: text }, uuid: uuid(), timestamp: '2026-02-12T14:11:57.667Z', ...extra };
}

/** An assistant line of response `id` with the given usage. */
export function assistantLine(sessionId, id, usage, extra = {}) {
  return { parentUuid: null, isSidechain: false, userType: 'external', cwd: extra.cwd ?? '/repo', sessionId, version: '2.1.39', gitBranch: 'main',
    message: { model: 'claude-opus-4-6', id, type: 'message', role: 'assistant', content: [{ type: 'text', text: 'ok' }], stop_reason: null,
      usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...usage } },
    requestId: `req_${id}`, type: 'assistant', uuid: uuid(), timestamp: '2026-02-12T14:12:01.177Z', ...extra };
}

export const jsonl = (lines) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l)) + '\n').join('');

/** Writes `<claudeDir>/projects/<slug(repo)>/<sessionId>.jsonl`. */
export function writeSession(claudeDir, repo, sessionId, content) {
  const dir = path.join(claudeDir, 'projects', slugOf(repo));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${sessionId}.jsonl`);
  fs.writeFileSync(file, content);
  return file;
}

/** An OpenClaw v3 transcript of `turns` tool turns (user, assistant tool
 *  call, tool result of `resultBytes`, assistant text); returns its text. */
export function openclawTranscript(turns, { resultBytes = 2000, prefix = 't' } = {}) {
  const lines = [JSON.stringify({ type: 'session', version: 3, id: 'sess', timestamp: '2026-01-31T08:00:00.000Z', cwd: '/w' })];
  let parent = null;
  let n = 0;
  const push = (entry) => {
    const id = `${prefix}${(n++).toString(16).padStart(7, '0')}`;
    lines.push(JSON.stringify({ ...entry, id, parentId: parent, timestamp: '2026-01-31T08:00:01.000Z' }));
    parent = id;
    return id;
  };
  for (let t = 0; t < turns; t++) {
    push({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: `task ${t}` }], timestamp: 1 } });
    push({ type: 'message', message: { role: 'assistant', content: [{ type: 'toolCall', id: `call_${prefix}${t}|fc_${t}`, name: 'exec', arguments: { command: `cat ${t}` } }], stopReason: 'toolUse', timestamp: 2 } });
    push({ type: 'message', message: { role: 'toolResult', toolCallId: `call_${prefix}${t}|fc_${t}`, toolName: 'exec', content: [{ type: 'text', text: 'r'.repeat(resultBytes) }], isError: false, timestamp: 3 } });
    push({ type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: `done ${t}` }], stopReason: 'stop', timestamp: 4 } });
  }
  return `${lines.join('\n')}\n`;
}
