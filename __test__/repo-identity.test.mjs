// Repository identity, host pages and the remote-work briefing through the
// addon, on real git repositories made with the git CLI and sessions in
// Claude Code's format (docs/api/identity.md).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { addon, tempDir, uuid, userLine, jsonl, writeSession } from './support/helpers.mjs';

// The identity index lives in the persistent cache folder: this suite's own.
process.env.OPENCLAW_SESSION_INTEL_CACHE_DIR = tempDir('osi-identity-cache-');
delete process.env.OPENCLAW_SESSION_INTEL_CACHE;

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@e' };
const git = (cwd, ...args) => execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();

/** A repository `name` under `base` with one commit and `remote` as origin. */
function makeRepo(base, name, remote) {
  const repo = path.join(base, name);
  fs.mkdirSync(repo, { recursive: true });
  git(repo, 'init', '-q');
  if (remote) git(repo, 'remote', 'add', 'origin', remote);
  git(repo, 'commit', '-q', '--allow-empty', '-m', `first of ${name}`);
  return repo;
}

test('normalizeRemoteUrl: the ssh, scp-like and https forms of one remote are one string; local paths none', () => {
  for (const url of ['git@github.com:acme/widget.git', 'ssh://git@github.com:22/acme/widget', 'https://user@GitHub.com/acme/widget.git/', 'https://github.com/acme/widget']) {
    assert.equal(addon.normalizeRemoteUrl(url), 'github.com/acme/widget', url);
  }
  for (const url of ['/srv/git/widget.git', 'file:///srv/git/widget.git', './widget', 'C:\\git\\widget', '']) {
    assert.equal(addon.normalizeRemoteUrl(url), null, url);
  }
});

test('repositoryIdentity and sameRepository: clones at different paths with ssh and https remotes are one repository', async () => {
  const base = fs.realpathSync(tempDir('osi-identity-'));
  const ssh = makeRepo(base, 'laptop/widget', 'git@github.com:acme/widget.git');
  const https = makeRepo(base, 'server/w', 'https://ci@github.com/acme/widget.git');
  const local = makeRepo(base, 'local-only');
  const a = await addon.repositoryIdentity(path.join(ssh));
  assert.deepEqual(a, { path: ssh, remote: 'github.com/acme/widget', rootCommit: git(ssh, 'rev-list', '--max-parents=0', 'HEAD') });
  const b = await addon.repositoryIdentity(https);
  const c = await addon.repositoryIdentity(local);
  assert.equal(c.remote, null);
  assert.match(c.rootCommit, /^[0-9a-f]{40}$/);
  assert.equal(addon.sameRepository(a, b), true);
  assert.equal(addon.sameRepository(a, { remote: 'git@github.com:acme/widget' }), true);
  assert.equal(addon.sameRepository(a, c), false);
  assert.equal(addon.sameRepository(c, { rootCommit: c.rootCommit }), true);
  assert.equal(addon.sameRepository({}, {}), false);
});

/** A session `id` started in `cwd`, last changed `minutesAgo`. */
function session(claude, cwd, id, prompt, minutesAgo) {
  const file = writeSession(claude, cwd, id, jsonl([userLine(id, prompt, { cwd })]));
  const at = new Date(Date.now() - minutesAgo * 60_000);
  fs.utimesSync(file, at, at);
  return file;
}

/** One machine's world: two clones of the remote `github.com/acme/<name>`
 *  at different paths (one ssh, one https), a repository of another remote,
 *  sessions in each. */
function world(name) {
  const base = fs.realpathSync(tempDir('osi-host-'));
  const claude = path.join(base, 'claude');
  const a = makeRepo(base, `src/${name}`, `git@github.com:acme/${name}.git`);
  const b = makeRepo(base, `work/${name}-2`, `https://github.com/acme/${name}`);
  const other = makeRepo(base, 'src/gadget', 'git@github.com:acme/gadget.git');
  const ids = { a1: uuid(), a2: uuid(), b1: uuid(), other: uuid() };
  session(claude, a, ids.a1, 'fix webhook retries', 30);
  session(claude, path.join(a, 'lib'), ids.a2, 'webhook retry backoff in lib', 10);
  session(claude, b, ids.b1, 'update README badges', 20);
  session(claude, other, ids.other, 'gadget work', 5);
  fs.mkdirSync(path.join(a, 'lib'));
  return { base, claude, a, b, other, ids };
}

