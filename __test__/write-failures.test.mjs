// Every writer of the addon (writers.mjs) against a disk that fills up
// mid-write (a small tmpfs as root; a file-size limit, RLIMIT_FSIZE, for
// every user, at half the smallest file a round writes), a read-only tree (a
// read-only bind mount as root, else permissions) and a file it writes
// replaced by a directory: each answers E_WRITE_FAILED with a hint, and
// leaves every file byte-identical, with nothing added.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { tempDir, posix, root } from './support/helpers.mjs';
import { roundOf, writers, files } from './support/writers.mjs';

const sh = (cmd) => spawnSync('sh', ['-c', cmd], { encoding: 'utf8' });
/** Root that may mount (not so in a container without CAP_SYS_ADMIN). */
const canMount = (() => {
  if (!posix || process.getuid() !== 0) return false;
  const probe = fs.realpathSync(tempDir('osi-mount-'));
  const ok = sh(`mount -t tmpfs -o size=64k tmpfs '${probe}'`).status === 0;
  if (ok) sh(`umount '${probe}'`);
  return ok;
})();

/** Linux's prlimit, to start a child under a file-size limit. */
const hasPrlimit = process.platform === 'linux' && sh('prlimit --version').status === 0;

/** Runs `fn` on a tmpfs of `kb` KiB mounted on a fresh folder. */
async function onTmpfs(kb, fn) {
  const dir = fs.realpathSync(tempDir('osi-full-'));
  assert.equal(sh(`mount -t tmpfs -o size=${kb}k tmpfs '${dir}'`).status, 0, 'tmpfs could not be mounted');
  try {
    await fn(dir);
  } finally {
    sh(`umount '${dir}'`);
  }
}

/** Makes `dir` read-only; returns how to undo it. */
function readOnly(dir) {
  if (canMount) {
    assert.equal(sh(`mount --bind '${dir}' '${dir}' && mount -o remount,bind,ro '${dir}'`).status, 0);
    return () => sh(`umount '${dir}'`);
  }
  const dirs = [dir, ...[...walkDirs(dir)]];
  for (const d of dirs) fs.chmodSync(d, 0o555);
  return () => dirs.forEach((d) => fs.chmodSync(d, 0o755));
}

function* walkDirs(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      yield path.join(dir, e.name);
      yield* walkDirs(path.join(dir, e.name));
    }
  }
}

/** Every file under `dir` with its bytes, but SQLite's wal-index (`-shm`),
 *  which every connection rewrites, readers included, and rebuilds from the
 *  database and its WAL. */
const snapshot = (dir) => new Map([...files(dir)].filter((f) => !f.endsWith('-shm')).sort().map((f) => [f, fs.readFileSync(f)]));

function assertUnchanged(before, dir, what) {
  const after = snapshot(dir);
  assert.deepEqual([...after.keys()], [...before.keys()], `${what}: files were added or removed`);
  for (const [f, bytes] of before) assert.ok(after.get(f).equals(bytes), `${what}: ${f} changed`);
}

async function assertWriteFailed(promise, what) {
  await assert.rejects(promise, (e) => {
    assert.equal(e.code, 'E_WRITE_FAILED', `${what}: ${e.code} ${e.message}`);
    assert.ok(typeof e.hint === 'string' && e.hint.length > 0, `${what}: no hint`);
    return true;
  }, `${what}: the call succeeded`);
}

/** A writer set up and through its first versions, ready for the fault. */
async function ready(w, dir) {
  const s = w.setup(dir);
  Object.assign(process.env, { OPENCLAW_STATE_DIR: s.state, CLAUDE_CONFIG_DIR: s.claude });
  if (w.versions) await w.versions(s);
  return s;
}

