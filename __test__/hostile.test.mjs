// Hostile and huge input: each attack runs one call in a process of its own
// (hostile-child.mjs) and checks that it answers (a result or a coded
// error) within a time bound and with peak memory (max RSS) bounded
// independently of the input's size. The bounds are generous enough for
// the debug build on a loaded 2-core machine; docs/reliability.md lists
// them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { root, tempDir, slugOf, userLine, jsonl, posix, stress } from './support/helpers.mjs';

const GiB = 1024 ** 3;
const RSS_MB = 400;
// Sizes past the memory bound, so that holding the input would fail; the
// full sizes with OSI_STRESS=full.
const SPARSE = stress(4 * GiB, GiB);
const LINE = stress(GiB, GiB / 2);
const SESSIONS = stress(100_000, 10_000);
const REGISTRY_ENTRIES = stress(110_000, 11_000);

function place() {
  const dir = fs.realpathSync(tempDir('osi-hostile-'));
  const p = { repo: path.join(dir, 'repo'), claude: path.join(dir, 'claude'), state: path.join(dir, 'state') };
  p.project = path.join(p.claude, 'projects', slugOf(p.repo));
  for (const d of [p.repo, p.project, p.state]) fs.mkdirSync(d, { recursive: true });
  return p;
}

function run(call, p, { seconds = 120, rssMb = RSS_MB } = {}) {
  const args = path.join(path.dirname(p.state), 'args.json');
  fs.writeFileSync(args, JSON.stringify(p));
  const r = spawnSync(process.execPath, [path.join(root, '__test__', 'support', 'hostile-child.mjs'), call, args], { encoding: 'utf8', timeout: seconds * 1000, maxBuffer: 1 << 26 });
  assert.equal(r.signal, null, `${call} did not answer within ${seconds} s (${r.signal}): ${r.stderr}`);
  assert.equal(r.status, 0, `${call} crashed: ${r.stderr}`);
  const out = JSON.parse(r.stdout);
  console.log(`# ${call}: ${out.ms} ms, max RSS ${out.rssMb} MB`);
  assert.ok(out.rssMb < rssMb, `${call} peaked at ${out.rssMb} MB (bound ${rssMb} MB)`);
  if (!out.ok) assert.match(out.code ?? '', /^E_[A-Z_]+$/, `${call} failed without a code: ${out.message}`);
  return out;
}

const SID = (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

test(`a sparse ${SPARSE / GiB} GB transcript: counted, not held in memory`, () => {
  const p = place();
  const file = path.join(p.project, `${SID(1)}.jsonl`);
  fs.closeSync(fs.openSync(file, 'w'));
  fs.truncateSync(file, SPARSE);
  const out = run('discover', p);
  assert.deepEqual([out.result.count, out.result.first.fileSizeBytes, out.result.first.messageCount], [1, SPARSE, 1]);
});

test(`a single ${LINE / 2 ** 20} MB line: skipped whole, the line after it is read`, () => {
  const p = place();
  const file = path.join(p.project, `${SID(2)}.jsonl`);
  const head = '{"type":"user","message":{"role":"user","content":"';
  fs.writeFileSync(file, head);
  // The middle of the string is a hole: the line's bytes without their disk.
  fs.truncateSync(file, head.length + LINE);
  fs.appendFileSync(file, `"}}\n${JSON.stringify(userLine(SID(2), 'after the giant line', { cwd: p.repo }))}\n`);
  const out = run('discover', p);
  assert.equal(out.result.first.messageCount, 2);
  assert.equal(out.result.first.lastUserMessage, 'after the giant line');
});

test('binary garbage, invalid UTF-8 in strings and JSON nested 100,000 deep', () => {
  const p = place();
  const garbage = crypto.randomBytes(8 << 20);
  const badUtf8 = Buffer.concat([Buffer.from('{"type":"user","sessionId":"x","message":{"role":"user","content":"fix \xff\xfe the '), Buffer.from([0xc3, 0x28, 0xed, 0xa0, 0x80]), Buffer.from(' cart"}}\n')]);
  const deep = `{"type":"user","message":{"role":"user","content":${'['.repeat(100_000)}${']'.repeat(100_000)}}}\n`;
  const deepObjects = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}\n`;
  fs.writeFileSync(path.join(p.project, `${SID(3)}.jsonl`), Buffer.concat([garbage, Buffer.from('\n'), badUtf8, Buffer.from(deep + deepObjects), Buffer.from(jsonl([userLine(SID(3), 'still here', { cwd: p.repo })]))]));
  const out = run('discover', p);
  assert.equal(out.result.count, 1);
  assert.equal(out.result.first.lastUserMessage, 'still here');
});

test(`${SESSIONS.toLocaleString('en')} tiny sessions in one project folder`, () => {
  const p = place();
  const line = JSON.stringify(userLine(SID(0), 'tiny', { cwd: p.repo }));
  for (let i = 0; i < SESSIONS; i++) fs.writeFileSync(path.join(p.project, `${SID(i + 10)}.jsonl`), `${line}\n`);
  const out = run('discover', p, { seconds: 300, rssMb: 1500 });
  assert.equal(out.result.count, SESSIONS);
});

test(`a registry of ${stress(50, 5)} MB (${REGISTRY_ENTRIES.toLocaleString('en')} entries)`, () => {
  const p = place();
  const sessions = {};
  const filler = 'x'.repeat(400);
  for (let i = 0; i < REGISTRY_ENTRIES; i++) {
    sessions[`/srv/repo-${i}`] = { sessionId: SID(i), createdAt: '2026-01-01T00:00:00Z', lastResumedAt: '2026-01-01T00:00:00Z', totalCostUsd: 1, totalTurns: 1, taskHistory: [{ task: filler, at: '2026-01-01T00:00:00Z' }] };
  }
  sessions[p.repo] = { sessionId: SID(1), createdAt: '2026-01-01T00:00:00Z', lastResumedAt: '2026-01-01T00:00:00Z', totalCostUsd: 1, totalTurns: 1, taskHistory: [] };
  const file = path.join(p.state, 'agents', 'main', 'claude-code-sessions.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ sessions }));
  assert.ok(fs.statSync(file).size > stress(50e6, 5e6));
  const out = run('discover', p, { rssMb: 800 });
  assert.equal(out.result.count, 1);
});

test('a symlink loop in a repository and a .git file that points nowhere', { skip: posix ? false : 'symlinks' }, () => {
  const p = place();
  spawnSync('git', ['init', '-q', p.repo]);
  fs.symlinkSync('.', path.join(p.repo, 'loop'));
  fs.symlinkSync('a', path.join(p.repo, 'b'));
  fs.symlinkSync('b', path.join(p.repo, 'a'));
  fs.writeFileSync(path.join(p.repo, 'README.md'), 'hi\n');
  const looped = run('status', p, { seconds: 60 });
  assert.equal(looped.result.isGitRepo, true);

  const q = place();
  fs.writeFileSync(path.join(q.repo, '.git'), 'gitdir: /nonexistent/worktrees/gone\n');
  const dangling = run('status', q, { seconds: 60 });
  assert.ok(dangling.ok ? dangling.result.isGitRepo === false : dangling.code, 'a dangling .git is not a repository');
});
