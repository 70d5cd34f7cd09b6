// Hook helpers through the addon: context pressure of real and generated
// Claude Code transcripts, the hook registry's merge and validation.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { addon, fixtureClaudeDir, tempDir, assistantLine, userLine } from './support/helpers.mjs';

test('contextPressure agrees with discovery on the fixtures and reports the one-line form', async () => {
  const claude = fixtureClaudeDir();
  process.env.CLAUDE_CONFIG_DIR = claude;
  try {
    const sessions = await addon.discoverSessions('/home/marco/projects/spotter');
    assert.ok(sessions.length > 0);
    for (const s of sessions) {
      const file = path.join(claude, 'projects', '-home-marco-projects-spotter', `${s.sessionId}.jsonl`);
      const p = await addon.contextPressure({ transcriptPath: file });
      assert.equal(p.tokens, s.contextTokens, s.sessionId);
      assert.equal(p.line, `context: ${p.percent}% [${p.level}]`);
    }
  } finally {
    delete process.env.CLAUDE_CONFIG_DIR;
  }
});

test('contextPressure levels, window and threshold; coded errors', async () => {
  const dir = tempDir('osi-hooks-');
  const file = path.join(dir, 's.jsonl');
  const lines = [userLine('s', 'hello'), assistantLine('s', 'msg_1', { input_tokens: 2000, cache_read_input_tokens: 142000 })];
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  assert.deepEqual(await addon.contextPressure({ transcriptPath: file }), { percent: 72, tokens: 144000, contextWindow: 200000, level: 'WARNING', line: 'context: 72% [WARNING]' });
  assert.equal((await addon.contextPressure({ transcriptPath: file, threshold: 80 })).line, 'context: 72% [OK]');
  assert.equal((await addon.contextPressure({ transcriptPath: file, threshold: 40 })).level, 'CRITICAL');
  assert.equal((await addon.contextPressure({ transcriptPath: file, contextWindow: 1_000_000 })).line, 'context: 14% [OK]');
  await assert.rejects(addon.contextPressure({ transcriptPath: path.join(dir, 'none.jsonl') }), (e) => e.code === 'E_SESSION_NOT_FOUND' && /transcript_path/.test(e.hint));
  await assert.rejects(addon.contextPressure({ transcriptPath: file, threshold: 0 }), (e) => e.code === 'E_INVALID_ARGUMENT');
  // Not wrapped modulo 2^32 (2^32 + 80 would read as 80).
  for (const threshold of [2 ** 32 + 80, 80.5, -1, Number.NaN]) {
    await assert.rejects(addon.contextPressure({ transcriptPath: file, threshold }), (e) => e.code === 'E_INVALID_ARGUMENT' && /threshold/.test(e.message), String(threshold));
  }
});

test('contextPressure takes the window of the session model: 1,000,000 for claude-opus-5-5 as the real CLI reports, unless given', async () => {
  const dir = tempDir('osi-hooks-');
  const file = path.join(dir, 's.jsonl');
  const line = assistantLine('s', 'msg_1', { input_tokens: 2000, cache_read_input_tokens: 142000 });
  line.message.model = 'claude-opus-5-5';
  fs.writeFileSync(file, JSON.stringify(line) + '\n');
  assert.deepEqual(await addon.contextPressure({ transcriptPath: file }), { percent: 14, tokens: 144000, contextWindow: 1_000_000, level: 'OK', line: 'context: 14% [OK]' });
  assert.equal((await addon.contextPressure({ transcriptPath: file, contextWindow: 200_000 })).line, 'context: 72% [WARNING]');
  // What the real CLI wrote; discovery reports the same window.
  const claude = tempDir('osi-claude21-');
  fs.cpSync(path.join(import.meta.dirname, '..', 'fixtures', 'claude-code-2.1', 'projects'), path.join(claude, 'projects'), { recursive: true });
  const repo = '/tmp/osi-claude-code-2.1/work/alpha';
  const [s] = (await addon.discoverSessions(repo, { claudeConfigDir: claude, persistentCache: false })).filter((x) => x.sessionId === '9b37d184-fdfd-4a93-980c-cb3cd84ac0b6');
  const p = await addon.contextPressure({ transcriptPath: s.transcriptPath });
  assert.equal(s.contextWindow, 1_000_000);
  assert.equal(p.contextWindow, s.contextWindow);
  assert.equal(p.tokens, s.contextTokens);
  assert.equal(p.percent, Math.round((p.tokens * 100) / 1_000_000));
});

