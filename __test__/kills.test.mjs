// Every writer of the addon, killed at random moments: a child process runs
// one writer in a loop (writer-child.mjs) and is SIGKILLed 5-150 ms after it
// is ready, KILLS times per writer. After each kill every file it writes is
// whole (JSON parses, JSONL parses line by line, transcripts are the old or
// the new version, a SQLite transcript exports as one of them) and the next
// call, made here, goes through (a lock left by the dead child is stale).
// At the end no temporary or lock file is left.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { root, posix } from './helpers.mjs';
import { roundOf, writers, assertWhole, leftovers } from './writers.mjs';

const KILLS = Number(process.env.OSI_KILLS ?? 100);

async function killAt(writer, setupFile, env, delayMs) {
  const child = spawn(process.execPath, [path.join(root, '__test__', 'writer-child.mjs'), writer, setupFile], { env, stdio: ['ignore', 'pipe', 'pipe'] });
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

for (const [name, w] of Object.entries(writers)) {
  test(`${name}: killed ${KILLS} times at random moments, every file stays whole and the next call goes through`, { skip: posix ? false : 'SIGKILL is POSIX' }, async () => {
    const writer = w.writer ?? name;
    const s = w.setup();
    const env = { ...process.env, OPENCLAW_STATE_DIR: s.state, CLAUDE_CONFIG_DIR: s.claude };
    const savedEnv = { OPENCLAW_STATE_DIR: process.env.OPENCLAW_STATE_DIR, CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR };
    Object.assign(process.env, { OPENCLAW_STATE_DIR: s.state, CLAUDE_CONFIG_DIR: s.claude });
    try {
      const versions = w.versions ? await w.versions(s) : [];
      const setupFile = path.join(path.dirname(s.state), 'setup.json');
      fs.writeFileSync(setupFile, JSON.stringify(s));
      for (let i = 0; i < KILLS; i++) {
        await killAt(writer, setupFile, env, 5 + Math.random() * 145);
        assertWhole(s.state, `kill ${i}`);
        await w.check?.(s, versions);
        // The next call: a lock the dead child held must not stop it.
        await roundOf(writer, s, i);
        assertWhole(s.state, `the call after kill ${i}`);
        await w.check?.(s, versions);
      }
      assert.deepEqual(leftovers(s.state), [], 'no temporary or lock files left behind');
    } finally {
      for (const [k, v] of Object.entries(savedEnv)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
}
