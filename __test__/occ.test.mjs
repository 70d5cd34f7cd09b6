// occ as the agent runs it: the real bin/occ.mjs in a child process, against
// temporary state dirs built from the OpenClaw fixtures and generated
// transcripts. Every command and flag, every error row with its exit code and
// hint, --json against the addon's results, config precedence, and the
// README's examples.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync, execFileSync } from 'node:child_process';
import { root, fixtures, tempDir, fixtureClaudeDir, openclawTranscript, posix } from './support/helpers.mjs';

const OCC = path.join(root, 'bin', 'occ.mjs');
const F8 = 'f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1';
const B1 = '1b975ccf-9dbe-4f4e-9d2b-8abe12178979';
const MOLTBOT = path.join(fixtures, 'openclaw', 'moltbot-2026-01-31');

/** A home with no config of its own, so the user's files never leak in. */
const home = tempDir('osi-occ-home-');
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OCC_') && !k.startsWith('ANTHROPIC_') && !['OPENCLAW_STATE_DIR', 'OPENCLAW_PROFILE', 'OPENCLAW_HOME', 'CLAWDBOT_STATE_DIR'].includes(k)));
Object.assign(baseEnv, { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), CLAUDE_CONFIG_DIR: path.join(home, '.claude') });

/** Runs occ; returns { code, stdout, stderr, json() }. */
function occ(args, { env = {}, cwd = home } = {}) {
  const r = spawnSync(process.execPath, [OCC, ...args], { cwd, env: { ...baseEnv, ...env }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
}

/** A state dir with the moltbot fixture transcripts for `agents`, f8c3 the newest. */
function moltbotState(agents = ['main']) {
  const state = tempDir('osi-occ-state-');
  for (const agent of agents) {
    const dir = path.join(state, 'agents', agent, 'sessions');
    fs.mkdirSync(dir, { recursive: true });
    for (const f of [`${B1}.jsonl`, `${F8}.jsonl`, 'sessions.json']) fs.copyFileSync(path.join(MOLTBOT, f), path.join(dir, f));
    fs.utimesSync(path.join(dir, `${B1}.jsonl`), new Date('2026-01-30T00:00:00Z'), new Date('2026-01-30T00:00:00Z'));
  }
  return state;
}

/** A state dir whose agent `agent` has generated transcripts `files` ({ name: turns }). */
function generatedState(agent, files) {
  const state = tempDir('osi-occ-gen-');
  const dir = path.join(state, 'agents', agent, 'sessions');
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, turns] of Object.entries(files)) fs.writeFileSync(path.join(dir, `${name}.jsonl`), openclawTranscript(turns));
  return { state, dir };
}

const assertError = (r, code, message, hint) => {
  assert.equal(r.code, code, `exit code of: ${r.stderr}`);
  assert.equal(r.stdout, '', 'nothing on stdout');
  assert.match(r.stderr, new RegExp(`^Error: .*${message.source}`, 'm'));
  assert.match(r.stderr, new RegExp(`^Hint: .*${hint.source}`, 'm'));
};

test('the package installs occ as its bin, and --help, --quickstart and no command behave', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  assert.equal(pkg.bin.occ, 'bin/occ.mjs');
  if (posix) assert.ok(fs.statSync(OCC).mode & 0o111, 'executable');
  const quick = occ(['--quickstart']);
  assert.equal(quick.code, 0);
  const words = quick.stdout.split(/\s+/).filter(Boolean).length;
  assert.ok(words > 50 && words < 300, `quickstart has ${words} words`);
  assert.match(quick.stdout, /occ edit --strip-tools/);
  const help = occ(['--help']);
  assert.equal(help.code, 0);
  for (const word of ['list', 'info', 'edit', 'clone', 'restore', 'cc sessions', 'cc status', 'cc select', '--agent', '--state-dir', '--json', '--verbose', '--no-register', '--dry-run', '-n', '-o', 'OCC_PRESET', 'Exit codes']) assert.ok(help.stdout.includes(word), `--help mentions ${word}`);
  const none = occ([]);
  assert.equal(none.code, 2, 'no command is a usage error');
  assert.match(none.stdout, /^usage: occ/);
});