const REGISTRY = {
  hook_settings: { pane_capture_lines: 200, context_pressure_threshold: 60 },
  agents: [
    { agent_id: 'gideon', tmux_session_name: 'gideon-cc', hook_settings: { pane_capture_lines: 80, hook_mode: 'bidirectional' } },
    { agent_id: 'warden', tmux_session_name: 'warden-cc', hook_settings: { autocompact_pct: 75 } },
  ],
};

test('resolveHookSettings merges per-agent > global > defaults, in snake_case', () => {
  assert.deepEqual(addon.resolveHookSettings(REGISTRY, 'gideon'), { pane_capture_lines: 80, context_pressure_threshold: 60, hook_mode: 'bidirectional' });
  assert.deepEqual(addon.resolveHookSettings(REGISTRY, 'warden'), { pane_capture_lines: 200, context_pressure_threshold: 60, autocompact_pct: 75, hook_mode: 'async' });
  assert.deepEqual(addon.resolveHookSettings({ agents: [{ agent_id: 'f', tmux_session_name: 'f' }] }, 'f'), { pane_capture_lines: 120, context_pressure_threshold: 70, hook_mode: 'async' });
  assert.throws(() => addon.resolveHookSettings(REGISTRY, 'ghost'), (e) => e.code === 'E_AGENT_NOT_FOUND' && e.hint === 'registered agents: gideon, warden');
  assert.throws(() => addon.resolveHookSettings({ agents: [{ agent_id: 'a', tmux_session_name: 'a', hook_settings: { hook_mode: 'sync' } }] }, 'a'), (e) => e.code === 'E_INVALID_ARGUMENT' && e.message.includes('$.agents[0].hook_settings.hook_mode'));
});

test('validateHookRegistry lists problems with JSON paths', () => {
  assert.deepEqual(addon.validateHookRegistry(REGISTRY), []);
  assert.deepEqual(addon.validateHookRegistry({ agents: [{ agent_id: 'a', tmux_session_name: 'a', hook_settings: { pane_capture_lines: '120', nope: 1 } }] }), [
    { path: '$.agents[0].hook_settings.pane_capture_lines', message: 'must be a whole number from 1 to 2000' },
    { path: '$.agents[0].hook_settings.nope', message: 'unknown key (known: pane_capture_lines, context_pressure_threshold, autocompact_pct, hook_mode)' },
  ]);
  assert.deepEqual(addon.validateHookRegistry(null), [{ path: '$', message: 'the registry must be a JSON object' }]);
});

const PERMISSION_SCREEN = [
  '● Bash(mix ecto.migrate)',
  '',
  '╭──────────────────────────────────────────────╮',
  '│ Do you want to proceed?                      │',
  '│ ❯ 1. Yes                                     │',
  "│   2. Yes, and don't ask again for mix        │",
  '│   3. No, and tell Claude what to do (esc)    │',
  '╰──────────────────────────────────────────────╯',
].join('\n');

