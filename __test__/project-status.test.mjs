// gatherProjectStatus against real repositories made with the git CLI, and
// fake `gh` executables on PATH: recorded JSON, one that hangs, one that fails.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { addon, tempDir, uuid, userLine, jsonl, writeSession , needsPosix } from './support/helpers.mjs';

/** `gh` is stubbed here by a shell script on PATH. */
const GH = needsPosix('gh is stubbed by a shell script');

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 'Tester', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 'Tester', GIT_COMMITTER_EMAIL: 't@e' };
const git = (cwd, ...args) => execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, env: GIT_ENV, encoding: 'utf8' });

function makeRepo() {
  const repo = path.join(fs.realpathSync(tempDir('osi-ps-')), 'webshop');
  fs.mkdirSync(repo);
  git(repo, 'init', '-q');
  fs.writeFileSync(path.join(repo, 'README.md'), '# webshop\n');
  fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'first | with a pipe');
  fs.writeFileSync(path.join(repo, 'a.txt'), 'changed\n');
  fs.writeFileSync(path.join(repo, 'new.txt'), 'n\n');
  return repo;
}

/** Puts an executable `gh` with this shell body first on PATH for `fn`. */
async function withGh(body, fn) {
  const bin = tempDir('osi-gh-');
  const log = path.join(bin, 'calls.log');
  fs.writeFileSync(path.join(bin, 'gh'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\n${body}\n`, { mode: 0o755 });
  const saved = process.env.PATH;
  process.env.PATH = `${bin}:${saved}`;
  try {
    return await fn(() => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').sort() : []));
  } finally {
    process.env.PATH = saved;
  }
}

const noSessions = () => ({ claudeConfigDir: tempDir(), registryRoot: tempDir() });

test('git fields as the git CLI prints them, the reference misread fixed, docs and timestamp', GH, async () => {
  const repo = makeRepo();
  const s = await withGh('exit 1', () => addon.gatherProjectStatus(repo, undefined, noSessions()));
  assert.deepEqual(s.repo, { path: repo, name: 'webshop', isGitRepo: true });
  assert.equal(s.git.currentBranch, 'main');
  assert.equal(s.git.headCommitSha, git(repo, 'log', '-1', '--format=%h').trim());
  assert.equal(s.git.headCommitMessage, 'first | with a pipe');
  // The first line keeps its leading space: it is unstaged, not staged.
  assert.deepEqual(s.git.uncommittedChanges, [' M a.txt', '?? new.txt']);
  assert.deepEqual(s.git.stagedChanges, []);
  assert.deepEqual(s.git.untrackedFiles, ['new.txt']);
  assert.deepEqual(s.git.recentCommits.map((c) => [c.message, c.author]), [['first | with a pipe', 'Tester']]);
  assert.match(s.git.recentCommits[0].date, /seconds? ago$/);
  assert.equal(s.git.stashCount, 0);
  assert.equal(Object.hasOwn(s, 'github'), false, 'a failing gh leaves github out');
  assert.deepEqual(s.docs, { hasClaudeMd: false, hasSpecs: false, specFiles: [], hasTodo: false, hasReadme: true });
  assert.ok(Math.abs(Date.parse(s.timestamp) - Date.now()) < 60_000);
});

test('github from recorded gh JSON; arguments passed as a list; failing checks despite exit 1', GH, async () => {
  const repo = makeRepo();
  const recent = new Date(Date.now() - 3600_000).toISOString();
  const old = new Date(Date.now() - 10 * 86400_000).toISOString();
  const body = `case "$*" in
  "pr list --json number,title,headRefName,state,author,updatedAt --limit 5") echo '[{"number":12,"title":"Fix webhook \\"retries\\"","headRefName":"fix/webhook","state":"OPEN","author":{"login":"alice"},"updatedAt":"${recent}"}]' ;;
  "pr checks --json name,state") echo '[{"name":"ci/test","state":"FAILURE"},{"name":"lint","state":"SUCCESS"}]'; exit 1 ;;
  "pr list --state all --json number,title,headRefName,state,author,updatedAt --limit 20") echo '[{"number":12,"title":"Fix webhook","headRefName":"fix/webhook","state":"OPEN","updatedAt":"${recent}"},{"number":9,"title":"Old","headRefName":"old","state":"MERGED","updatedAt":"${old}"}]' ;;
  *) exit 3 ;;