test('localRepositories: every folder of the repository, by identity, the matching hint first; no other repository', async () => {
  const w = world('locals');
  const identity = { remote: 'git@github.com:acme/locals.git' };
  assert.deepEqual(await addon.localRepositories(identity, { claudeConfigDir: w.claude }), [w.a, w.b].sort());
  assert.deepEqual(await addon.localRepositories(identity, { claudeConfigDir: w.claude, pathHint: w.b }), [w.b, w.a]);
  assert.deepEqual(await addon.localRepositories({ remote: 'github.com/acme/none' }, { claudeConfigDir: w.claude }), []);
});

test('hostSessionsPage: all sessions of the repository on this host, newest first, with projectPath and running, paged by cursor', async () => {
  const w = world('paged');
  // A Claude Code process runs b1 now: its liveness record names this process.
  fs.mkdirSync(path.join(w.claude, 'sessions'), { recursive: true });
  fs.writeFileSync(path.join(w.claude, 'sessions', `${process.pid}.json`), JSON.stringify({ pid: process.pid, sessionId: w.ids.b1, cwd: w.b }));
  const request = { identity: { remote: 'github.com/acme/paged' }, claudeConfigDir: w.claude };
  const page = await addon.hostSessionsPage(request);
  assert.equal(page.v, 1);
  assert.deepEqual(page.repositories, [w.a, w.b].sort());
  assert.deepEqual(page.sessions.map((s) => [s.sessionId, s.projectPath, s.running]), [
    [w.ids.a2, w.a, false],
    [w.ids.b1, w.b, true],
    [w.ids.a1, w.a, false],
  ]);
  assert.ok(page.sessions[0].lastModified instanceof Date);
  assert.equal(page.nextCursor, null);
  assert.equal(page.truncated, false);

  // Pages of one: the cursor walks the same order, and the JSON is the same page.
  const seen = [];
  let cursor;
  do {
    const json = await addon.hostSessionsPageJson({ ...request, limit: 1, cursor });
    const p = JSON.parse(json);
    assert.equal(p.sessions.length, 1);
    assert.equal(typeof p.sessions[0].lastModified, 'number');
    seen.push(p.sessions[0].sessionId);
    cursor = p.nextCursor ?? undefined;
    assert.equal(p.truncated, cursor !== undefined);
    assert.ok(seen.length <= 3, `a cursor moves on: ${seen}`);
  } while (cursor);
  assert.deepEqual(seen, page.sessions.map((s) => s.sessionId));
  await assert.rejects(addon.hostSessionsPage({ ...request, cursor: 'not-a-cursor' }), { code: 'E_INVALID_ARGUMENT' });
});

test('hostSessionsPage stays within maxBytes: a page holds what fits, the next page the rest', async () => {
  const w = world('bounded');
  // Sessions of about 1 KiB of JSON each, in one folder.
  for (let i = 0; i < 40; i++) session(w.claude, w.a, uuid(), `task ${i} ${'x'.repeat(150)}`, 60 + i);
  const request = { identity: { remote: 'github.com/acme/bounded' }, claudeConfigDir: w.claude, maxBytes: 16 * 1024, limit: 200 };
  let cursor;
  let total = 0;
  let pages = 0;
  do {
    const json = await addon.hostSessionsPageJson({ ...request, cursor });
    assert.ok(Buffer.byteLength(json) <= 16 * 1024, `${Buffer.byteLength(json)} bytes`);
    const p = JSON.parse(json);
    total += p.sessions.length;
    pages += 1;
    cursor = p.nextCursor ?? undefined;
    assert.ok(total <= 43, `a cursor moves on: ${total} sessions`);
  } while (cursor);
  assert.equal(total, 43);
  assert.ok(pages >= 3, `${pages} pages`);
});