test('list: newest first, relative times and human sizes, -n, --verbose, --json as the addon returns it', () => {
  const state = moltbotState();
  const human = occ(['list', '--state-dir', state]);
  assert.equal(human.code, 0, human.stderr);
  const lines = human.stdout.trim().split('\n');
  assert.match(lines[0], /^SESSION\s+MODIFIED\s+SIZE\s+STATE\s+NAME/);
  assert.match(lines[1], /^f8c3e7a8\s+\d+[smhd] ago\s+\d+ KB/);
  assert.match(lines[2], /^1b975ccf\s+\d+d ago\s+\d+(\.\d)? (KB|MB)/);
  assert.equal(occ(['list', '-n', '1', '--state-dir', state]).stdout.trim().split('\n').length, 2);
  assert.ok(occ(['list', '--verbose', '--state-dir', state]).stdout.includes(path.join(state, 'agents', 'main', 'sessions', `${F8}.jsonl`)));
  const json = occ(['list', '--json', '--state-dir', state]).json();
  assert.deepEqual(json.map((t) => t.sessionId), [F8, B1]);
  for (const t of json) {
    assert.equal(typeof t.path, 'string');
    assert.equal(typeof t.sizeBytes, 'number');
    assert.ok(!Number.isNaN(Date.parse(t.modified)));
    assert.ok(Array.isArray(t.sessionKeys));
  }
  assert.equal(occ(['list', '--json', '-n=1', '--state-dir', state]).json().length, 1);
});

test('info: partial id, human summary and --json', () => {
  const state = moltbotState();
  const human = occ(['info', 'f8c3', '--state-dir', state]);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, new RegExp(`^Session ${F8}$`, 'm'));
  assert.match(human.stdout, /Messages: 27 \(/);
  assert.match(human.stdout, /Tool calls: 11, tool results: 11/);
  const json = occ(['info', 'f8c3', '--json', '--state-dir', state]).json();
  assert.equal(json.sessionId, F8);
  assert.equal(json.messageCount, 27);
  assert.equal(json.toolCallCount, 11);
  for (const key of ['path', 'sizeBytes', 'modified', 'messagesByRole', 'turnCount', 'turnsWithTools', 'compactionCount', 'estimatedTokens']) assert.ok(Object.hasOwn(json, key), key);
});

test('edit: auto-detects the newest session, dry run, presets, human and verbose output; restore undoes it', () => {
  const state = moltbotState();
  const file = path.join(state, 'agents', 'main', 'sessions', `${F8}.jsonl`);
  const original = fs.readFileSync(file);
  const dry = occ(['edit', '--strip-tools=extreme', '--dry-run', '--json', '--state-dir', state]).json();
  assert.deepEqual([dry.sessionId, dry.dryRun, dry.changed, dry.statistics.toolCallsRemoved], [F8, true, true, 11]);
  assert.deepEqual(fs.readFileSync(file), original, 'a dry run writes nothing');
  const human = occ(['edit', '--strip-tools=extreme', '--state-dir', state]);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, new RegExp(`^✓ Session edited: ${F8}$`, 'm'));
  assert.match(human.stdout, /^ {2}Messages: 27 → 5 \(81% reduction\)$/m);
  assert.match(human.stdout, /^ {2}Tool calls: 11 removed, 0 truncated, 0 preserved$/m);
  assert.match(human.stdout, /^ {2}Size: \d+ KB → \d+ KB \(\d+% reduction\)$/m);
  const backup = human.stdout.match(/^ {2}Backup: (.+)$/m)[1];
  assert.deepEqual(fs.readFileSync(backup), original);
  const restored = occ(['restore', 'f8c', '--state-dir', state]);
  assert.equal(restored.code, 0, restored.stderr);
  assert.match(restored.stdout, new RegExp(`^✓ Session restored: ${F8}$`, 'm'));
  assert.deepEqual(fs.readFileSync(file), original);
  const verbose = occ(['edit', F8.slice(0, 6), '--strip-tools', '--verbose', '--state-dir', state]);
  assert.equal(verbose.code, 0, verbose.stderr);
  assert.match(verbose.stdout, /Statistics:\n {2}Messages: {5}27 → \d+/);
  assert.match(verbose.stdout, /Turn Analysis:\n {2}Total turns with tools: \d+/);
  assert.match(verbose.stdout, /Turns preserved: \d+/);
  const json = occ(['restore', F8, '--json', '--state-dir', state]).json();
  assert.equal(json.sessionId, F8);
  assert.ok(fs.existsSync(json.restoredFrom) && fs.existsSync(json.replacedBackup));
  assert.deepEqual(fs.readFileSync(file), original);
});

