// The plugin's worktrees of isolated spawns: the `/worktrees` command's
// words, and the command and the `claude_code_spawns` tool driven as
// OpenClaw calls them, over the real addon, real git repositories and a
// real worktree the pre-flight made. The real gateway, acpx and Claude Code
// run the same in openclaw/agent-turn.openclaw.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { worktreesRequest } from '../plugin/commands.mjs';

test('/worktrees: list by default, prune on request; --force only with a repository named; unknown flags refused', () => {
  assert.deepEqual(worktreesRequest(''), { sub: 'list', repo: undefined, force: false, paths: [] });
  assert.deepEqual(worktreesRequest('  /r/shop '), { sub: 'list', repo: '/r/shop', force: false, paths: [] });
  assert.deepEqual(worktreesRequest('list /r/shop'), { sub: 'list', repo: '/r/shop', force: false, paths: [] });
  assert.deepEqual(worktreesRequest('prune'), { sub: 'prune', repo: undefined, force: false, paths: [] });
  assert.deepEqual(worktreesRequest('prune /r/shop --force /r/shop/.claude/worktrees/a'), { sub: 'prune', repo: '/r/shop', force: true, paths: ['/r/shop/.claude/worktrees/a'] });
  for (const words of ['list --force', 'list /a /b', 'prune -f /r', 'prune --force']) assert.match(/** @type {any} */ (worktreesRequest(words)).usage, /^Usage: \/worktrees/, words);
  assert.match(/** @type {any} */ (worktreesRequest('prune --force')).usage, /name the repository/);
});