esac`;
  await withGh(body, async (calls) => {
    const s = await addon.gatherProjectStatus(repo, undefined, noSessions());
    assert.deepEqual(s.github.openPrs, [{ number: 12, title: 'Fix webhook "retries"', branch: 'fix/webhook', state: 'OPEN', author: 'alice', updatedAt: recent }]);
    assert.deepEqual(s.github.failingChecks, [{ name: 'ci/test', status: 'FAILURE' }]);
    assert.deepEqual(s.github.recentPrActivity.map((p) => p.number), [12]);
    assert.deepEqual(calls(), [
      'pr checks --json name,state',
      'pr list --json number,title,headRefName,state,author,updatedAt --limit 5',
      'pr list --state all --json number,title,headRefName,state,author,updatedAt --limit 20',
    ]);
  });
});

test('a hanging gh is cut off at the timeout and the rest of the briefing still arrives', GH, async () => {
  const repo = makeRepo();
  await withGh('exec sleep 30', async () => {
    const started = Date.now();
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const s = await addon.gatherProjectStatus(repo, undefined, { ...noSessions(), githubTimeoutMs: 300 });
    clearInterval(timer);
    const took = Date.now() - started;
    assert.ok(took >= 300 && took < 3000, `took ${took} ms`);
    assert.ok(ticks > 10, 'the event loop kept running while gh hung');
    assert.equal(Object.hasOwn(s, 'github'), false);
    assert.equal(s.git.currentBranch, 'main');
    // Read as Node's setTimeout reads a delay (1 ms), not wrapped to 49 days.
    for (const githubTimeoutMs of [-1, 2 ** 32, Number.NaN]) {
      const begun = Date.now();
      const quick = await addon.gatherProjectStatus(repo, undefined, { ...noSessions(), githubTimeoutMs });
      assert.ok(Date.now() - begun < 3000, `${githubTimeoutMs}: took ${Date.now() - begun} ms`);
      assert.equal(Object.hasOwn(quick, 'github'), false);
    }
  });
});

test('no gh on PATH: no github key', GH, async () => {
  const repo = makeRepo();
  const saved = process.env.PATH;
  process.env.PATH = path.dirname(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim());
  try {
    const s = await addon.gatherProjectStatus(repo, undefined, noSessions());
    assert.equal(Object.hasOwn(s, 'github'), false);
  } finally {
    process.env.PATH = saved;
  }
});

test('sessions: active, recent and the agent\'s own, from discovery with the same options', GH, async () => {
  const repo = makeRepo();
  const claudeConfigDir = tempDir();
  const registryRoot = tempDir();
  const ids = Array.from({ length: 7 }, () => uuid());
  ids.forEach((id, i) => {
    const file = writeSession(claudeConfigDir, repo, id, jsonl([userLine(id, `task ${i}`, { cwd: repo })]));
    const t = new Date(Date.now() - (10 - i) * 60_000);
    fs.utimesSync(file, t, t);
  });
  fs.mkdirSync(path.join(registryRoot, 'agents', 'ops'), { recursive: true });
  const at = new Date(Date.now() - 3600_000).toISOString();
  fs.writeFileSync(path.join(registryRoot, 'agents', 'ops', 'claude-code-sessions.json'), JSON.stringify({ sessions: {
    [repo]: { sessionId: ids[0], createdAt: at, lastResumedAt: at, totalCostUsd: 1, totalTurns: 1, taskHistory: [] },
  } }));
  const s = await withGh('exit 1', () => addon.gatherProjectStatus(path.join(repo, '.'), 'ops', { claudeConfigDir, registryRoot, runningSessionIds: [ids[6]] }));
  assert.deepEqual(s.sessions.active.map((x) => x.sessionId), [ids[6]]);
  assert.equal(s.sessions.recent.length, 5);
  assert.equal(s.sessions.recent[0].sessionId, ids[6]);
  assert.deepEqual(s.sessions.ownRecent.map((x) => [x.sessionId, x.agentId]), [[ids[0], 'ops']]);
  const none = await withGh('exit 1', () => addon.gatherProjectStatus(repo, undefined, { claudeConfigDir, registryRoot }));
  assert.deepEqual(none.sessions.ownRecent, []);
});

test('missing paths reject with E_REPO_NOT_FOUND; plain directories are not repositories', GH, async () => {
  await assert.rejects(addon.gatherProjectStatus('/definitely/not/here'), (e) => e.code === 'E_REPO_NOT_FOUND' && typeof e.hint === 'string');
  const plain = fs.realpathSync(tempDir('osi-plain-'));
  const s = await withGh('exit 1', () => addon.gatherProjectStatus(plain, undefined, noSessions()));
  assert.equal(s.repo.isGitRepo, false);
  assert.deepEqual([s.git.currentBranch, s.git.headCommitSha, s.git.stagedChanges, s.git.recentCommits], ['', '', [], []]);
});