test('clone: -o, --no-register, --strip-tools, registration and --json', () => {
  const state = moltbotState();
  const out = path.join(tempDir('osi-occ-out-'), 'copy.jsonl');
  const r = occ(['clone', 'f8c3', '--strip-tools=extreme', '-o', out, '--no-register', '--json', '--state-dir', state]);
  assert.equal(r.code, 0, r.stderr);
  const json = r.json();
  assert.equal(json.sourceSessionId, F8);
  assert.equal(json.clonedSessionPath, out);
  assert.equal(json.statistics.toolCallsRemoved, 11);
  assert.equal(Object.hasOwn(json, 'sessionKey'), false, 'not registered');
  const header = JSON.parse(fs.readFileSync(out, 'utf8').split('\n')[0]);
  assert.equal(header.id, json.clonedSessionId);
  const registered = occ(['clone', B1.slice(0, 4), '--state-dir', state]);
  assert.equal(registered.code, 0, registered.stderr);
  assert.match(registered.stdout, new RegExp(`^✓ Session cloned: ${B1} → [0-9a-f-]{36}$`, 'm'));
  assert.match(registered.stdout, /^ {2}Registered as: \S+/m);
  const listed = occ(['list', '--json', '--state-dir', state]).json().map((t) => t.sessionId);
  assert.equal(listed.length, 3, 'the registered clone is listed');
});

