// The spawn pre-flight through the addon (`preflightSpawn`, `recordSpawn`,
// `findSpawnedSession`) on real git repositories: the briefing, the guards,
// the busy rule over the host's spawns, continuation and the spawn record.
// The plugin's wiring of it is proven in plugin-spawns.test.mjs, and in the
// real chain in openclaw/spawn-preflight.openclaw.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addon, uuid, userLine, jsonl, writeSession } from './support/helpers.mjs';
import { git, world } from './support/spawn-world.mjs';

test('preflightSpawn: the task first and unchanged, then the briefing with the real branch, head and changes', async () => {
  const w = world();
  const head = git(w.repo, 'rev-parse', '--short', 'HEAD');
  const pending = addon.preflightSpawn({ task: 'Refactor the cart', cwd: w.repo, agentId: 'main' }, { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir, persistentCache: false });
  assert.ok(pending instanceof Promise, 'runs off the JavaScript thread');
  const r = await pending;
  assert.equal(r.decision, 'brief');
  assert.equal(r.block, false);
  assert.match(r.nonce, /^[0-9a-f]{16}$/);
  assert.equal(r.params.task, `Refactor the cart\n\n${r.briefing}`);
  assert.equal(r.params.resumeSessionId, undefined);
  assert.ok(r.briefing.startsWith(`---\n[openclaw:agent=main,spawn=${r.nonce}]\n`), r.briefing);
  assert.match(r.briefing, new RegExp(`branch feature/totals, head ${head} "Add the cart"`));
  assert.match(r.briefing, /Working tree: 0 staged, 1 modified, 1 untracked: src\/cart\.js, notes\.txt/);
  assert.equal(r.repoPath, w.repo);
  const small = await addon.preflightSpawn({ task: 'Refactor the cart', cwd: w.repo }, { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir, briefingMaxChars: 150 });
  assert.equal(small.truncated, true);
  assert.ok(small.briefing.length <= 150);
  assert.match(small.briefing, /\[briefing truncated to 150 characters\]$/);
});

