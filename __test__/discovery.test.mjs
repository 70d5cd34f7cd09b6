// discoverSessions / parseJsonlHeader / peekSessionHistory on the real
// fixtures and on generated edge cases.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { addon, root, fixtureClaudeDir, tempDir, slugOf, uuid, userLine, assistantLine, jsonl, writeSession } from './support/helpers.mjs';

const SPOTTER = '/home/USER/projects/spotter-worktrees/spotter-4te';
const noRegistry = () => tempDir('osi-state-');

test('fixture sessions: usage deduplicated like ccusage, subagents folded in, compactions from compact_boundary', async () => {
  const claudeConfigDir = fixtureClaudeDir();
  const [s] = await addon.discoverSessions(SPOTTER, { claudeConfigDir, registryRoot: noRegistry() });
  // ccusage 20.0.26 `session --offline --json` reports exactly these totals.
  assert.equal(s.sessionId, 'ae4a77f8-aedd-4bc1-888f-c94edc91af04');
  assert.equal(s.totalInputTokens, 2419);
  assert.equal(s.totalOutputTokens, 42);
  assert.equal(s.cacheReadTokens, 216995);
  assert.equal(s.cacheCreationTokens, 176517);
  assert.equal(s.compactionCount, 1);
  assert.equal(s.subagentCount, 2);
  assert.equal(s.messageCount, 67);
  assert.equal(s.branch, 'spotter-4te');
  assert.equal(s.slug, 'lexical-painting-whisper');
  assert.equal(s.cwd, SPOTTER);
  assert.equal(s.source, 'native-only');
  assert.equal(s.isRunning, false);
  assert.match(s.firstMessage, /^Work on bead spotter-4te\. Run bd show/);
  assert.equal(s.title, s.firstMessage);
  assert.equal(s.lastUserMessage, 'continue implementation');
  assert.deepEqual(s.models, ['claude-opus-4-6', 'claude-sonnet-4-5-20250929']);
  assert.ok(s.lastModified instanceof Date);
  assert.equal(s.firstActivity.toISOString(), '2026-02-12T14:11:56.103Z');
  assert.equal(s.lastActivity.toISOString(), '2026-02-12T15:05:00.730Z');
  assert.ok(s.contextTokens > 0);
  for (const absent of ['agentId', 'totalCostUsd', 'totalTurns', 'lastTask', 'label', 'originMarker', 'budgetUsedPct']) {
    assert.equal(Object.hasOwn(s, absent), false, `${absent} must be absent, not null`);
  }
});

test('fixture sessions: first real prompt, cross-session summary titles, old-format sidechains', async () => {
  const claudeConfigDir = fixtureClaudeDir();
  const sessions = await addon.discoverSessions('/path/to/Demo', { claudeConfigDir, registryRoot: noRegistry() });
  const byId = Object.fromEntries(sessions.map((s) => [s.sessionId.slice(0, 8), s]));
  // Its only user lines are /init (no args) and a meta expansion: no real prompt.
  assert.equal(byId['1af7fc5e'].firstMessage, '(no message)');
  // The title is the summary line written at the top of the *other* file.
  assert.equal(byId['1af7fc5e'].title, 'Empty Repo Setup: CLAUDE.md Foundation Created');
  assert.equal(byId.fe5e1c67.firstMessage, '/orchestrator create TODO app by Next.js');
  assert.equal(byId.fe5e1c67.compactionCount, 0, 'a summary line is a title, not a compaction');
  assert.deepEqual([byId.fe5e1c67.totalInputTokens, byId.fe5e1c67.totalOutputTokens, byId.fe5e1c67.cacheReadTokens, byId.fe5e1c67.cacheCreationTokens], [32, 1429, 71248, 13922]);
  const spotter = await addon.discoverSessions('/home/marco/projects/spotter', { claudeConfigDir, registryRoot: noRegistry() });
  assert.deepEqual([spotter[0].totalInputTokens, spotter[0].totalOutputTokens, spotter[0].cacheReadTokens, spotter[0].cacheCreationTokens], [3, 13, 11515, 13835]);
  assert.equal(spotter[0].firstMessage, 'mix phx.server doesnt seem to start');
});