for (const [name, w] of Object.entries(writers)) {
  const writer = w.writer ?? name;

  test(`${name}: a disk that fills up mid-write`, { skip: canMount ? false : 'needs to mount a tmpfs (root with CAP_SYS_ADMIN)' }, async () => {
    await onTmpfs(16 * 1024, async (dir) => {
      const s = await ready(w, dir);
      // Fill the disk, then free a few pages (none for a writer of small
      // files): the write starts and runs out.
      const filler = path.join(dir, 'filler');
      const fd = fs.openSync(filler, 'w');
      const chunk = Buffer.alloc(64 * 1024, 1);
      try {
        for (;;) fs.writeSync(fd, chunk);
      } catch (e) {
        assert.equal(e.code, 'ENOSPC');
      }
      fs.closeSync(fd);
      if (!w.small) fs.truncateSync(filler, Math.max(0, fs.statSync(filler).size - 3 * 4096));
      const before = snapshot(s.state);
      await assertWriteFailed(roundOf(writer, s, 0), 'disk full');
      assertUnchanged(before, s.state, 'disk full');
    });
  });

  test(`${name}: a file-size limit hit mid-write (RLIMIT_FSIZE, no root needed)`, { skip: hasPrlimit ? false : 'needs prlimit (util-linux)' }, async () => {
    // The limit is half the smallest file the round writes, so that every
    // write of the round that goes past it stops partway, small files' too.
    const probe = await ready(w);
    const untouched = snapshot(probe.state);
    await roundOf(writer, probe, 0);
    const sizes = [...snapshot(probe.state)].filter(([f, b]) => !untouched.get(f)?.equals(b)).map(([, b]) => b.length);
    const limit = Math.max(1, Math.floor(Math.min(...sizes) / 2));

    const s = await ready(w);
    const setup = path.join(fs.realpathSync(tempDir('osi-fsize-')), 'setup.json');
    fs.writeFileSync(setup, JSON.stringify(s));
    const before = snapshot(s.state);
    const child = spawnSync('prlimit', [`--fsize=${limit}`, process.execPath, path.join(root, '__test__', 'support', 'writer-child.mjs'), writer, setup, '--once'], { env: process.env, encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    const answer = JSON.parse(child.stdout);
    assert.equal(answer.code, 'E_WRITE_FAILED', `limit ${limit} bytes: ${child.stdout}`);
    assert.ok(answer.hint, 'no hint');
    assertUnchanged(before, s.state, `file size limit ${limit}`);
  });

  test(`${name}: a read-only tree`, { skip: canMount || (posix && process.getuid() !== 0) ? false : 'root that cannot mount is not stopped by permissions' }, async () => {
    const s = await ready(w);
    const before = snapshot(s.state);
    const undo = readOnly(s.state);
    try {
      await assertWriteFailed(roundOf(writer, s, 0), 'read-only');
    } finally {
      undo();
    }
    assertUnchanged(before, s.state, 'read-only');
  });
}

test('a state file replaced by a directory: E_WRITE_FAILED, nothing else changed', async () => {
  for (const [name, w] of Object.entries(writers)) {
    const writer = w.writer ?? name;
    // Which JSON files does one round write (under names a second round
    // writes again: not timestamped snapshots)? Each in turn becomes a directory.
    const probe = await ready(w);
    const untouched = snapshot(probe.state);
    await roundOf(writer, probe, 0);
    const written = [...snapshot(probe.state)].filter(([f, b]) => f.endsWith('.json') && !/\d{4}-\d\d-\d\dT/.test(f) && !untouched.get(f)?.equals(b)).map(([f]) => path.relative(probe.state, f));
    assert.ok(written.length > 0 || name.startsWith('edit'), `${name} wrote no JSON file`);
    for (const rel of written) {
      const s = await ready(w);
      const target = path.join(s.state, rel);
      fs.rmSync(target, { force: true });
      fs.mkdirSync(target, { recursive: true });
      const before = snapshot(s.state);
      await assertWriteFailed(roundOf(writer, s, 0), `${name}: ${rel} is a directory`);
      assertUnchanged(before, s.state, `${name}: ${rel} is a directory`);
      assert.ok(fs.statSync(target).isDirectory());
    }
  }
});