test('hostProjectStatus: the status of each local folder of the repository', async () => {
  const w = world('status');
  const status = await addon.hostProjectStatus({ identity: { remote: 'github.com/acme/status' }, claudeConfigDir: w.claude, pathHint: w.b });
  assert.equal(status.v, 1);
  assert.deepEqual(status.repositories, [w.b, w.a]);
  assert.deepEqual(status.statuses.map((s) => s.repo.path), [w.b, w.a]);
  assert.equal(status.truncated, false);
});

test('remoteWorkBriefing: running sessions on other hosts first, then recent relevant ones; null when nothing is worth saying', () => {
  const now = Date.parse('2026-12-01T12:00:00Z');
  const hosts = [
    { host: 'laptop', hostId: 'node:aa', sessions: [
      { sessionId: 'aaaaaaaa-0000', title: 'Refactor billing export', branch: 'billing', lastModified: new Date(now - 60_000), running: true, projectPath: '/home/me/widget' },
      { sessionId: 'bbbbbbbb-0000', title: 'Fix webhook retries', branch: 'main', lastModified: new Date(now - 3_600_000).toISOString() },
      { sessionId: 'cccccccc-0000', title: 'Update README badges', lastModified: now - 600_000 },
    ] },
    { host: 'build box', hostId: 'node:bb', fallback: true, sessions: [
      { sessionId: 'dddddddd-0000', title: 'webhook retry metrics', lastModified: now - 7_200_000 },
    ] },
  ];
  const text = addon.remoteWorkBriefing('webhook retries fail on timeout', hosts, { now });
  const lines = text.split('\n');
  assert.equal(lines[0], 'Claude Code work on this repository on other machines:');
  assert.match(lines[1], /^- on laptop in \/home\/me\/widget now: "Refactor billing export" on branch billing \(session aaaaaaaa, last active 60 seconds ago\)$/);
  assert.match(lines[2], /^- on laptop: "Fix webhook retries" on branch main .*relevance/);
  assert.match(lines[3], /^- on build box \[from OpenClaw's session catalog\]: "webhook retry metrics"/);
  assert.equal(lines.length, 4, text);
  assert.equal(addon.remoteWorkBriefing('webhook retries', hosts, { now, maxLines: 1 }).split('\n').at(-1), '- and 2 more');
  assert.equal(addon.remoteWorkBriefing('database migration', hosts.map((h) => ({ ...h, sessions: h.sessions.filter((s) => !s.running) })), { now }), null);
});

test('a renamed repository folder keeps its sessions, and a deleted clone\'s: discoverSessions and the host page at the new path list them', async () => {
  const w = world('renamed');
  const identity = { remote: 'github.com/acme/renamed' };
  // Seen once at its old path (the host page remembers each folder it finds).
  await addon.hostSessionsPage({ identity, claudeConfigDir: w.claude });
  fs.rmSync(w.b, { recursive: true });
  const moved = path.join(w.base, 'moved', 'renamed-app');
  fs.mkdirSync(path.dirname(moved));
  fs.renameSync(w.a, moved);
  // The clone at b is gone too: its folder held the same repository.
  const want = [[w.ids.a1, moved], [w.ids.a2, moved], [w.ids.b1, moved]].sort();
  const sessions = await addon.discoverSessions(moved, { claudeConfigDir: w.claude });
  assert.deepEqual(sessions.map((s) => [s.sessionId, s.repoPath]).sort(), want);
  const hinted = await addon.hostSessionsPage({ identity, claudeConfigDir: w.claude, pathHint: moved });
  assert.deepEqual(hinted.repositories, [moved]);
  assert.deepEqual(hinted.sessions.map((s) => [s.sessionId, s.projectPath]).sort(), want);
  // Without a hint the new folder is known now too (discovery remembered it).
  const page = await addon.hostSessionsPage({ identity, claudeConfigDir: w.claude });
  assert.deepEqual(page.repositories, [moved]);
  assert.deepEqual(page.sessions.map((s) => [s.sessionId, s.projectPath]).sort(), want);
});