test('detectPaneState and buildWakeMessage on captured screens', async () => {
  assert.equal(addon.detectPaneState(PERMISSION_SCREEN), 'permission_prompt');
  assert.equal(addon.detectPaneState('✻ Pondering… (42s · ↑ 1.8k tokens · esc to interrupt)\n'), 'working');
  assert.equal(addon.detectPaneState('  ⎿  API Error: 529 Overloaded\n│ >   │\n'), 'error');
  assert.equal(addon.detectPaneState('❯ 1. fix the webhook retries\n  2. Refactor the cart\n↑/↓ to navigate · Enter to select'), 'menu');
  assert.equal(addon.detectPaneState('│ >   │\n  ? for shortcuts\n'), 'idle');

  const dir = tempDir('osi-wake-');
  const file = path.join(dir, 's.jsonl');
  fs.writeFileSync(file, JSON.stringify(assistantLine('s', 'msg_1', { input_tokens: 144000 })) + '\n');
  const contextPressure = await addon.contextPressure({ transcriptPath: file });
  const message = addon.buildWakeMessage({ agentId: 'gideon', tmuxSessionName: 'gideon-cc', trigger: 'response_complete', paneText: PERMISSION_SCREEN, paneCaptureLines: 2, contextPressure });
  assert.equal(message, [
    'agent: gideon', 'tmux: gideon-cc', 'trigger: response_complete', 'state: permission_prompt', '',
    '[PANE CONTENT]', '│   3. No, and tell Claude what to do (esc)    │', '╰──────────────────────────────────────────────╯', '',
    '[CONTEXT PRESSURE]', 'context: 72% [WARNING]', '',
    '[AVAILABLE ACTIONS]', '- allow once: send 1', '- allow for the session: send 2', '- deny: send Escape', '',
  ].join('\n'));
  assert.match(addon.buildWakeMessage({ agentId: 'f', tmuxSessionName: 'f', trigger: 'session_start', paneText: '', actions: ['/gsd:next'] }), /\[AVAILABLE ACTIONS\]\n- \/gsd:next\n$/);
  // A line count that is not a count is refused, not wrapped (2^32 + 2 would read as 2).
  for (const paneCaptureLines of [2 ** 32 + 2, -1, 1.5, Number.NaN]) {
    assert.throws(() => addon.buildWakeMessage({ agentId: 'g', tmuxSessionName: 'g', trigger: 'response_complete', paneText: PERMISSION_SCREEN, paneCaptureLines }), (e) => e.code === 'E_INVALID_ARGUMENT' && /paneCaptureLines/.test(e.message), String(paneCaptureLines));
  }
});

const hasTmux = spawnSync('tmux', ['-V']).status === 0;

test('detectPaneState on what tmux capture-pane really returns', { skip: !hasTmux && 'tmux is not installed' }, async () => {
  const dir = tempDir('osi-tmux-');
  const tmux = (...args) => execFileSync('tmux', ['-L', `osi-test-${process.pid}`, '-f', '/dev/null', ...args], { encoding: 'utf8', env: { ...process.env, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' } });
  try {
    // One session per screen, all kept until the server is killed at the
    // end: killing the last session makes the tmux server exit, and a
    // session made at that moment fails with "server exited unexpectedly".
    for (const [text, state] of [[PERMISSION_SCREEN, 'permission_prompt'], ['✻ Pondering… (42s · esc to interrupt)', 'working'], ['  ⎿  API Error: 529 Overloaded', 'error'], ['│ >   │', 'idle']]) {
      const file = path.join(dir, `${state}.txt`);
      fs.writeFileSync(file, `${text}\n`);
      tmux('new-session', '-d', '-s', state, '-x', '80', '-y', '24', `cat '${file}'; sleep 30`);
      let pane = '';
      for (let i = 0; i < 100 && !pane.includes(text.split('\n').at(-1).trim().slice(0, 10)); i++) {
        await new Promise((r) => setTimeout(r, 50));
        pane = tmux('capture-pane', '-p', '-t', state);
      }
      assert.equal(addon.detectPaneState(pane), state, pane);
    }
  } finally {
    spawnSync('tmux', ['-L', `osi-test-${process.pid}`, 'kill-server']);
  }
});