test('every error row: exit code, message on stderr, resolution hint', () => {
  const state = moltbotState();
  assertError(occ(['info', 'zz', '--state-dir', state]), 3, /"zz"/, /occ list/);
  assertError(occ(['restore', 'f8c3', '--state-dir', state]), 3, /has no backup/, /nothing to restore/);
  assertError(occ(['list', '--agent', 'ghost', '--state-dir', state]), 3, /ghost/, /main/);
  const { state: amb, dir } = generatedState('main', { 'ab01': 3, 'ab02': 3 });
  // Candidates are listed newest first; equal times fall back to id order.
  for (const f of ['ab01.jsonl', 'ab02.jsonl']) fs.utimesSync(path.join(dir, f), new Date('2026-02-01T00:00:00Z'), new Date('2026-02-01T00:00:00Z'));
  assertError(occ(['info', 'ab', '--state-dir', amb]), 4, /"ab" matches 2 sessions: ab01, ab02/, /more characters/);
  fs.writeFileSync(path.join(dir, 'ab01.jsonl.lock'), JSON.stringify({ pid: process.pid, createdAt: new Date().toISOString() }));
  const busyBefore = fs.readFileSync(path.join(dir, 'ab01.jsonl'));
  assertError(occ(['edit', 'ab01', '--strip-tools', '--state-dir', amb]), 5, /ab01/, /.+/);
  assert.deepEqual(fs.readFileSync(path.join(dir, 'ab01.jsonl')), busyBefore, 'a busy session is left alone');
  const { state: bad, dir: badDir } = generatedState('main', {});
  fs.writeFileSync(path.join(badDir, 'cc01.jsonl'), '{"type":"message","message":{"role":"user","content":"hi"}}\n');
  assertError(occ(['edit', 'cc01', '--strip-tools', '--state-dir', bad]), 2, /session header/, /occ list/);
  assertError(occ(['edit', '--strip-tools', '--agent', 'none', '--state-dir', generatedState('none', {}).state]), 3, /.+/, /.+/);
  const sqlite = moltbotState();
  fs.mkdirSync(path.join(sqlite, 'agents', 'main', 'agent'), { recursive: true });
  fs.writeFileSync(path.join(sqlite, 'agents', 'main', 'agent', 'openclaw-agent.sqlite'), '');
  assertError(occ(['list', '--state-dir', sqlite]), 6, /not an OpenClaw agent database/, /19, 21, 23/);
  assertError(occ(['edit', '--strip-tools=gentle', '--state-dir', state]), 2, /unknown preset "gentle"/, /default, aggressive, extreme/);
  assertError(occ(['edit', '--state-dir', state]), 2, /--strip-tools/, /occ edit --strip-tools/);
  assertError(occ(['info', '--state-dir', state]), 2, /session id/, /occ list/);
  assertError(occ(['clone', '--state-dir', state]), 2, /session id/, /occ list/);
  assertError(occ(['restore', '--state-dir', state]), 2, /session id/, /occ list/);
  assertError(occ(['list', '-n', 'x', '--state-dir', state]), 2, /-n takes a positive whole number/, /occ --help/);
  assertError(occ(['list', '--agent']), 2, /--agent needs a value/, /occ --help/);
  assertError(occ(['list', '--frobnicate']), 2, /unknown option --frobnicate/, /occ --help/);
  assertError(occ(['frobnicate']), 2, /unknown command "frobnicate"/, /occ --help/);
  assertError(occ(['cc', 'frobnicate']), 2, /unknown command "cc frobnicate"/, /sessions\|status\|select/);
  assertError(occ(['cc', 'select']), 2, /needs a task/, /occ cc select/);
  // Arguments past those a command takes are refused, not ignored.
  assertError(occ(['cc', 'select', 'fix', 'the', 'login']), 2, /cc select takes a task and at most one repository \(got fix the login\)/, /quote the task/);
  assertError(occ(['cc', 'sessions', '.', 'extra']), 2, /cc sessions takes at most one repository \(got \. extra\)/, /occ --help/);
  assertError(occ(['cc', 'status', '.', 'extra']), 2, /cc status takes at most one repository/, /occ --help/);
  for (const command of ['info', 'clone', 'restore', 'export']) assertError(occ([command, 'a', 'b', '--state-dir', state]), 2, new RegExp(`${command} takes one session id \\(got a b\\)`), /occ --help/);
  assertError(occ(['edit', 'a', 'b', '--strip-tools', '--state-dir', state]), 2, /edit takes at most one session id/, /occ --help/);
  assertError(occ(['list', 'a', '--state-dir', state]), 2, /list takes no arguments \(got a\)/, /occ --help/);
  assertError(occ(['handoff', 'status', 'a', '--state-dir', state]), 2, /handoff status takes no arguments \(got a\)/, /occ --help/);
  assertError(occ(['handoff', 'capture', 'a', 'b', '--state-dir', state]), 2, /handoff capture takes at most one session id \(got a b\)/, /occ --help/);
  assertError(occ(['info', '../../etc', '--state-dir', state]), 2, /.+/, /.+/);
  // Write failure: the output's directory is a file (root ignores permission bits).
  const notDir = path.join(tempDir('osi-occ-wf-'), 'a-file');
  fs.writeFileSync(notDir, '');
  assertError(occ(['clone', 'f8c3', '-o', path.join(notDir, 'out.jsonl'), '--no-register', '--state-dir', state]), 1, /could not write .*out\.jsonl/, /writable and the disk is not full/);
});

