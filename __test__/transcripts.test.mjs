// listTranscripts / resolveTranscriptId / transcriptInfo on the real
// OpenClaw fixtures, with OpenClaw's state-dir resolution from the environment.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addon, fixtures, tempDir } from './support/helpers.mjs';

function stateDir() {
  const state = tempDir('osi-oc-');
  const sessions = path.join(state, 'agents', 'main', 'sessions');
  fs.cpSync(path.join(fixtures, 'openclaw', 'moltbot-2026-01-31'), sessions, { recursive: true });
  for (const f of fs.readdirSync(sessions)) fs.chmodSync(path.join(sessions, f), 0o644);
  const older = new Date(Date.now() - 60_000);
  fs.utimesSync(path.join(sessions, '1b975ccf-9dbe-4f4e-9d2b-8abe12178979.jsonl'), older, older);
  return state;
}

test('list, resolve and inspect through the state dir OpenClaw would use', async () => {
  const state = stateDir();
  const saved = process.env.OPENCLAW_STATE_DIR;
  process.env.OPENCLAW_STATE_DIR = state;
  try {
    const list = await addon.listTranscripts();
    assert.deepEqual(list.map((t) => t.sessionId), ['f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1', '1b975ccf-9dbe-4f4e-9d2b-8abe12178979']);
    assert.ok(list[0].modified instanceof Date);
    assert.deepEqual(list[0].sessionKeys, ['agent:main:openresponses-user:9e983849']);
    assert.equal((await addon.listTranscripts({ limit: 1 })).length, 1);
    assert.equal(await addon.resolveTranscriptId(), 'f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1');
    assert.equal(await addon.resolveTranscriptId('1b9'), '1b975ccf-9dbe-4f4e-9d2b-8abe12178979');
    const info = await addon.transcriptInfo('f8c');
    assert.equal(info.sessionId, 'f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1');
    assert.deepEqual([info.formatVersion, info.messageCount, info.toolCallCount, info.toolResultCount, info.compactionCount], [3, 27, 11, 11, 2]);
    assert.deepEqual({ ...info.messagesByRole }, { assistant: 13, toolResult: 11, user: 3 });
    assert.equal(info.sizeBytes, 36911);
  } finally {
    if (saved === undefined) delete process.env.OPENCLAW_STATE_DIR;
    else process.env.OPENCLAW_STATE_DIR = saved;
  }
});

test('coded errors with hints', async () => {
  const state = stateDir();
  await assert.rejects(addon.resolveTranscriptId('zzz', { stateDir: state }), (e) => e.code === 'E_SESSION_NOT_FOUND' && /occ list/.test(e.hint));
  await assert.rejects(addon.listTranscripts({ stateDir: state, agentId: 'ops' }), (e) => e.code === 'E_AGENT_NOT_FOUND' && e.hint === 'available agents: main');
  fs.writeFileSync(path.join(state, 'agents', 'main', 'sessions', 'f8c00000-0000-4000-8000-000000000000.jsonl'), '');
  await assert.rejects(addon.transcriptInfo('f8c', { stateDir: state }), (e) => e.code === 'E_AMBIGUOUS_SESSION');
  fs.mkdirSync(path.join(state, 'agents', 'main', 'agent'), { recursive: true });
  fs.writeFileSync(path.join(state, 'agents', 'main', 'agent', 'openclaw-agent.sqlite'), '');
  await assert.rejects(addon.listTranscripts({ stateDir: state }), (e) => e.code === 'E_UNSUPPORTED_STORE');
});
