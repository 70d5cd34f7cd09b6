// Repository identity, host pages and the remote-work briefing through the
// addon, on real git repositories made with the git CLI and sessions in
// Claude Code's format (docs/api/identity.md).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { addon, tempDir } from './support/helpers.mjs';

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