test('preflightSpawn: a work tree whose status takes longer than statusBudgetMs is left out of the briefing, the rest kept', async () => {
  const w = world();
  fs.mkdirSync(path.join(w.repo, 'bulk'));
  for (let i = 0; i < 40_000; i++) fs.writeFileSync(path.join(w.repo, 'bulk', `f${i}.txt`), 'x');
  const o = { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir, persistentCache: false };
  const hurried = await addon.preflightSpawn({ task: 'Fix the cart', cwd: w.repo, agentId: 'main' }, { ...o, statusBudgetMs: 1 });
  assert.match(hurried.briefing, /Working tree: not read within the pre-flight's time/);
  assert.match(hurried.briefing, /branch feature\/totals/);
  const patient = await addon.preflightSpawn({ task: 'Fix the cart', cwd: w.repo, agentId: 'main' }, o);
  assert.match(patient.briefing, /Working tree: 0 staged, 1 modified, 2 untracked/);
});

test('preflightSpawn: guards block with a reason, or warn, or are off; a bad mode is a coded error', async () => {
  const w = world();
  const o = { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir };
  const none = await addon.preflightSpawn({ task: 't', requesterWorkspace: '/ws/main' }, o);
  assert.deepEqual([none.block, none.guard, none.params], [true, 'missingCwd', undefined]);
  assert.match(none.reason, /`cwd`.*\/ws\/main/s);
  const warned = await addon.preflightSpawn({ task: 't' }, { ...o, missingCwd: 'warn' });
  assert.deepEqual([warned.block, warned.decision, warned.warnings.length], [false, 'pass', 1]);
  assert.equal(warned.params.task, `t\n\n---\n[openclaw:agent=main,spawn=${warned.nonce}]`, 'passed, with its origin marker');
  const missing = path.join(w.repo, 'gone');
  const bad = await addon.preflightSpawn({ task: 't', cwd: missing }, o);
  assert.deepEqual([bad.block, bad.guard], [true, 'invalidCwd']);
  assert.ok(bad.reason.includes(missing));
  assert.equal((await addon.preflightSpawn({ task: 't', cwd: missing }, { ...o, invalidCwd: 'off' })).decision, 'pass');
  const gone = await addon.preflightSpawn({ task: 't', cwd: w.repo, resumeSessionId: uuid() }, o);
  assert.deepEqual([gone.block, gone.guard], [true, 'missingResume']);
  await assert.rejects(addon.preflightSpawn({ task: 't', cwd: w.repo }, { ...o, busy: 'sometimes' }), (e) => e.code === 'E_INVALID_ARGUMENT' && /sometimes/.test(e.message) && typeof e.hint === 'string');
  const file = path.join(w.repo, 'notes.txt');
  await assert.rejects(addon.preflightSpawn({ task: 't', cwd: w.repo }, { ...o, claudeConfigDir: file }), (e) => e.code === 'E_INVALID_ARGUMENT');
});

test('preflightSpawn: a session running in the repository blocks it, naming the session; another repository is not blocked', async () => {
  const w = world();
  // The busy guard itself: isolation (spawn-worktrees.test.mjs) off.
  const o = { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir, isolation: 'off' };
  const inFlight = [{ cwd: w.repo, repoPath: w.repo, claudeSessionId: undefined, childSessionKey: 'agent:claude:acp:42' }];
  const busy = await addon.preflightSpawn({ task: 't', cwd: path.join(w.repo, 'src') }, { ...o, inFlight });
  assert.deepEqual([busy.block, busy.guard, busy.running.signal], [true, 'busy', 'spawn']);
  assert.match(busy.reason, /agent:claude:acp:42/);
  assert.equal((await addon.preflightSpawn({ task: 't', cwd: w.other }, { ...o, inFlight })).decision, 'brief');
  // Past its start grace a spawn the host was never seen starting no longer
  // counts; one seen starting counts while its session is looked for.
  const { startGraceMs, learnForMs } = addon.SPAWN_POLICY;
  const unseen = { ...inFlight[0], startedAtMs: Date.now() - startGraceMs - 1000, started: false };
  assert.equal((await addon.preflightSpawn({ task: 't', cwd: w.repo }, { ...o, inFlight: [unseen] })).decision, 'brief');
  assert.equal((await addon.preflightSpawn({ task: 't', cwd: w.repo }, { ...o, inFlight: [{ ...unseen, started: true }] })).guard, 'busy');
  const unlearned = { ...unseen, started: true, startedAtMs: Date.now() - learnForMs - 1000 };
  assert.equal((await addon.preflightSpawn({ task: 't', cwd: w.repo }, { ...o, inFlight: [unlearned] })).decision, 'brief');
  const id = uuid();
  writeSession(w.claudeConfigDir, w.repo, id, jsonl([userLine(id, 'rename things', { cwd: w.repo })]));
  const written = await addon.preflightSpawn({ task: 't', cwd: w.repo }, o);
  assert.deepEqual([written.guard, written.running.sessionId, written.running.signal], ['busy', id, 'recent-write']);
  assert.equal((await addon.preflightSpawn({ task: 't', cwd: w.repo }, { ...o, finishedSessionIds: [id] })).decision, 'brief');
  assert.equal((await addon.preflightSpawn({ task: 't', cwd: w.repo }, { ...o, busy: 'off' })).decision, 'brief');
  assert.equal((await addon.preflightSpawn({ task: 't', cwd: w.other }, { ...o, busyWindowMs: 1e300 })).decision, 'brief', 'any window is taken');
});

test('recordSpawn and findSpawnedSession: a spawned session is found by its nonce and listed as OpenClaw\'s with its label and task', async () => {
  const w = world();
  const r = await addon.preflightSpawn({ task: 'Refactor the cart', cwd: w.repo }, { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir, nonce: 'feedc0de00000001' });
  assert.equal(r.nonce, 'feedc0de00000001');
  const id = uuid();
  const terminal = uuid();
  const old = new Date(Date.now() - 3600_000);
  fs.utimesSync(writeSession(w.claudeConfigDir, w.repo, id, jsonl([userLine(id, r.params.task, { cwd: w.repo })])), old, old);
  fs.utimesSync(writeSession(w.claudeConfigDir, w.repo, terminal, jsonl([userLine(terminal, 'look around', { cwd: w.repo })])), old, old);
  assert.equal(await addon.findSpawnedSession(w.repo, r.nonce, { claudeConfigDir: w.claudeConfigDir }), id);
  assert.equal(await addon.findSpawnedSession(w.repo, 'nope', { claudeConfigDir: w.claudeConfigDir }), null);
  const stored = await addon.recordSpawn('main', { nonce: r.nonce, task: 'Refactor the cart', label: 'cart', cwd: w.repo, repoPath: r.repoPath, startedAt: new Date().toISOString() }, w.stateDir);
  assert.equal(stored.claudeSessionId, undefined);
  await addon.recordSpawn('main', { nonce: r.nonce, claudeSessionId: id, childSessionKey: 'agent:claude:acp:7' }, w.stateDir);
  assert.deepEqual((await addon.listSpawns('main', w.stateDir)).map((s) => [s.claudeSessionId, s.task, s.childSessionKey]), [[id, 'Refactor the cart', 'agent:claude:acp:7']]);
  const sessions = await addon.discoverSessions(w.repo, { claudeConfigDir: w.claudeConfigDir, registryRoot: w.stateDir, persistentCache: false });
  const mine = sessions.find((s) => s.sessionId === id);
  assert.deepEqual([mine.source, mine.agentId, mine.label, mine.lastTask, mine.title, mine.firstMessage, mine.originMarker], ['openclaw', 'main', 'cart', 'Refactor the cart', 'Refactor the cart', 'Refactor the cart', 'main']);
  assert.equal(sessions.find((s) => s.sessionId === terminal).source, 'native-only');
  const tool = addon.sessionListToolPayload(sessions);
  assert.equal(tool.sessions.find((s) => s.sessionId === id).source, 'openclaw');
  await assert.rejects(addon.recordSpawn('../x', { nonce: 'n' }, w.stateDir), (e) => e.code === 'E_INVALID_ARGUMENT');
});