test('parseJsonlHeader: line count as the reference, tokens deduplicated, compactions from boundaries', async () => {
  const dir = fixtureClaudeDir();
  const file = path.join(dir, 'projects', slugOf(SPOTTER), 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl');
  const h = await addon.parseJsonlHeader(file);
  assert.equal(h.lineCount, 67);
  assert.equal(h.gitBranch, 'spotter-4te');
  assert.equal(h.version, '2.1.39');
  assert.equal(h.compactionCount, 1);
  assert.match(h.firstUserMessage, /^Work on bead/);
  assert.ok(h.totalInputTokens > 0 && h.totalInputTokens <= 2419);
  await assert.rejects(addon.parseJsonlHeader(path.join(dir, 'missing.jsonl')), (e) => e.code === 'E_SESSION_NOT_FOUND' && /transcript/.test(e.message) && typeof e.hint === 'string');
});

test('subagent files belong to their parent and are never sessions (flat pre-2.1 layout)', async () => {
  const claudeConfigDir = tempDir();
  const repo = '/work/flat';
  const parent = uuid();
  writeSession(claudeConfigDir, repo, parent, jsonl([userLine(parent, 'parent task', { cwd: repo }), assistantLine(parent, 'msg_p', { input_tokens: 10, output_tokens: 5 }, { cwd: repo })]));
  const agentFile = path.join(claudeConfigDir, 'projects', slugOf(repo), 'agent-5271c147.jsonl');
  fs.writeFileSync(agentFile, jsonl([
    userLine(parent, 'sub prompt', { isSidechain: true, agentId: '5271c147', cwd: repo }),
    assistantLine(parent, 'msg_s', { input_tokens: 7, output_tokens: 3 }, { isSidechain: true, agentId: '5271c147', cwd: repo }),
  ]));
  const sessions = await addon.discoverSessions(repo, { claudeConfigDir, registryRoot: noRegistry() });
  assert.equal(sessions.length, 1);
  assert.equal(sessions[0].sessionId, parent);
  assert.equal(sessions[0].subagentCount, 1);
  assert.equal(sessions[0].totalInputTokens, 17);
  assert.equal(sessions[0].firstMessage, 'parent task', 'a sidechain prompt is not the first message');
});

test('project folders: UTF-16 slug, long paths by prefix confirmed by cwd, symlinks and git worktrees', async () => {
  const claudeConfigDir = tempDir();
  const registryRoot = noRegistry();
  // An astral character is two UTF-16 units, so two dashes.
  const emoji = '/tmp/w/\u{1F600}proj';
  assert.equal(addon.repoPathToSlug(emoji), '-tmp-w---proj');
  assert.equal(addon.repoPathToSlug('/home/u/my.proj_x'), '-home-u-my-proj-x');
  const e = uuid();
  writeSession(claudeConfigDir, emoji, e, jsonl([userLine(e, 'emoji repo', { cwd: emoji })]));
  assert.equal((await addon.discoverSessions(emoji, { claudeConfigDir, registryRoot }))[0].sessionId, e);

  // Over 200 characters: Claude Code cuts and appends a runtime hash.
  const long = `/home/u/${'deep/'.repeat(45)}repo`;
  const decoy = `/home/u/${'deep/'.repeat(45)}repo-other`;
  const prefix = slugOf(long).slice(0, 200);
  assert.equal(slugOf(decoy).slice(0, 200), prefix);
  const mine = uuid();
  const theirs = uuid();
  for (const [name, id, cwd] of [[`${prefix}-1x2y3z`, mine, long], [`${prefix}-9q8w7e`, theirs, decoy]]) {
    const dir = path.join(claudeConfigDir, 'projects', name);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${id}.jsonl`), jsonl([userLine(id, 'long path', { cwd })]));
  }
  const longHits = await addon.discoverSessions(long, { claudeConfigDir, registryRoot });
  assert.deepEqual(longHits.map((s) => s.sessionId), [mine]);

  // A real repository with a linked worktree, reached through a symlink.
  const base = fs.realpathSync(tempDir('osi-git-'));
  const repo = path.join(base, 'repo');
  const git = (...args) => execFileSync('git', args, { cwd: repo, stdio: 'pipe', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  fs.mkdirSync(repo);
  git('init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(repo, 'a.txt'), 'a');
  git('add', '.');
  git('commit', '-qm', 'init');
  const worktree = path.join(base, 'repo-feat');
  git('worktree', 'add', '-q', '-b', 'feat', worktree);
  const inRepo = uuid();
  const inWorktree = uuid();
  writeSession(claudeConfigDir, repo, inRepo, jsonl([userLine(inRepo, 'main tree', { cwd: repo })]));
  writeSession(claudeConfigDir, worktree, inWorktree, jsonl([userLine(inWorktree, 'worktree', { cwd: worktree })]));
  const link = path.join(base, 'link');
  fs.symlinkSync(repo, link);
  const viaLink = await addon.discoverSessions(link, { claudeConfigDir, registryRoot });
  assert.deepEqual(viaLink.map((s) => s.sessionId).sort(), [inRepo, inWorktree].sort());
  assert.ok(viaLink.every((s) => s.repoPath === link), 'repoPath is the resolved argument, as in the reference');
  const fromWorktree = await addon.discoverSessions(worktree, { claudeConfigDir, registryRoot });
  assert.deepEqual(fromWorktree.map((s) => s.sessionId).sort(), [inRepo, inWorktree].sort());
});

test('robust: bad lines and bad files never reject, and what can be read is reported', async () => {
  const claudeConfigDir = tempDir();
  const repo = '/work/robust';
  const good = uuid();
  const hugeText = 'x'.repeat(5 * 1024 * 1024);
  const invalidUtf8 = Buffer.concat([Buffer.from('{"type":"user","sessionId":"s","message":{"role":"user","content":"caf'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}\n')]);
  const content = Buffer.concat([
    Buffer.from('\n\n'),
    Buffer.from(jsonl([
      userLine(good, 'first real prompt', { cwd: repo }),
      { type: 'brand-new-record-type', whatever: [1, 2, 3] },
      'this is not json',
      userLine(good, [{ type: 'tool_result', tool_use_id: 't', content: hugeText }], { cwd: repo }),
      assistantLine(good, 'msg_1', { input_tokens: 4, output_tokens: 9, cache_read_input_tokens: 100 }, { cwd: repo }),
    ])),
    invalidUtf8,
    Buffer.from('   \n'),
    Buffer.from('{"type":"assistant","message":{"id":"msg_2","usage":{"input_tokens":5'), // crash-truncated
  ]);
  writeSession(claudeConfigDir, repo, good, content);
  const empty = uuid();
  writeSession(claudeConfigDir, repo, empty, '');
  const dir = path.join(claudeConfigDir, 'projects', slugOf(repo));
  fs.mkdirSync(path.join(dir, `${uuid()}.jsonl`)); // a directory with a session's name
  fs.symlinkSync('/nonexistent/target', path.join(dir, `${uuid()}.jsonl`)); // unreadable
  const sessions = await addon.discoverSessions(repo, { claudeConfigDir, registryRoot: noRegistry() });
  const g = sessions.find((s) => s.sessionId === good);
  assert.equal(g.messageCount, 7, 'non-blank lines, parsable or not, truncated last line included');
  assert.equal(g.firstMessage, 'first real prompt');
  assert.equal(g.totalInputTokens, 4);
  assert.equal(g.cacheReadTokens, 100);
  const e = sessions.find((s) => s.sessionId === empty);
  assert.equal(e.messageCount, 0);
  assert.equal(e.firstMessage, '(no message)');
  assert.ok(sessions.length >= 2);
  // No projects folder at all.
  assert.deepEqual(await addon.discoverSessions(repo, { claudeConfigDir: tempDir(), registryRoot: noRegistry() }), []);
});

test('registry sessions: source, agent, cost, last task, label, running state and sort order', async () => {
  const claudeConfigDir = fixtureClaudeDir();
  const registryRoot = tempDir('osi-state-');
  fs.mkdirSync(path.join(registryRoot, 'agents', 'ops'), { recursive: true });
  fs.writeFileSync(path.join(registryRoot, 'agents', 'ops', 'claude-code-sessions.json'), JSON.stringify({ sessions: {
    '/path/to/Demo::ui': { sessionId: '1af7fc5e-8455-4414-9ccd-011d40f70b2a', createdAt: '2025-09-03T00:40:00.000Z', lastResumedAt: '2025-09-03T00:47:00.000Z',
      totalCostUsd: 1.25, totalTurns: 4, triggeredBy: {}, taskHistory: [{ at: '2025-09-03T00:40:00.000Z', task: 'scaffold', costUsd: 1 }, { at: '2025-09-03T00:47:00.000Z', task: 'write CLAUDE.md', costUsd: 0.25 }], label: 'ui' },
    '/elsewhere': { sessionId: 'fe5e1c67-53e7-4862-81ae-d0e013e3270b', createdAt: 'x', lastResumedAt: 'x', totalCostUsd: 0, totalTurns: 0, taskHistory: [] },
  } }, null, 2));
  const sessions = await addon.discoverSessions('/path/to/Demo/', { claudeConfigDir, registryRoot });
  assert.equal(sessions.length, 2);
  const reg = sessions.find((s) => s.source === 'openclaw');
  assert.equal(reg.sessionId, '1af7fc5e-8455-4414-9ccd-011d40f70b2a');
  assert.equal(reg.agentId, 'ops');
  assert.equal(reg.totalCostUsd, 1.25);
  assert.equal(reg.totalTurns, 4);
  assert.equal(reg.lastTask, 'write CLAUDE.md');
  assert.equal(reg.label, 'ui');
  assert.equal(reg.repoPath, '/path/to/Demo');
  // Newest first: both files share an mtime, so the tie breaks by id.
  const running = await addon.discoverSessions('/path/to/Demo', { claudeConfigDir, registryRoot, runningSessionIds: ['fe5e1c67-53e7-4862-81ae-d0e013e3270b'] });
  assert.equal(running[0].sessionId, 'fe5e1c67-53e7-4862-81ae-d0e013e3270b');
  assert.equal(running[0].isRunning, true);
  assert.equal(running[1].isRunning, false);
  const busy = await addon.discoverSessions('/path/to/Demo', { claudeConfigDir, registryRoot, repoBusy: true });
  assert.deepEqual(busy.map((s) => [s.source, s.isRunning]), [['openclaw', true], ['native-only', false]]);
});

test('incremental: appended lines (and a finished partial line) are picked up, nothing counted twice', async () => {
  const claudeConfigDir = tempDir();
  const repo = '/work/incremental';
  const id = uuid();
  const file = writeSession(claudeConfigDir, repo, id, jsonl([userLine(id, 'start', { cwd: repo }), assistantLine(id, 'msg_a', { input_tokens: 1, output_tokens: 1 }, { cwd: repo })]));
  const opts = { claudeConfigDir, registryRoot: noRegistry() };
  const first = (await addon.discoverSessions(repo, opts))[0];
  assert.deepEqual([first.messageCount, first.totalInputTokens], [2, 1]);
  const again = (await addon.discoverSessions(repo, opts))[0];
  assert.deepEqual(again, first, 'a repeat call on an unchanged file gives the same answer');
  const more = JSON.stringify(assistantLine(id, 'msg_b', { input_tokens: 10, output_tokens: 3 }, { cwd: repo }));
  fs.appendFileSync(file, `${more}\n${more.slice(0, 40)}`);
  const grown = (await addon.discoverSessions(repo, opts))[0];
  assert.deepEqual([grown.messageCount, grown.totalInputTokens], [4, 11]);
  fs.appendFileSync(file, '\n'); // the partial line is now a complete (invalid) line
  const done = (await addon.discoverSessions(repo, opts))[0];
  assert.deepEqual([done.messageCount, done.totalInputTokens], [4, 11]);
  fs.appendFileSync(file, jsonl([userLine(id, 'and one more thing', { cwd: repo })]));
  const last = (await addon.discoverSessions(repo, opts))[0];
  assert.equal(last.lastUserMessage, 'and one more thing');
  assert.equal(last.firstMessage, 'start');
});

test('the event loop keeps running while a large scan is in flight', async () => {
  const claudeConfigDir = tempDir();
  const repo = '/work/big';
  const id = uuid();
  const line = JSON.stringify(userLine(id, [{ type: 'tool_result', tool_use_id: 't', content: 'y'.repeat(1 << 20) }], { cwd: repo }));
  writeSession(claudeConfigDir, repo, id, `${line}\n`.repeat(48));
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  const pending = addon.discoverSessions(repo, { claudeConfigDir, registryRoot: noRegistry() });
  await new Promise((r) => setTimeout(r, 5));
  const [s] = await pending;
  clearInterval(timer);
  assert.equal(s.messageCount, 48);
  assert.ok(ticks > 0, 'timers fired while the scan ran');
});

test('peekSessionHistory: last text messages of a fixture transcript', () => {
  process.env.CLAUDE_CONFIG_DIR = fixtureClaudeDir();
  try {
    const text = addon.peekSessionHistory('/home/marco/projects/spotter', '55604662-cf2a-4331-851a-ec234028f8ca');
    assert.match(text, /^\[User\]: mix phx\.server doesnt seem to start/m);
    assert.match(text, /\[CC\]: /);
    const short = addon.peekSessionHistory('/home/marco/projects/spotter', '55604662-cf2a-4331-851a-ec234028f8ca', { maxMessages: 1, maxChars: 10 });
    assert.ok(short.endsWith('\u2026') && !short.includes('\n\n'));
    assert.equal(addon.peekSessionHistory('/home/marco/projects/spotter', '../../etc/passwd'), '');

    // Limits are read as the reference's `messages.slice(-maxMessages)` and
    // character budget read them, never wrapped modulo 2^32.
    const peek = (opts) => addon.peekSessionHistory('/home/marco/projects/spotter', '55604662-cf2a-4331-851a-ec234028f8ca', opts);
    const blocks = (t) => t.split(/\n\n(?=\[(?:User|CC)\]: )/);
    const all = peek({ maxMessages: Infinity, maxChars: Infinity });
    const count = blocks(all).length;
    assert.ok(count >= 3, `${count} messages`);
    for (const maxMessages of [0, Number.NaN, 2 ** 32 + 1]) {
      assert.equal(peek({ maxMessages, maxChars: Infinity }), all, String(maxMessages));
    }
    assert.equal(peek({ maxMessages: -Infinity, maxChars: Infinity }), '');
    assert.deepEqual(blocks(peek({ maxMessages: -2, maxChars: Infinity })), blocks(all).slice(2));
    assert.equal(peek({ maxMessages: 2.9, maxChars: Infinity }), peek({ maxMessages: 2, maxChars: Infinity }));
    assert.equal(peek({ maxMessages: 3, maxChars: Number.NaN }), peek({ maxMessages: 3, maxChars: Infinity }));
    assert.equal(peek({ maxChars: -1 }), '');
    assert.equal(peek({ maxChars: 0 }), '');
    assert.equal(peek({ maxMessages: 1, maxChars: 10.9 }), peek({ maxMessages: 1, maxChars: 10 }));
    assert.equal(peek({ maxChars: 2 ** 32 + 10 }), peek({ maxChars: Infinity }));
  } finally {
    delete process.env.CLAUDE_CONFIG_DIR;
  }
});

test('titles: custom title over generated title over first prompt; origin marker from the first prompt', async () => {
  const claudeConfigDir = tempDir();
  const repo = '/work/titles';
  const [a, b, c] = [uuid(), uuid(), uuid()];
  writeSession(claudeConfigDir, repo, a, jsonl([
    userLine(a, '[openclaw:agent=ops-2] fix the webhook retries', { cwd: repo }),
    { type: 'ai-title', aiTitle: 'Webhook retry fix', sessionId: a },
    { type: 'custom-title', customTitle: 'first name', sessionId: a },
    { type: 'custom-title', customTitle: 'Retries, renamed', sessionId: a },
  ]));
  writeSession(claudeConfigDir, repo, b, jsonl([userLine(b, 'plain prompt', { cwd: repo }), { type: 'ai-title', aiTitle: 'Generated title', sessionId: b }]));
  writeSession(claudeConfigDir, repo, c, jsonl([userLine(c, 'x'.repeat(150) + '\u{1F600}'.repeat(40), { cwd: repo })]));
  const byId = Object.fromEntries((await addon.discoverSessions(repo, { claudeConfigDir, registryRoot: noRegistry() })).map((s) => [s.sessionId, s]));
  assert.equal(byId[a].title, 'Retries, renamed');
  assert.equal(byId[a].originMarker, 'ops-2');
  // The marker is the source, not part of what was asked.
  assert.equal(byId[a].firstMessage, 'fix the webhook retries');
  assert.equal(byId[b].title, 'Generated title');
  assert.equal(Object.hasOwn(byId[b], 'originMarker'), false);
  // 200 UTF-16 units: 150 + 25 emoji (2 units each), none split.
  assert.equal(byId[c].firstMessage, 'x'.repeat(150) + '\u{1F600}'.repeat(25));
  assert.equal(byId[c].title, byId[c].firstMessage);
});

/** Folders this process watches through inotify (Linux), from /proc. */
function inotifyWatches() {
  let watches = 0;
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    let target = '';
    try { target = fs.readlinkSync(`/proc/self/fd/${fd}`); } catch { continue; }
    if (target === 'anon_inode:inotify') {
      watches += fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n').filter((l) => l.startsWith('inotify wd:')).length;
    }
  }
  return watches;
}

test('a busy repository: every change between two calls is seen, as by a call that stats every file', async () => {
  const claudeConfigDir = tempDir();
  const repo = '/work/busy';
  const opts = { claudeConfigDir, registryRoot: noRegistry() };
  const project = path.join(claudeConfigDir, 'projects', slugOf(repo));
  const main = (id) => path.join(project, `${id}.jsonl`);
  const subagents = (id) => path.join(project, id, 'subagents');
  const lines = new Map(); // session id -> lines of its main transcript
  const newSession = () => {
    const id = uuid();
    writeSession(claudeConfigDir, repo, id, jsonl([userLine(id, `task ${id}`, { cwd: repo })]));
    lines.set(id, 1);
  };
  for (let i = 0; i < 3; i++) newSession();
  let seed = 7; // mulberry32
  const random = (n) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
  const any = () => [...lines.keys()][random(lines.size)];
  let n = 0;
  const changes = [
    ['append a prompt', () => { const id = any(); fs.appendFileSync(main(id), jsonl([userLine(id, `more ${n}`, { cwd: repo })])); lines.set(id, lines.get(id) + 1); }],
    ['append to a subagent', () => {
      const id = any();
      fs.mkdirSync(subagents(id), { recursive: true });
      fs.appendFileSync(path.join(subagents(id), `agent-a${random(3)}.jsonl`),
        jsonl([assistantLine(id, `msg_sub_${n}`, { input_tokens: 5, output_tokens: 1 }, { cwd: repo, isSidechain: true })]));
    }],
    ['start a session', newSession],
    ['touch a transcript', () => { const t = new Date(Date.UTC(2026, 0, 1 + random(300))); fs.utimesSync(main(any()), t, t); }],
    ['replace a subagents folder', () => {
      const id = any();
      if (fs.existsSync(subagents(id))) fs.renameSync(subagents(id), path.join(project, id, `old-${n}`));
      fs.mkdirSync(subagents(id), { recursive: true });
      fs.writeFileSync(path.join(subagents(id), 'agent-b.jsonl'),
        jsonl([assistantLine(id, `msg_new_${n}`, { input_tokens: 100 + n, output_tokens: 2 }, { cwd: repo, isSidechain: true })]));
    }],
    ['replace a session folder', () => {
      const id = any();
      if (fs.existsSync(path.join(project, id))) fs.renameSync(path.join(project, id), path.join(project, `old-${n}`));
      fs.mkdirSync(subagents(id), { recursive: true });
      fs.writeFileSync(path.join(subagents(id), 'agent-c.jsonl'),
        jsonl([assistantLine(id, `msg_moved_${n}`, { input_tokens: 1000 + n, output_tokens: 3 }, { cwd: repo, isSidechain: true })]));
    }],
    ['put a copy in place of the projects folder, one line longer', () => {
      const projects = path.join(claudeConfigDir, 'projects');
      fs.renameSync(projects, `${projects}-old-${n}`);
      fs.cpSync(`${projects}-old-${n}`, projects, { recursive: true, preserveTimestamps: true });
      const id = any();
      fs.appendFileSync(main(id), jsonl([userLine(id, `copied ${n}`, { cwd: repo })]));
      lines.set(id, lines.get(id) + 1);
    }],
    ['remove a session', () => { if (lines.size > 1) { const id = any(); fs.rmSync(main(id)); lines.delete(id); } }],
  ];
  for (n = 0; n < 150; n++) {
    const [what, change] = changes[random(changes.length)];
    change();
    const seen = await addon.discoverSessions(repo, opts);
    const watch = process.env.OPENCLAW_SESSION_INTEL_WATCH;
    process.env.OPENCLAW_SESSION_INTEL_WATCH = 'off';
    let fresh;
    try {
      fresh = await addon.discoverSessions(repo, opts);
    } finally {
      if (watch === undefined) delete process.env.OPENCLAW_SESSION_INTEL_WATCH;
      else process.env.OPENCLAW_SESSION_INTEL_WATCH = watch;
    }
    assert.deepEqual(seen, fresh, `change ${n} (${what})`);
    assert.deepEqual(Object.fromEntries(seen.map((s) => [s.sessionId, s.messageCount])), Object.fromEntries(lines), `change ${n} (${what})`);
  }
  if (process.platform === 'linux' && process.env.OPENCLAW_SESSION_INTEL_WATCH === undefined) {
    assert.ok(inotifyWatches() > 0, 'the calls went through the change monitor');
  }
});

test('the package discoverSessions (JSON across the boundary) returns exactly what the binding builds as objects', () => {
  const registryRoot = tempDir('osi-state-');
  fs.mkdirSync(path.join(registryRoot, 'agents', 'ops'), { recursive: true });
  fs.writeFileSync(path.join(registryRoot, 'agents', 'ops', 'claude-code-sessions.json'), JSON.stringify({ sessions: {
    '/path/to/Demo::ui': { sessionId: '1af7fc5e-8455-4414-9ccd-011d40f70b2a', createdAt: '2025-09-03T00:40:00.000Z', lastResumedAt: '2025-09-03T00:47:00.123Z',
      totalCostUsd: 0.1 + 0.2, totalTurns: 4, taskHistory: [{ at: '2025-09-03T00:40:00.000Z', task: 'scaffold "quoted" \u2028 \u{1F600}', costUsd: 1 }], label: 'ui\n' },
  } }));
  // The binding's own function, taken before the entry point replaces it.
  const script = `
    const assert = require('node:assert/strict');
    const native = require(${JSON.stringify(path.join(root, 'index.js'))}).discoverSessions;
    const pkg = require(${JSON.stringify(path.join(root, 'entry.js'))}).discoverSessions;
    assert.notEqual(native, pkg);
    (async () => {
      const calls = [
        [${JSON.stringify(SPOTTER)}, { claudeConfigDir: ${JSON.stringify(fixtureClaudeDir())}, registryRoot: ${JSON.stringify(noRegistry())} }],
        ['/path/to/Demo', { claudeConfigDir: ${JSON.stringify(fixtureClaudeDir())}, registryRoot: ${JSON.stringify(registryRoot)}, runningSessionIds: ['fe5e1c67-53e7-4862-81ae-d0e013e3270b'] }],
        ['/nowhere', { claudeConfigDir: ${JSON.stringify(fixtureClaudeDir())}, registryRoot: ${JSON.stringify(registryRoot)} }],
      ];
      let rows = 0;
      for (const args of calls) {
        const [a, b] = [await native(...args), await pkg(...args)];
        assert.deepEqual(b, a);
        assert.deepEqual(b.map((s) => Object.keys(s)), a.map((s) => Object.keys(s)), 'same keys in the same order');
        for (const s of b) for (const k of ['lastModified', 'firstActivity', 'lastActivity']) if (k in s) assert.ok(s[k] instanceof Date);
        rows += a.length;
      }
      assert.ok(rows >= 3, 'rows were compared');
      for (const bad of [[42], ['/x', { claudeConfigDir: 7 }]]) {
        const failure = (f) => { try { f(...bad); } catch (e) { return [e.constructor.name, e.message, e.code]; } return 'no sync throw'; };
        assert.deepEqual(failure(pkg), failure(native), 'argument errors are thrown synchronously alike');
      }
      console.log('compared', rows);
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.match(out, /^compared \d+/);
});

// What the real Claude Code 2.1.328 wrote, with what the API billed per session id (fixtures/claude-code-2.1).
const CC21 = path.join(root, 'fixtures', 'claude-code-2.1');
const cc21Manifest = () => JSON.parse(fs.readFileSync(path.join(CC21, 'manifest.json'), 'utf8'));
function cc21Config() {
  const dir = tempDir('osi-claude21-');
  fs.cpSync(path.join(CC21, 'projects'), path.join(dir, 'projects'), { recursive: true });
  return dir;
}

test('Claude Code 2.1: usage as billed, the CLI\'s own cost, prompts as typed, every model, conversation length, how it was started', async () => {
  const claudeConfigDir = cc21Config();
  const manifest = cc21Manifest();
  const requests = fs.readFileSync(path.join(CC21, 'api-requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const compaction = (r) => r.prompt.startsWith('CRITICAL: Respond with TEXT ONLY');
  for (const [name, m] of Object.entries(manifest.sessions)) {
    const sessions = await addon.discoverSessions(m.cwd, { claudeConfigDir, registryRoot: noRegistry(), persistentCache: false });
    const s = sessions.find((x) => x.sessionId === m.sessionId);
    assert.ok(s, name);
    assert.deepEqual([s.totalInputTokens, s.totalOutputTokens, s.cacheReadTokens, s.cacheCreationTokens],
      [m.api.inputTokens, m.api.outputTokens, m.api.cacheReadTokens, m.api.cacheCreationTokens], `${name}: tokens as billed`);
    const cost = m.runs.at(-1).totalCostUsd - (m.costAtFork ?? 0);
    assert.ok(Math.abs(s.totalCostUsd - cost) < 1e-9, `${name}: cost ${s.totalCostUsd} vs ${cost}`);
    const typed = [...(m.inheritedPrompts ?? []), ...m.prompts].filter((p) => !p.startsWith('/'));
    assert.equal(s.firstMessage, typed[0], name);
    assert.equal(s.lastUserMessage, typed.at(-1), name);
    assert.equal(s.promptCount, typed.length, name);
    const models = [...new Set(requests.filter((r) => r.sessionId === m.sessionId).map((r) => r.model))];
    assert.deepEqual(s.models, models, name);
    const own = requests.filter((r) => r.sessionId === m.sessionId && r.agentId === null && !compaction(r)).length;
    assert.equal(s.responseCount, own + (m.inheritedPrompts?.length ?? 0), name);
    assert.equal(s.entrypoint, 'sdk-cli', name);
    assert.equal(s.version, manifest.claudeCode, name);
    assert.equal(s.contextWindow, 1_000_000, name);
    assert.ok(s.messageCount > s.promptCount + s.responseCount, `${name}: lines are not the conversation's length`);
  }
});

test('Claude Code 2.1: the contextWindows option overrides the built-in table', async () => {
  const claudeConfigDir = cc21Config();
  const m = cc21Manifest().sessions.named;
  const find = async (contextWindows) => (await addon.discoverSessions(m.cwd, { claudeConfigDir, registryRoot: noRegistry(), persistentCache: false, contextWindows }))
    .find((x) => x.sessionId === m.sessionId);
  assert.equal((await find(undefined)).contextWindow, 1_000_000);
  assert.equal((await find({ 'claude-opus-5-5': 400_000 })).contextWindow, 400_000);
  assert.equal((await find({ 'claude-opus-5-5': 0, other: 5 })).contextWindow, 1_000_000);
});

// Real Claude Code 2.1.328 transcripts (fixtures/claude-code-2.1), moved to
// real git repositories made here: every path the CLI recorded under its
// scratch folder is rewritten to the new one, and each file goes into the
// folder Claude Code names after its new cwd.
const cc21 = JSON.parse(fs.readFileSync(path.join(CC21, 'manifest.json'), 'utf8'));
const CC21_WORK = `${cc21.root}/work`;

function copyRewritten(from, to, work, id) {
  const stat = fs.statSync(from);
  if (stat.isDirectory()) {
    fs.mkdirSync(to, { recursive: true });
    for (const name of fs.readdirSync(from)) copyRewritten(path.join(from, name), path.join(to, name), work, id);
    return;
  }
  let text = fs.readFileSync(from, 'utf8').split(CC21_WORK).join(work);
  if (id) text = text.split(id[0]).join(id[1]);
  fs.writeFileSync(to, text);
}

/** Places fixture session `name` for repositories under `work` (as `newId`,
 *  with `edit` applied to its text, if given); returns its file. */
function placeCc21(claudeConfigDir, work, name, { newId, cwd: cwdOverride, edit } = {}) {
  const s = cc21.sessions[name];
  const cwd = cwdOverride ?? s.cwd.split(CC21_WORK).join(work);
  const from = path.join(CC21, 'projects', addon.repoPathToSlug(s.cwd));
  const to = path.join(claudeConfigDir, 'projects', addon.repoPathToSlug(cwd));
  fs.mkdirSync(to, { recursive: true });
  const id = newId ? [s.sessionId, newId] : undefined;
  const rewrite = cwdOverride ? [s.cwd.split(CC21_WORK).join(work), cwdOverride] : undefined;
  const file = path.join(to, `${newId ?? s.sessionId}.jsonl`);
  copyRewritten(path.join(from, `${s.sessionId}.jsonl`), file, work, id);
  if (rewrite || edit) {
    let text = fs.readFileSync(file, 'utf8');
    if (rewrite) text = text.split(`"cwd":"${rewrite[0]}"`).join(`"cwd":"${rewrite[1]}"`);
    if (edit) text = edit(text);
    fs.writeFileSync(file, text);
  }
  if (!newId && fs.existsSync(path.join(from, s.sessionId))) copyRewritten(path.join(from, s.sessionId), path.join(to, s.sessionId), work);
  return file;
}

const gitIn = (cwd, ...args) => execFileSync('git', args, { cwd, stdio: 'pipe', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });

/** The fixture's repositories, made with git under a fresh folder: `alpha`
 *  (with `src/`, the linked worktree `alpha-feature`, and the Claude Code
 *  worktree `.claude/worktrees/gone`, removed again), `beta`, the long one,
 *  and `alpha-old`, a sibling whose folder name starts like alpha's. */
function cc21Repos() {
  const base = fs.realpathSync(tempDir('osi-cc21-'));
  const work = path.join(base, 'work');
  const repos = Object.fromEntries(Object.entries(cc21.repos).map(([k, v]) => [k, v.split(CC21_WORK).join(work)]));
  repos.old = path.join(work, 'alpha-old');
  for (const repo of [repos.alpha, repos.beta, repos.long, repos.old]) {
    fs.mkdirSync(repo, { recursive: true });
    gitIn(repo, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(repo, 'README.md'), '# test\n');
    gitIn(repo, 'add', '.');
    gitIn(repo, 'commit', '-qm', 'init');
  }
  fs.mkdirSync(repos.alphaSrc);
  gitIn(repos.alpha, 'worktree', 'add', '-q', '-b', 'feature', repos.feature);
  gitIn(repos.alpha, 'worktree', 'add', '-q', '-b', 'gone', repos.gone);
  gitIn(repos.alpha, 'worktree', 'remove', repos.gone);
  assert.ok(!fs.existsSync(repos.gone));
  return { work, repos };
}

const ids = (sessions) => sessions.map((s) => s.sessionId).sort();
const cc21Of = (repo) => Object.values(cc21.sessions).filter((s) => s.repo === repo).map((s) => s.sessionId).sort();

test('Claude Code 2.1: project folder names are the CLI\'s own, long paths included', () => {
  const folders = fs.readdirSync(path.join(CC21, 'projects')).sort();
  const named = [...new Set(Object.values(cc21.sessions).map((s) => addon.repoPathToSlug(s.cwd)))].sort();
  assert.deepEqual(named, folders);
  const long = addon.repoPathToSlug(cc21.repos.long);
  assert.ok(long.length > 200 && folders.includes(long), long);
  assert.match(long, /^.{200}-[0-9a-z]+$/);
});

test('Claude Code 2.1: every session of a repository (subfolders, worktrees, a removed Claude Code worktree), confirmed by cwd', async () => {
  const claudeConfigDir = tempDir();
  const registryRoot = noRegistry();
  const { work, repos } = cc21Repos();
  for (const name of Object.keys(cc21.sessions)) placeCc21(claudeConfigDir, work, name);
  // A session of the sibling `alpha-old`: its folder name starts with alpha's.
  const sibling = uuid();
  placeCc21(claudeConfigDir, work, 'named', { newId: sibling, cwd: repos.old });
  assert.ok(fs.existsSync(path.join(claudeConfigDir, 'projects', `${addon.repoPathToSlug(repos.alpha)}-old`)));
  const opts = { claudeConfigDir, registryRoot };

  const alpha = await addon.discoverSessions(repos.alpha, opts);
  assert.deepEqual(ids(alpha), cc21Of('alpha'));
  const byId = Object.fromEntries(alpha.map((s) => [s.sessionId, s]));
  assert.equal(byId[cc21.sessions.subfolder.sessionId].cwd, repos.alphaSrc);
  assert.equal(byId[cc21.sessions.goneWorktree.sessionId].cwd, repos.gone);
  assert.equal(byId[cc21.sessions.named.sessionId].title, 'Release checklist');
  assert.ok(alpha.every((s) => !('archived' in s)));
  // From the worktree, the same sessions; from the subfolder, its own.
  assert.deepEqual(ids(await addon.discoverSessions(repos.feature, opts)), cc21Of('alpha'));
  assert.deepEqual(ids(await addon.discoverSessions(repos.alphaSrc, opts)), [cc21.sessions.subfolder.sessionId]);
  assert.deepEqual(ids(await addon.discoverSessions(repos.old, opts)), [sibling]);
  assert.deepEqual(ids(await addon.discoverSessions(repos.beta, opts)), cc21Of('beta'));
  // The long path's folder is found by its exact name.
  assert.deepEqual(ids(await addon.discoverSessions(repos.long, opts)), cc21Of('long'));
});

test('Claude Code 2.1: a side question\'s log is not a session; an index summary and Claude Desktop name and archive sessions', async () => {
  const claudeConfigDir = tempDir();
  const registryRoot = noRegistry();
  const { work, repos } = cc21Repos();
  for (const name of ['main', 'named', 'autocompact', 'subfolder', 'fork']) placeCc21(claudeConfigDir, work, name);
  const { main, named, autocompact, subfolder, fork } = Object.fromEntries(Object.entries(cc21.sessions).map(([k, v]) => [k, v.sessionId]));
  // A log whose first lines are sidechain lines (as a side question's): hidden.
  const side = uuid();
  placeCc21(claudeConfigDir, work, 'named', { newId: side, edit: (t) => t.split('"isSidechain":false').join('"isSidechain":true') });
  // The same with only later lines so: a session.
  const later = uuid();
  placeCc21(claudeConfigDir, work, 'named', { newId: later, edit: (t) => { const at = t.indexOf('"isSidechain":false') + 1; return t.slice(0, at) + t.slice(at).split('"isSidechain":false').join('"isSidechain":true'); } });
  const opts = { claudeConfigDir, registryRoot };
  const all = [main, named, autocompact, subfolder, fork, later].sort();
  assert.deepEqual(ids(await addon.discoverSessions(repos.alpha, opts)), all);

  // An older CLI's index: a summary is a title after custom and AI titles;
  // an entry marked as a sidechain is not listed.
  const folder = path.join(claudeConfigDir, 'projects', addon.repoPathToSlug(repos.alpha));
  fs.writeFileSync(path.join(folder, 'sessions-index.json'), JSON.stringify({
    version: 1,
    entries: [
      { sessionId: main, summary: 'Greeting in the README', firstPrompt: 'x', isSidechain: false },
      { sessionId: named, summary: 'Not this one', isSidechain: false },
      { sessionId: fork, isSidechain: true },
    ],
    originalPath: repos.alpha,
  }));
  let got = await addon.discoverSessions(repos.alpha, opts);
  let byId = Object.fromEntries(got.map((s) => [s.sessionId, s]));
  assert.deepEqual(ids(got), all.filter((id) => id !== fork));
  assert.equal(byId[main].title, 'Greeting in the README');
  assert.equal(byId[main].firstMessage, cc21.sessions.main.prompts[0]);
  assert.equal(byId[named].title, 'Release checklist');
  assert.equal(byId[autocompact].title, byId[autocompact].firstMessage);

  // Claude Desktop's metadata: its title wins; archived sessions last.
  const desktop = tempDir('osi-desktop-');
  const write = (account, workspace, name, body) => {
    fs.mkdirSync(path.join(desktop, account, workspace), { recursive: true });
    fs.writeFileSync(path.join(desktop, account, workspace, name), JSON.stringify(body));
  };
  write('acct-1', 'ws-1', 'local_11111111.json', { sessionId: 'local_11111111', cliSessionId: main, title: 'Greeting (Desktop)', cwd: repos.alpha, isArchived: false, createdAt: 1, lastActivityAt: 2 });
  write('acct-1', 'ws-2', 'local_22222222.json', { sessionId: 'local_22222222', cliSessionId: named, title: 'Shelved', cwd: repos.alpha, isArchived: true });
  write('acct-1', 'ws-2', 'notes.json', { cliSessionId: autocompact, title: 'not a session file' });
  const withDesktop = { ...opts, claudeDesktopDir: desktop };
  got = await addon.discoverSessions(repos.alpha, withDesktop);
  byId = Object.fromEntries(got.map((s) => [s.sessionId, s]));
  assert.equal(byId[main].title, 'Greeting (Desktop)');
  assert.equal(byId[named].title, 'Shelved');
  assert.equal(byId[named].archived, true);
  assert.equal(got.at(-1).sessionId, named, 'archived sessions come last');
  assert.ok(got.filter((s) => s.sessionId !== named).every((s) => !('archived' in s)));
  assert.equal(byId[autocompact].title, byId[autocompact].firstMessage);
  // Without the option (and on Linux, where Claude Desktop does not run): none of it.
  got = await addon.discoverSessions(repos.alpha, opts);
  assert.ok(got.every((s) => !('archived' in s)));
});

test('Claude Code 2.1: what appears between calls is seen by the next one (subfolder folders, indexes, Desktop files)', async () => {
  const claudeConfigDir = tempDir();
  const registryRoot = noRegistry();
  const { work, repos } = cc21Repos();
  placeCc21(claudeConfigDir, work, 'main');
  const desktop = tempDir('osi-desktop-');
  fs.mkdirSync(path.join(desktop, 'acct', 'ws'), { recursive: true });
  const opts = { claudeConfigDir, registryRoot, claudeDesktopDir: desktop };
  const { main, subfolder } = Object.fromEntries(Object.entries(cc21.sessions).map(([k, v]) => [k, v.sessionId]));
  const list = async () => addon.discoverSessions(repos.alpha, opts);
  const warm = async () => { for (let i = 0; i < 3; i++) await list(); };
  await warm();
  assert.deepEqual(ids(await list()), [main]);

  // A session started in a subfolder: a project folder that did not exist.
  placeCc21(claudeConfigDir, work, 'subfolder');
  assert.deepEqual(ids(await list()), [main, subfolder].sort());
  await warm();
  // One more in that folder, one in a sibling's new folder (not alpha's).
  const again = uuid();
  placeCc21(claudeConfigDir, work, 'subfolder', { newId: again });
  const sibling = uuid();
  placeCc21(claudeConfigDir, work, 'named', { newId: sibling, cwd: repos.old });
  assert.deepEqual(ids(await list()), [main, subfolder, again].sort());
  await warm();
  // A title from an index written later, then rewritten.
  const index = path.join(claudeConfigDir, 'projects', addon.repoPathToSlug(repos.alpha), 'sessions-index.json');
  const title = async () => (await list()).find((s) => s.sessionId === main).title;
  fs.writeFileSync(index, JSON.stringify({ version: 1, entries: [{ sessionId: main, summary: 'First summary' }] }));
  assert.equal(await title(), 'First summary');
  await warm();
  fs.writeFileSync(index, JSON.stringify({ version: 1, entries: [{ sessionId: main, summary: 'Second summary, longer' }] }));
  assert.equal(await title(), 'Second summary, longer');
  await warm();
  // A Desktop session file created, then written in place.
  const file = path.join(desktop, 'acct', 'ws', 'local_1.json');
  fs.writeFileSync(file, JSON.stringify({ cliSessionId: main, title: 'Desk A', isArchived: false }));
  assert.equal(await title(), 'Desk A');
  await warm();
  fs.writeFileSync(file, JSON.stringify({ cliSessionId: main, title: 'Desk B', isArchived: true }));
  const got = await list();
  assert.equal(got.at(-1).sessionId, main);
  assert.equal(got.at(-1).title, 'Desk B');
  assert.equal(got.at(-1).archived, true);
});
