// Every writer of the addon, killed at random moments: a child process runs
// one writer in a loop (writer-child.mjs) and is SIGKILLed 5-150 ms after it
// is ready (a window that widens on a machine too loaded to finish calls in
// it), KILLS times per writer. After each kill every file it writes is
// whole (JSON parses, JSONL parses line by line) and is the old or the new
// version: transcripts are compared with both, a SQLite transcript exports
// as one of them, and the small writers' files (registry, pins, retirements,
// handoff) are compared with a replay of the child's calls on a copy of the
// files it started from: each file is what the calls the child finished
// wrote, or what the call it was killed in writes. Then the next call, made
// here, goes through (a lock left by the dead child is stale). At the end no
// temporary or lock file is left.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { root, posix, stress } from './support/helpers.mjs';
import { roundOf, callsOf, writers, assertWhole, leftovers, files } from './support/writers.mjs';

const KILLS = Number(process.env.OSI_KILLS ?? stress(100, 5));

/** Rounds a child makes before its kill are numbered from `kill * ROUNDS`,
 *  the call made here after it is round `kill * ROUNDS + ROUNDS - 1`: a
 *  child makes fewer than that in 150 ms, and the handoff's clock (an hour
 *  a round) only moves forward. */
const ROUNDS = 1000;

async function killAt(writer, setupFile, env, delayMs, first, opLog) {
  const child = spawn(process.execPath, [path.join(root, '__test__', 'support', 'writer-child.mjs'), writer, setupFile, String(first), opLog], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((r) => child.on('exit', (code, signal) => r({ code, signal })));
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve);
    child.once('exit', () => reject(new Error(`the ${writer} child died before it was ready: ${stderr}`)));
  });
  await new Promise((r) => setTimeout(r, delayMs));
  child.kill('SIGKILL');
  const { signal } = await exited;
  assert.equal(signal, 'SIGKILL', `the ${writer} child stopped on its own: ${stderr}`);
}

const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g;

/** The files under `dir` but temporary and lock files, by relative path, as
 *  text with the state dirs (`dir` and, in a replay's copies, the one copied)
 *  and the wall-clock times in them masked: a replay runs later, elsewhere. */
function contents(dir, state = dir) {
  const out = new Map();
  for (const f of files(dir)) {
    if (/\.tmp-|\.lock$/.test(path.basename(f))) continue;
    const text = fs.readFileSync(f, 'utf8').replaceAll(dir, '<dir>').replaceAll(state, '<dir>');
    out.set(path.relative(dir, f), text.replace(ISO_TIME, '<time>'));
  }
  return out;
}

/** Runs `fn` with the registry's state dir (taken from the environment) at `dir`. */
async function withStateDir(dir, fn) {
  const saved = process.env.OPENCLAW_STATE_DIR;
  process.env.OPENCLAW_STATE_DIR = dir;
  try {
    return await fn();
  } finally {
    process.env.OPENCLAW_STATE_DIR = saved;
  }
}

/** The files after the first `count` calls a child starting at round
 *  `first` makes, and after one more, replayed on copies of `start`. */
async function replay(writer, s, start, first, count) {
  const [done, next] = ['replay-done', 'replay-next'].map((n) => path.join(path.dirname(s.state), n));
  for (const d of [done, next]) fs.rmSync(d, { recursive: true, force: true });
  fs.cpSync(start, done, { recursive: true });
  await withStateDir(done, async () => {
    const calls = callsOf(writer, { ...s, state: done }, first);
    for (let i = 0; i < count; i++) await calls.next().value();
  });
  fs.cpSync(done, next, { recursive: true });
  await withStateDir(next, async () => {
    const calls = callsOf(writer, { ...s, state: next }, first);
    for (let i = 0; i < count; i++) calls.next();
    await calls.next().value();
  });
  return [contents(done, s.state), contents(next, s.state)];
}

for (const [name, w] of Object.entries(writers)) {
  // OSI_KILLS is the count of every writer; the stress count is shared out.
  const kills = process.env.OSI_KILLS ? KILLS : Math.max(5, Math.round(KILLS * (w.killShare ?? 1)));
  test(`${name}: killed ${kills} times at random moments, every file stays whole and the next call goes through`, { skip: posix ? false : 'SIGKILL is POSIX' }, async (t) => {
    const writer = w.writer ?? name;
    const s = w.setup();
    const env = { ...process.env, OPENCLAW_STATE_DIR: s.state, CLAUDE_CONFIG_DIR: s.claude };
    const savedEnv = { OPENCLAW_STATE_DIR: process.env.OPENCLAW_STATE_DIR, CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR };
    Object.assign(process.env, { OPENCLAW_STATE_DIR: s.state, CLAUDE_CONFIG_DIR: s.claude });
    try {
      const versions = w.versions ? await w.versions(s) : [];
      const setupFile = path.join(path.dirname(s.state), 'setup.json');
      fs.writeFileSync(setupFile, JSON.stringify(s));
      const start = path.join(path.dirname(s.state), 'start');
      const opLog = path.join(path.dirname(s.state), 'calls.log');
      let replayedCalls = 0;
      let midCall = 0;
      // The kill falls 5 ms to `windowMs` after the child is ready. A loaded
      // machine (CI runs suites side by side) may finish no call in 150 ms:
      // then the window doubles, up to 2.4 s, so that kills keep landing
      // both between calls and inside them.
      let windowMs = 150;
      let recentCalls = 0;
      for (let i = 0; i < kills; i++) {
        const first = i * ROUNDS;
        if (w.replayed) {
          fs.rmSync(start, { recursive: true, force: true });
          fs.cpSync(s.state, start, { recursive: true });
        }
        fs.writeFileSync(opLog, '');
        await killAt(writer, setupFile, env, 5 + Math.random() * (windowMs - 5), first, opLog);
        assertWhole(s.state, `kill ${i}`);
        await w.check?.(s, versions);
        if (w.replayed) {
          const finished = fs.statSync(opLog).size;
          replayedCalls += finished;
          recentCalls += finished;
          if (i % 10 === 9) {
            if (recentCalls < 10 && windowMs < 2400) windowMs *= 2;
            recentCalls = 0;
          }
          const [done, next] = await replay(writer, s, start, first, finished);
          const now = contents(s.state);
          const paths = new Set([...now.keys(), ...done.keys(), ...next.keys()]);
          if ([...paths].some((f) => now.get(f) !== done.get(f))) midCall++;
          for (const f of paths) {
            assert.ok(now.get(f) === done.get(f) || now.get(f) === next.get(f), `kill ${i} after ${finished} calls: ${f} is neither what they wrote nor what the next call writes`);
          }
        }
        // The next call: a lock the dead child held must not stop it.
        await roundOf(writer, s, first + ROUNDS - 1);
        assertWhole(s.state, `the call after kill ${i}`);
        await w.check?.(s, versions);
      }
      assert.deepEqual(leftovers(s.state), [], 'no temporary or lock files left behind');
      if (w.replayed) {
        // That the replays compared something: a slow writer on a loaded
        // machine may finish no call in a handful of kills (the window
        // widens only after ten), so this holds over the full count
        // (OSI_STRESS=full), not over a few.
        if (kills >= 50) assert.ok(replayedCalls > kills, `the children finished ${replayedCalls} calls in all`);
        t.diagnostic(`${replayedCalls} calls finished before the kills, replayed; ${midCall} kills fell after a call's write but before it returned`);
      }
    } finally {
      for (const [k, v] of Object.entries(savedEnv)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
}
