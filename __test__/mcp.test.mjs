// The MCP bridge payloads, field by field, from a real briefing: a git
// repository, Claude Code sessions, an OpenClaw registry and a fake gh.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { addon, tempDir, userLine, jsonl, writeSession , needsPosix } from './support/helpers.mjs';

/** `gh` is stubbed here by a shell script on PATH. */
const GH = needsPosix('gh is stubbed by a shell script');

const ENV = { ...process.env, GIT_AUTHOR_NAME: 'fonz', GIT_AUTHOR_EMAIL: 'f@e', GIT_COMMITTER_NAME: 'fonz', GIT_COMMITTER_EMAIL: 'f@e' };
const A = 'aaaaaaaa-0000-4000-8000-000000000001';
const B = 'bbbbbbbb-0000-4000-8000-000000000002';

async function briefing() {
  const base = fs.realpathSync(tempDir('osi-mcp-'));
  const repo = path.join(base, 'openclaw');
  fs.mkdirSync(repo);
  const git = (...a) => execFileSync('git', ['-c', 'init.defaultBranch=main', ...a], { cwd: repo, env: ENV });
  git('init', '-q');
  git('checkout', '-q', '-b', 'feat/session-discovery');
  fs.mkdirSync(path.join(repo, '.specs'));
  fs.writeFileSync(path.join(repo, '.specs', 'auth-flow.md'), 'a');
  fs.writeFileSync(path.join(repo, 'CLAUDE.md'), 'c');
  fs.writeFileSync(path.join(repo, 'sessions.ts'), 'x');
  git('add', '.');
  git('commit', '-qm', 'Add session scoring function');
  fs.writeFileSync(path.join(repo, 'sessions.ts'), 'changed');
  fs.writeFileSync(path.join(repo, 'project-status.ts'), 'new');

  const claudeConfigDir = path.join(base, 'claude');
  const registryRoot = path.join(base, 'state');
  const two = new Date(Date.now() - 2 * 3600_000 - 60_000);
  const five = new Date(Date.now() - 5 * 3600_000 - 60_000);
  fs.utimesSync(writeSession(claudeConfigDir, repo, A, jsonl([userLine(A, '[openclaw:agent=main] Implement session scoring function for CC integration', { cwd: repo, gitBranch: 'feat/session-discovery' })])), two, two);
  fs.utimesSync(writeSession(claudeConfigDir, repo, B, jsonl([userLine(B, 'Help me debug the webhook handler', { cwd: repo })])), five, five);
  fs.mkdirSync(path.join(registryRoot, 'agents', 'main'), { recursive: true });
  fs.writeFileSync(path.join(registryRoot, 'agents', 'main', 'claude-code-sessions.json'), JSON.stringify({ sessions: { [repo]: {
    sessionId: A, createdAt: two.toISOString(), lastResumedAt: two.toISOString(), totalCostUsd: 1.23, totalTurns: 8, taskHistory: [{ at: two.toISOString(), task: 'Implement session scoring', costUsd: 1.23 }],
  } } }));
  const bin = tempDir('osi-gh-');
  fs.writeFileSync(path.join(bin, 'gh'), `#!/bin/sh\ncase "$*" in "pr list --json"*) echo '[{"number":42,"title":"Add session discovery","headRefName":"feat/session-discovery","state":"OPEN"}]';; *) exit 1;; esac\n`, { mode: 0o755 });
  const saved = process.env.PATH;
  process.env.PATH = `${bin}:${saved}`;
  try {
    return { repo, status: await addon.gatherProjectStatus(repo, 'main', { claudeConfigDir, registryRoot }) };
  } finally {
    process.env.PATH = saved;
  }
}

test('openclaw_project_status payload', GH, async () => {
  const { status } = await briefing();
  const p = addon.projectStatusToolPayload(status);
  assert.deepEqual(Object.keys(p), ['repo', 'branch', 'headCommit', 'uncommittedChanges', 'stagedChanges', 'stashCount', 'recentCommits', 'activeSessions', 'recentSessions', 'docs', 'openPrs']);
  assert.equal(p.repo, 'openclaw');
  assert.equal(p.branch, 'feat/session-discovery');
  assert.equal(p.headCommit, `${status.git.headCommitSha} \u2014 Add session scoring function`);
  assert.deepEqual(p.uncommittedChanges, [' M sessions.ts', '?? project-status.ts']);
  assert.deepEqual(p.stagedChanges, []);
  assert.equal(p.stashCount, 0);
  assert.deepEqual(p.recentCommits.map((c) => [c.message, c.author]), [['Add session scoring function', 'fonz']]);
  assert.deepEqual(p.activeSessions, []);
  assert.deepEqual(p.recentSessions, [
    { sessionId: A, agent: 'main', branch: 'feat/session-discovery', lastTask: 'Implement session scoring', age: '2h ago' },
    { sessionId: B, branch: 'main', lastTask: 'Help me debug the webhook handler', age: '5h ago' },
  ]);
  assert.deepEqual(p.docs, { claudeMd: true, specs: ['auth-flow.md'], todo: false });
  assert.deepEqual(p.openPrs, [{ number: 42, title: 'Add session discovery', branch: 'feat/session-discovery', status: 'open' }]);
  assert.doesNotThrow(() => JSON.parse(JSON.stringify(p)));
});

test('openclaw_session_list payload, with and without native sessions', GH, async () => {
  const { repo } = await briefing();
  const claudeConfigDir = path.join(path.dirname(repo), 'claude');
  const registryRoot = path.join(path.dirname(repo), 'state');
  const sessions = await addon.discoverSessions(repo, { claudeConfigDir, registryRoot, runningSessionIds: [B] });
  const p = addon.sessionListToolPayload(sessions);
  assert.deepEqual(Object.keys(p), ['sessions', 'total', 'activeCount', 'worthSlimming']);
  assert.deepEqual(p.worthSlimming, [], 'nothing there is worth slimming');
  assert.equal(p.total, 2);
  assert.equal(p.activeCount, 1);
  const [native, spawned] = p.sessions; // running first
  const keys = (o) => Object.keys(o).sort();
  assert.deepEqual(keys(spawned), ['agent', 'branch', 'cost', 'firstMessage', 'isRunning', 'lastModified', 'lastTask', 'messageCount', 'sessionId', 'slimSavingsTokens', 'source', 'turns']);
  assert.deepEqual({ ...spawned, lastModified: undefined }, {
    sessionId: A, source: 'openclaw', agent: 'main', branch: 'feat/session-discovery',
    firstMessage: 'Implement session scoring function for CC integration',
    lastModified: undefined, messageCount: 1, cost: 1.23, turns: 8, lastTask: 'Implement session scoring', isRunning: false, slimSavingsTokens: 0,
  });
  assert.match(spawned.lastModified, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.deepEqual(keys(native), ['branch', 'firstMessage', 'isRunning', 'lastModified', 'messageCount', 'sessionId', 'slimSavingsTokens', 'source']);
  assert.equal(native.isRunning, true);
  const own = addon.sessionListToolPayload(sessions, { includeNative: false });
  assert.deepEqual([own.total, own.activeCount, own.sessions[0].sessionId], [1, 0, A]);
});
