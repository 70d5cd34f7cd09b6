// Every writer of the addon, for the fault tests (kills.test.mjs,
// write-failures.test.mjs): how to set up the files it writes, one round of
// it (rounds alternate between two versions where a writer has them), and
// what must hold of its files after a fault, beyond every file being whole.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addon, fixtures, tempDir, openclawTranscript, userLine, jsonl, writeSession, writeSqliteStore } from './helpers.mjs';

const SID = '7d1f3c2a-aaaa-4bbb-8ccc-ddddeeeeffff';
const F8 = 'f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1';
const SYNTH = '6513270e-269e-4d37-b2a7-4de452e6b438';

/** The writes of round `i` of `writer` on the setup `s` (what kills.test.mjs
 *  made): one function per call of the addon, in the order they run. */
export function opsOf(writer, s, i) {
  const pin = { agentId: 'main', workDir: s.work, runtimeId: 'rt', historyEpoch: 0, stateDir: s.state, claudeConfigDir: s.claude };
  const rounds = {
    registry: (i) => [
      () => addon.updateSessionStats('main', s.repo, { turns: 1, costUsd: 0.25 }),
      () => addon.saveSession('main', s.repo, s.sessionId, { task: `task ${i}` }),
      i % 5 === 4
        ? () => addon.deleteSession('main', s.repo, 'lane')
        : () => addon.saveSession('main', s.repo, s.sessionId, { task: `lane ${i}`, label: 'lane' }),
    ],
    pins: (i) => [
      () => addon.pinSession({ ...pin, conversationId: `c${i % 7}`, sessionId: s.sessionId }),
      () => addon.bumpHistoryEpoch(`c${(i + 3) % 7}`, 'main', { stateDir: s.state }),
      () => addon.clearPin({ conversationId: `c${(i + 5) % 7}`, agentId: 'main', expectedSessionId: s.sessionId, stateDir: s.state }),
    ],
    retire: (i) => [
      () => addon.retireSession(s.sessionId, `round ${i}`, { stateDir: s.state }),
      () => addon.pinSession({ ...pin, conversationId: `r${i % 5}`, sessionId: s.sessionId }),
    ],
    // The clock is the round's (an hour a round, so that snapshots expire
    // after a day), and a replay of the round writes the same files.
    handoff: (i) => [
      () => addon.captureHandoff({ agentId: 'main', stateDir: s.state, trigger: 'manual', project: 'kills', now: new Date(Date.UTC(2026, 2, 1, 10) + i * 3600_000) }),
      ...(i % 2 ? [() => addon.clearHandoff({ agentId: 'main', stateDir: s.state })] : []),
    ],
    edit: (i) => [
      i % 2 === 0
        ? () => addon.executeEdit({ stateDir: s.state, sessionId: s.transcript, toolRemoval: { preset: 'extreme' }, backupsToKeep: 3 })
        : () => addon.restoreFromBackup(s.transcript, { stateDir: s.state }),
    ],
    clone: () => [() => addon.executeClone({ stateDir: s.state, sessionId: s.transcript, toolRemoval: { preset: 'extreme' } })],
  };
  if (!rounds[writer]) throw new Error(`unknown writer ${writer}`);
  return rounds[writer](i);
}

/** Round `i` of `writer` on the setup `s`. */
export async function roundOf(writer, s, i) {
  for (const op of opsOf(writer, s, i)) await op();
}

/** Every call of `writer` from round `first` on, in the order a child makes them. */
export function* callsOf(writer, s, first) {
  for (let i = first; ; i++) yield* opsOf(writer, s, i);
}

export function* files(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else yield p;
  }
}

/** Every JSON file parses and every JSONL file parses line by line. */
export function assertWhole(state, when) {
  for (const f of files(state)) {
    const name = path.basename(f);
    if (name.includes('.tmp-') || name.endsWith('.lock')) continue;
    const text = fs.readFileSync(f, 'utf8');
    if (name.endsWith('.json')) assert.doesNotThrow(() => JSON.parse(text), `${when}: ${f} is not whole JSON`);
    if (name.endsWith('.jsonl') || name.includes('.jsonl.bak.')) {
      for (const line of text.split('\n').filter((l) => l.trim())) assert.doesNotThrow(() => JSON.parse(line), `${when}: a line of ${f} is cut`);
    }
  }
}

export const leftovers = (state) => [...files(state)].filter((f) => /\.tmp-|\.lock$/.test(path.basename(f)));

/** The files every writer starts from, in `dir` (a fresh temp dir by default). */
export function base(dir = fs.realpathSync(tempDir('osi-writer-'))) {
  const s = { state: path.join(dir, 'state'), claude: path.join(dir, 'claude'), work: path.join(dir, 'repo'), repo: '/srv/kills', sessionId: SID };
  fs.mkdirSync(s.work, { recursive: true });
  fs.mkdirSync(path.join(s.state, 'agents', 'main', 'sessions'), { recursive: true });
  writeSession(s.claude, s.work, SID, jsonl([userLine(SID, 'first turn', { cwd: s.work })]));
  return s;
}

