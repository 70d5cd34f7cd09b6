// Path attacks on every entry point that takes an agent id, a session id or
// a prefix, `occ` included: ids with `..`, `/`, `\`, NUL or an absolute path
// never reach the filesystem outside the state dir. A canary transcript and
// an agent folder sit beside the state dir; after every hostile call nothing
// outside the state dir has changed, whatever was written inside it lies in
// an agent folder with a plain name (agent ids are normalised as OpenClaw's
// normalizeAgentId does, or refused by the registry calls), the answer is a
// result or a coded error, and no answer carries the canary.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { addon, root as repoRoot, tempDir, openclawTranscript, FULL_STRESS } from './support/helpers.mjs';
import { files } from './support/writers.mjs';

const CANARY = 'OUTSIDE-CANARY';

function place() {
  const root = fs.realpathSync(tempDir('osi-paths-'));
  const state = path.join(root, 'state');
  const sessions = path.join(state, 'agents', 'main', 'sessions');
  fs.mkdirSync(sessions, { recursive: true });
  fs.writeFileSync(path.join(sessions, 'k1.jsonl'), openclawTranscript(3));
  // Outside the state dir: what a traversal would reach.
  const canary = openclawTranscript(3).replace(/task 0/g, CANARY);
  fs.writeFileSync(path.join(root, 'evil.jsonl'), canary);
  const evilAgent = path.join(root, 'agents', 'evil', 'sessions');
  fs.mkdirSync(evilAgent, { recursive: true });
  fs.writeFileSync(path.join(evilAgent, 'evil.jsonl'), canary);
  fs.writeFileSync(path.join(root, 'agents', 'evil', 'claude-code-sessions.json'), JSON.stringify({ sessions: { '/r': { sessionId: CANARY } } }));
  // An index entry whose sessionFile points outside the state dir: ignored.
  const index = { 'agent:main:evil': { sessionId: 'e0000000-0000-4000-8000-000000000001', updatedAt: 1, sessionFile: path.join(root, 'evil.jsonl') } };
  fs.writeFileSync(path.join(sessions, 'sessions.json'), JSON.stringify(index));
  return { root, state };
}

const snapshot = (dir) => new Map([...files(dir)].sort().map((f) => [f, fs.readFileSync(f).toString('base64')]));

/** Nothing outside `state` changed; anything new inside is in a plainly
 *  named agent folder or one of the state-wide stores (retired sessions). */
function assertContained(before, root, state, what) {
  const after = snapshot(root);
  const outside = (m) => [...m].filter(([f]) => !f.startsWith(state + path.sep));
  assert.deepEqual(outside(after), outside(before), `${what} changed something outside the state dir`);
  for (const f of after.keys()) {
    if (before.has(f) || !f.startsWith(state + path.sep)) continue;
    assert.match(path.relative(state, f).split(path.sep).join('/'), /^agents\/[a-z0-9_-]+\/|^claude-code-[a-z-]+\.json$/, `${what} wrote ${f}`);
  }
}

const agents = ['..', '../agents/evil', '../../evil', 'a/b', 'a\\b', '/etc', 'x\0y', '.', ''];
const ids = ['..', '../evil', '../../evil', '../../../evil', '/etc/passwd', 'a/b', '..\\evil', 'x\0y', '../main/sessions/k1', 'e0000000', 'agent:main:evil'];