test('config precedence: flag over environment over config file over defaults; custom presets; malformed files', () => {
  const state = moltbotState(['main', 'cfg', 'env', 'flag']);
  const agentOf = (args, opts) => {
    const r = occ(['list', '--json', '--verbose', ...args], opts);
    assert.equal(r.code, 0, r.stderr);
    return path.basename(path.dirname(path.dirname(r.json()[0].path)));
  };
  const project = tempDir('osi-occ-cwd-');
  assert.equal(agentOf([], { env: { OCC_STATE_DIR: state }, cwd: project }), 'main', 'default agent');
  fs.mkdirSync(path.join(home, '.config', 'occ'), { recursive: true });
  const userConfig = path.join(home, '.config', 'occ', 'config.json');
  fs.writeFileSync(userConfig, JSON.stringify({ agent: 'cfg', stateDir: state }));
  try {
    assert.equal(agentOf([], { cwd: project }), 'cfg', "the user's config dir");
    fs.writeFileSync(path.join(project, 'occ.config.json'), JSON.stringify({ agent: 'env', stateDir: state, preset: 'gentle', presets: { gentle: { keepTurnsWithTools: 1, truncatePercent: 0 } } }));
    assert.equal(agentOf([], { cwd: project }), 'env', 'the working directory before the user config');
    fs.writeFileSync(path.join(project, 'occ.config.json'), JSON.stringify({ agent: 'cfg', stateDir: state, preset: 'gentle', presets: { gentle: { keepTurnsWithTools: 1, truncatePercent: 0 } } }));
    assert.equal(agentOf([], { cwd: project }), 'cfg', 'config file');
    assert.equal(agentOf([], { cwd: project, env: { OCC_AGENT: 'env' } }), 'env', 'environment over config file');
    assert.equal(agentOf(['--agent', 'flag'], { cwd: project, env: { OCC_AGENT: 'env' } }), 'flag', 'flag over environment');
    assert.equal(agentOf(['--state-dir', moltbotState()], { cwd: project, env: { OCC_AGENT: 'main' } }), 'main', '--state-dir over the config file');

    const removed = (args, env = {}) => {
      const r = occ(['edit', F8, '--dry-run', '--json', ...args], { cwd: project, env });
      assert.equal(r.code, 0, r.stderr);
      return r.json().statistics.toolCallsRemoved;
    };
    const gentle = removed(['--strip-tools']);
    assert.ok(gentle > 0 && gentle < 11, `the config file's preset and custom preset (${gentle} removed)`);
    assert.equal(removed(['--strip-tools'], { OCC_PRESET: 'extreme' }), 11, 'OCC_PRESET over the config file');
    assert.equal(removed(['--strip-tools=default'], { OCC_PRESET: 'extreme' }), 0, 'the flag over OCC_PRESET');

    fs.writeFileSync(path.join(project, '.occrc'), '{"agent": "main"');
    fs.rmSync(path.join(project, 'occ.config.json'));
    assertError(occ(['list'], { cwd: project }), 2, new RegExp(`${path.join(project, '.occrc').replace(/[.]/g, '\\.')} is not valid JSON`), /fix or remove/);
    fs.writeFileSync(path.join(project, '.occrc'), JSON.stringify({ presets: { broken: { keepTurnsWithTools: 'ten' } } }));
    assertError(occ(['list'], { cwd: project }), 2, /preset "broken" needs keepTurnsWithTools, a whole number/, /fix or remove/);
    fs.writeFileSync(path.join(project, '.occrc'), JSON.stringify({ agent: 7 }));
    assertError(occ(['list'], { cwd: project }), 2, /"agent" must be a string/, /fix or remove/);
    // Counts the addon would wrap (-1 keeps everything, 1e300 nothing) are refused here.
    for (const [keep, pct] of [[-1, 0], [1e300, 0], [2.5, 0], [1, 101], [1, -1]]) {
      fs.writeFileSync(path.join(project, '.occrc'), `{"presets": {"broken": {"keepTurnsWithTools": ${keep}, "truncatePercent": ${pct}}}}`);
      assertError(occ(['list'], { cwd: project }), 2, /preset "broken" needs keepTurnsWithTools, a whole number/, /fix or remove/);
    }
    fs.writeFileSync(path.join(project, '.occrc'), JSON.stringify({ presets: [{ keepTurnsWithTools: 1, truncatePercent: 0 }] }));
    assertError(occ(['list'], { cwd: project }), 2, /"presets" must be an object/, /fix or remove/);
    fs.rmSync(path.join(project, '.occrc'));
    fs.mkdirSync(path.join(project, '.occrc'));
    assertError(occ(['list'], { cwd: project }), 2, /\.occrc is not a regular file/, /fix or remove/);
    fs.rmdirSync(path.join(project, '.occrc'));
    // A byte-order mark, as some editors write, is not an error.
    fs.writeFileSync(path.join(project, '.occrc'), '\uFEFF' + JSON.stringify({ agent: 'bom', stateDir: state }));
    assertError(occ(['list'], { cwd: project }), 3, /agent bom/, /./);
  } finally {
    fs.rmSync(userConfig);
  }
});