/** For a writer of small files: its files exist before the fault, so that
 *  every round rewrites them. */
const rewrites = (writer) => ({ setup: base, small: true, replayed: true, versions: async (s) => (await roundOf(writer, s, 0), []) });

/** Each writer: its setup, its versions (the rounds it goes through before
 *  the fault), and what must hold after a kill beyond wholeness: `check`, or
 *  (`replayed`) that every file is what the calls the child finished, or
 *  those and the one it was in, write when replayed on a copy. `small`: it
 *  writes less than a page at a time. */
export const writers = {
  registry: rewrites('registry'),
  pins: rewrites('pins'),
  retire: rewrites('retire'),
  handoff: {
    replayed: true,
    setup(dir) {
      const s = base(dir);
      fs.writeFileSync(path.join(s.state, 'agents', 'main', 'sessions', 'sess-1.jsonl'), openclawTranscript(20, { resultBytes: 300 }));
      return s;
    },
  },
  'edit (JSONL)': {
    writer: 'edit',
    setup(dir) {
      const s = base(dir);
      s.transcript = 'k1';
      s.file = path.join(s.state, 'agents', 'main', 'sessions', 'k1.jsonl');
      fs.writeFileSync(s.file, openclawTranscript(300, { resultBytes: 4000 }));
      return s;
    },
    async versions(s) {
      const original = fs.readFileSync(s.file);
      await roundOf('edit', s, 0);
      const edited = fs.readFileSync(s.file);
      await roundOf('edit', s, 1);
      assert.ok(fs.readFileSync(s.file).equals(original), 'a restore brings the original back');
      return [original, edited];
    },
    check(s, [original, edited]) {
      const sessions = path.dirname(s.file);
      for (const f of [s.file, ...fs.readdirSync(sessions).filter((n) => n.startsWith('k1.jsonl.bak.')).map((n) => path.join(sessions, n))]) {
        const now = fs.readFileSync(f);
        assert.ok(now.equals(original) || now.equals(edited), `${path.basename(f)} is neither the old nor the new transcript`);
      }
    },
  },
  'edit (SQLite)': {
    writer: 'edit',
    // Each kill costs a store export and a check of every version: this
    // writer takes 40 % of the kill count (CONTRIBUTING.md, stress counts).
    killShare: 0.4,
    setup(dir) {
      const s = base(dir);
      s.transcript = SYNTH;
      writeSqliteStore(s.state, 23);
      return s;
    },
    async versions(s) {
      const text = async () => (await addon.exportTranscript(SYNTH, { stateDir: s.state })).jsonl;
      const original = await text();
      await roundOf('edit', s, 0);
      const edited = await text();
      assert.ok(edited !== original, 'the edit changes the transcript');
      await roundOf('edit', s, 1);
      assert.ok((await text()) === original, 'a restore brings the original back');
      return [original, edited];
    },
    async check(s, [original, edited]) {
      const now = (await addon.exportTranscript(SYNTH, { stateDir: s.state })).jsonl;
      assert.ok(now === original || now === edited, 'the SQLite transcript is neither the old nor the new one');
    },
  },
  'clone + sessions.json': {
    writer: 'clone',
    setup(dir) {
      const s = base(dir);
      const sessions = path.join(s.state, 'agents', 'main', 'sessions');
      const moltbot = path.join(fixtures, 'openclaw', 'moltbot-2026-01-31');
      fs.copyFileSync(path.join(moltbot, 'sessions.json'), path.join(sessions, 'sessions.json'));
      fs.copyFileSync(path.join(moltbot, `${F8}.jsonl`), path.join(sessions, `${F8}.jsonl`));
      s.transcript = F8;
      return s;
    },
    async versions(s) {
      return [fs.readFileSync(path.join(s.state, 'agents', 'main', 'sessions', `${F8}.jsonl`))];
    },
    check(s, [source]) {
      const dir = path.join(s.state, 'agents', 'main', 'sessions');
      assert.ok(fs.readFileSync(path.join(dir, `${F8}.jsonl`)).equals(source), 'the source transcript is untouched');
      const index = JSON.parse(fs.readFileSync(path.join(dir, 'sessions.json'), 'utf8'));
      // Entries the addon registered (the fixture's own name another machine's paths).
      for (const entry of Object.values(index)) {
        if (entry.sessionFile?.startsWith(dir)) assert.ok(fs.existsSync(entry.sessionFile), `sessions.json names ${entry.sessionFile}, which is missing`);
      }
    },
  },
};