/** Calls that take an agent id (`a`) or a session id / prefix (`id`). */
function calls(state) {
  const base = { stateDir: state };
  const pin = { conversationId: 'c', workDir: state, runtimeId: 'rt', historyEpoch: 0, stateDir: state };
  return {
    agent: {
      saveSession: (a) => addon.saveSession(a, '/r', 's'),
      updateSessionStats: (a) => addon.updateSessionStats(a, '/r', { turns: 1 }),
      deleteSession: (a) => addon.deleteSession(a, '/r'),
      listSessions: (a) => addon.listSessions(a),
      resolveSession: (a) => addon.resolveSession(a, '/r'),
      pinSession: (a) => addon.pinSession({ ...pin, agentId: a, sessionId: 's' }),
      clearPin: (a) => addon.clearPin({ conversationId: 'c', agentId: a, expectedSessionId: 's', stateDir: state }),
      bumpHistoryEpoch: (a) => addon.bumpHistoryEpoch('c', a, base),
      resolveResumeDecision: (a) => addon.resolveResumeDecision({ ...pin, agentId: a }),
      captureHandoff: (a) => addon.captureHandoff({ ...base, agentId: a, trigger: 'manual' }),
      checkForHandoff: (a) => addon.checkForHandoff({ ...base, agentId: a, force: true }),
      handoffStatus: (a) => addon.handoffStatus({ ...base, agentId: a }),
      clearHandoff: (a) => addon.clearHandoff({ ...base, agentId: a }),
      listTranscripts: (a) => addon.listTranscripts({ ...base, agentId: a }),
      executeEdit: (a) => addon.executeEdit({ ...base, agentId: a, toolRemoval: { preset: 'extreme' } }),
      exportTranscript: (a) => addon.exportTranscript(undefined, { ...base, agentId: a }),
    },
    id: {
      peekSessionHistory: (id) => addon.peekSessionHistory(state, id),
      retireSession: (id) => addon.retireSession(id, 'r', base),
      captureHandoff: (id) => addon.captureHandoff({ ...base, agentId: 'main', sessionId: id, trigger: 'manual' }),
      executeEdit: (id) => addon.executeEdit({ ...base, sessionId: id, toolRemoval: { preset: 'extreme' } }),
      executeClone: (id) => addon.executeClone({ ...base, sessionId: id }),
      restoreFromBackup: (id) => addon.restoreFromBackup(id, base),
      exportTranscript: (id) => addon.exportTranscript(id, base),
      transcriptInfo: (id) => addon.transcriptInfo(id, base),
      resolveTranscriptId: (id) => addon.resolveTranscriptId(id, base),
    },
  };
}

async function attempt(fn, value) {
  try {
    return { result: await fn(value) };
  } catch (e) {
    return { error: e };
  }
}

test('hostile agent ids, session ids and prefixes never reach the filesystem', async () => {
  let attacks = 0;
  for (const kind of ['agent', 'id']) {
    for (const value of kind === 'agent' ? agents : ids) {
      for (const name of Object.keys(calls('')[kind])) {
        const { root, state } = place();
        const before = snapshot(root);
        const { result, error } = await attempt(calls(state)[kind][name], value);
        const what = `${name}(${kind} ${JSON.stringify(value)})`;
        if (error) assert.match(String(error.code), /^E_[A-Z_]+$|^InvalidArg$/, `${what}: uncoded ${error.message}`);
        assert.ok(!JSON.stringify(result ?? null).includes(CANARY), `${what} read the canary`);
        assertContained(before, root, state, what);
        attacks++;
      }
    }
  }
  console.log(`# ${attacks} hostile calls`);
});

test('occ: hostile ids and agents are refused before any file is touched', () => {
  const { root, state } = place();
  const before = snapshot(root);
  const occ = (args) => spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'occ.mjs'), ...args, '--state-dir', state], { encoding: 'utf8' });
  let runs = 0;
  // Every command with every value under OSI_STRESS=full; otherwise each
  // value with some of the commands and each command with some of the
  // values, in turn (the calls above take every value on every entry point).
  const sampled = (i, j, every) => FULL_STRESS || (i + j) % every === 0;
  for (const [i, id] of ids.filter((v) => !v.includes('\0')).entries()) {
    for (const [j, cmd] of [['info', id], ['export', id], ['edit', id, '--strip-tools'], ['clone', id], ['restore', id], ['handoff', 'capture', id]].entries()) {
      if (!sampled(i, j, 3)) continue;
      const r = occ(cmd);
      assert.notEqual(r.status, 0, `occ ${cmd.join(' ')} succeeded`);
      assert.ok(r.status >= 2 && r.status <= 6, `occ ${cmd.join(' ')}: exit ${r.status} ${r.stderr}`);
      assert.ok(!r.stdout.includes(CANARY), `occ ${cmd.join(' ')} printed the canary`);
      runs++;
    }
  }
  for (const [i, agent] of agents.filter((v) => v && !v.includes('\0')).entries()) {
    for (const [j, cmd] of [['list'], ['info', 'k1'], ['handoff', 'status'], ['handoff', 'clear']].entries()) {
      if (!sampled(i, j, 2)) continue;
      const r = occ([...cmd, '--agent', agent]);
      assert.ok(!r.stdout.includes(CANARY), `occ ${cmd.join(' ')} --agent ${agent} printed the canary`);
      assert.notEqual(r.status, 1, `occ ${cmd.join(' ')} --agent ${agent}: internal error ${r.stderr}`);
      runs++;
    }
  }
  assertContained(before, root, state, 'occ');
  console.log(`# ${runs} occ runs`);
});