test('cc sessions, status and select on a real git repository and the Claude Code fixtures', () => {
  const claude = fixtureClaudeDir();
  const env = { CLAUDE_CONFIG_DIR: claude, OPENCLAW_STATE_DIR: tempDir('osi-occ-oc-') };
  const repo = '/home/marco/projects/spotter';
  const sessions = occ(['cc', 'sessions', repo, '--json'], { env });
  assert.equal(sessions.code, 0, sessions.stderr);
  const list = sessions.json();
  assert.ok(list.length > 0);
  for (const s of list) for (const key of ['sessionId', 'title', 'branch', 'lastModified', 'messageCount', 'contextTokens', 'isRunning', 'source']) assert.ok(Object.hasOwn(s, key), key);
  const table = occ(['cc', 'sessions', repo], { env });
  assert.match(table.stdout, /^SESSION\s+SOURCE\s+BRANCH\s+MODIFIED/);
  assert.match(table.stdout, new RegExp(`${list.length} session\\(s\\) of ${repo}`));

  const git = tempDir('osi-occ-git-');
  const run = (...args) => execFileSync('git', ['-c', 'init.defaultBranch=main', '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: git, stdio: 'pipe' });
  run('init', '-q');
  fs.writeFileSync(path.join(git, 'README.md'), '# demo\n');
  run('add', '.');
  run('commit', '-qm', 'first commit');
  fs.writeFileSync(path.join(git, 'new.txt'), 'x');
  const status = occ(['cc', 'status', '--json'], { env, cwd: git });
  assert.equal(status.code, 0, status.stderr);
  const s = status.json();
  assert.equal(s.repo.isGitRepo, true);
  assert.equal(s.git.currentBranch, 'main');
  assert.equal(s.git.headCommitMessage, 'first commit');
  assert.ok(s.docs.hasReadme);
  const human = occ(['cc', 'status', git], { env });
  assert.match(human.stdout, /Branch: main {2}HEAD: [0-9a-f]+ first commit/);
  assert.match(human.stdout, /Changes: 0 staged, 1 unstaged\/untracked/);

  const select = occ(['cc', 'select', 'fix the login redirect', git, '--json'], { env });
  assert.equal(select.code, 0, select.stderr);
  const pick = select.json();
  assert.equal(pick.action, 'fresh', 'no sessions: a fresh start');
  assert.equal(typeof pick.reason, 'string');
  assert.match(occ(['cc', 'select', 'fix the login redirect', git], { env }).stdout, /^FRESH/);
});

test('cc sessions, status and select read the registries in the state dir of --state-dir, $OCC_STATE_DIR, the config file or OpenClaw\'s own resolution', () => {
  const git = tempDir('osi-occ-reg-git-');
  execFileSync('git', ['init', '-q'], { cwd: git });
  const id = '1af7fc5e-8455-4414-9ccd-011d40f70b2a';
  /** A state dir at `state` whose agent ops spawned session `id` in `git`. */
  const registryIn = (state) => {
    fs.mkdirSync(path.join(state, 'agents', 'ops'), { recursive: true });
    fs.writeFileSync(path.join(state, 'agents', 'ops', 'claude-code-sessions.json'), JSON.stringify({ sessions: {
      [`${git}::ui`]: { sessionId: id, createdAt: '2026-11-20T10:00:00.000Z', lastResumedAt: '2026-11-20T11:00:00.000Z', totalCostUsd: 1.5, totalTurns: 3, taskHistory: [{ at: '2026-11-20T11:00:00.000Z', task: 'fix the login redirect', costUsd: 1.5 }], label: 'ui' },
    } }));
    return state;
  };
  const state = registryIn(tempDir('osi-occ-reg-state-'));
  const spawned = (sessions) => sessions.filter((x) => x.source === 'openclaw' && x.agentId === 'ops').map((x) => x.sessionId);
  const ok = (r) => {
    assert.equal(r.code, 0, r.stderr);
    return r.json();
  };
  // The default state dir (~/.openclaw of this empty home) has no registry.
  assert.deepEqual(ok(occ(['cc', 'sessions', git, '--json'])), []);
  assert.deepEqual(spawned(ok(occ(['cc', 'sessions', git, '--json', '--state-dir', state]))), [id]);
  const status = (...flags) => ok(occ(['cc', 'status', git, '--json', ...flags], { env: { OCC_STATE_DIR: state } })).sessions;
  assert.deepEqual(spawned(status().recent), [id]);
  // The agent's own: of the agent occ works for (main unless named).
  assert.deepEqual(status().ownRecent, []);
  assert.deepEqual(spawned(status('--agent', 'ops').ownRecent), [id]);
  const project = tempDir('osi-occ-reg-cwd-');
  fs.writeFileSync(path.join(project, '.occrc'), JSON.stringify({ agent: 'ops', stateDir: state }));
  const pick = ok(occ(['cc', 'select', 'fix the login redirect', git, '--json'], { cwd: project }));
  assert.deepEqual(pick.scores?.map((x) => x.sessionId), [id], JSON.stringify(pick));
  // Unnamed, the state dir is where OpenClaw keeps it: a profile's, or under $OPENCLAW_HOME.
  const profileHome = tempDir('osi-occ-reg-home-');
  registryIn(path.join(profileHome, '.openclaw-work'));
  assert.deepEqual(spawned(ok(occ(['cc', 'sessions', git, '--json'], { env: { HOME: profileHome, OPENCLAW_PROFILE: 'work' } }))), [id]);
  const openclawHome = tempDir('osi-occ-reg-oc-home-');
  registryIn(path.join(openclawHome, '.openclaw'));
  assert.deepEqual(spawned(ok(occ(['cc', 'sessions', git, '--json'], { env: { OPENCLAW_HOME: openclawHome } }))), [id]);
});

test('handoff: capture, status, resume (offers it), clear, with --json as the addon returns it', () => {
  const state = moltbotState();
  const env = { OCC_STATE_DIR: state };
  assert.match(occ(['handoff', 'status'], { env }).stdout, /^No handoff for agent main\.\n$/);
  const cap = occ(['handoff', 'capture', '1b97', '--project', 'moltbot', '--json'], { env });
  assert.equal(cap.code, 0, cap.stderr);
  const st = cap.json();
  assert.equal(st.previousSessionId, B1);
  assert.equal(st.trigger, 'manual');
  assert.equal(st.project, 'moltbot');
  assert.ok(fs.existsSync(path.join(state, 'agents', 'main', 'handoff', 'session-state.json')));
  const human = occ(['handoff', 'capture'], { env });
  assert.match(human.stdout, new RegExp(`^✓ Handoff captured from ${F8}\n  Project: general `));
  const status = occ(['handoff', 'status'], { env });
  assert.match(status.stdout, new RegExp(`^Handoff from ${F8} \\(will be offered\\)\n`));
  assert.match(status.stdout, /Transcript: unchanged; 2 snapshot\(s\)/);
  const resume = occ(['handoff', 'resume'], { env });
  assert.match(resume.stdout, /^## Previous Session Context\n/);
  assert.match(occ(['handoff', 'status'], { env }).stdout, /\(offered less than 5 minutes ago\)/);
  assert.equal(occ(['handoff', 'resume', '--json'], { env }).json().previousSessionId, F8, 'resume forces the offer');
  assert.deepEqual(occ(['handoff', 'clear', '--json'], { env }).json(), { cleared: true });
  assert.match(occ(['handoff', 'clear'], { env }).stdout, /^No handoff to clear\./);
  assert.match(occ(['handoff', 'resume'], { env }).stdout, /^No handoff to resume for agent main\./);
  const bad = occ(['handoff', 'rewind'], { env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Hint: use occ handoff capture\|status\|resume\|clear/);
  assert.equal(occ(['handoff', 'capture', 'zzz'], { env }).code, 3);
});

test('every occ example in the README runs as documented', () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## The command line'));
  const block = section.match(/```sh\n([\s\S]*?)```/)[1];
  const examples = block.split('\n').filter((l) => l.startsWith('occ '));
  assert.ok(examples.length >= 8, 'the README shows the commands');
  const state = moltbotState();
  const git = tempDir('osi-occ-readme-');
  execFileSync('git', ['init', '-q'], { cwd: git });
  const env = { OCC_STATE_DIR: state, CLAUDE_CONFIG_DIR: fixtureClaudeDir() };
  for (const line of examples) {
    const args = [...line.slice(4).matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
    const r = occ(args, { env, cwd: git });
    assert.equal(r.code, 0, `${line}: ${r.stderr}`);
    assert.ok(r.stdout.trim().length > 0, `${line} prints a result`);
    if (args.includes('--json')) JSON.parse(r.stdout);
  }
});

test('commands that need no addon never load it; npm start lists the generated sample', () => {
  const bare = tempDir('osi-occ-bare-');
  fs.mkdirSync(path.join(bare, 'bin'));
  // occ as packaged, without the addon beside it.
  for (const name of fs.readdirSync(path.dirname(OCC))) fs.copyFileSync(path.join(path.dirname(OCC), name), path.join(bare, 'bin', name));
  for (const args of [['--help'], ['--quickstart']]) {
    const r = spawnSync(process.execPath, [path.join(bare, 'bin', 'occ.mjs'), ...args], { cwd: home, env: baseEnv, encoding: 'utf8' });
    assert.equal(r.status, 0, `${args}: ${r.stderr}`);
  }
  const needsAddon = spawnSync(process.execPath, [path.join(bare, 'bin', 'occ.mjs'), 'list'], { cwd: home, env: baseEnv, encoding: 'utf8' });
  assert.equal(needsAddon.status, 1, 'list does load it (and fails without it)');

  const start = spawnSync(process.execPath, [path.join(root, 'scripts', 'start.mjs')], { cwd: root, env: baseEnv, encoding: 'utf8' });
  assert.equal(start.status, 0, start.stderr);
  assert.match(start.stdout, /^Sample: 8 Claude Code sessions/m);
  assert.match(start.stdout, /^SESSION\s+SOURCE\s+BRANCH/m);
  assert.match(start.stdout, /^8 session\(s\) of \//m);
});
