// discoverSessions against the real Claude Code CLI (2.1.328), run offline
// against the fake Messages API (npm run test:claude): every scenario of
// claude-scenarios.mjs, then for every session: listed for its repository,
// token totals equal to what the API billed under its id, the CLI's own
// cost, the prompts as typed, every model (subagents' included), how it was
// started, and isRunning — true while its CLI process lives (from the CLI's
// liveness record), false after, also with stale records left behind.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { addon, tempDir } from './support/helpers.mjs';
import { startFakeAnthropic } from './support/fake-anthropic.mjs';
import { claudeScratch } from './support/claude-cli.mjs';
import { makeRepos, runScenarios } from './support/claude-scenarios.mjs';

const linux = process.platform === 'linux';
/** Typed prompts that are commands to the CLI, not messages to the model. */
const isCommand = (p) => p.startsWith('/');

let box;
let api;
let repos;
let manifest;
/** What was seen while the `watched` session's CLI ran. */
const watched = {};
const registryRoot = tempDir('osi-state-');

/** discoverSessions on the scratch config dir, no registry, no persistent cache. */
const discover = (repo, extra = {}) => addon.discoverSessions(repo, { claudeConfigDir: box.config, registryRoot, persistentCache: false, ...extra });

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks after boot. */
const procStart = (pid) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
};

before(async () => {
  box = claudeScratch('osi-cc-suite-');
  repos = makeRepos(path.join(box.root, 'work'));
  api = await startFakeAnthropic();
  manifest = await runScenarios(box, api, repos, {
    watch: async ({ sessionId, pid, repo }) => {
      watched.pid = pid;
      const record = path.join(box.config, 'sessions', `${pid}.json`);
      for (let i = 0; i < 200 && !fs.existsSync(record); i++) await new Promise((r) => setTimeout(r, 50));
      watched.record = fs.existsSync(record) ? fs.readFileSync(record, 'utf8') : null;
      let listed;
      for (let i = 0; i < 100 && !listed; i++) {
        listed = (await discover(repo)).find((s) => s.sessionId === sessionId);
        if (!listed) await new Promise((r) => setTimeout(r, 50));
      }
      watched.during = listed ?? null;
      // A warm repeat call while nothing changed says the same.
      watched.duringAgain = (await discover(repo)).find((s) => s.sessionId === sessionId) ?? null;
    },
  });
  watched.recordAfter = fs.existsSync(path.join(box.config, 'sessions', `${watched.pid}.json`));
}, { timeout: 600_000 });

after(() => api?.close());

/** The API's totals under `rec`'s session id. */
const billed = (rec) => api.usageBySession()[rec.sessionId];

/** The CLI's own cost of `rec`: its last run's figure, less what a fork inherited. */
const cliCost = (rec) => rec.runs.at(-1).totalCostUsd - (rec.costAtFork ?? 0);

/** `discoverSessions` of `rec`'s repository, and `rec`'s session in it. */
async function found(rec) {
  const sessions = await discover(manifest.repos[rec.repo]);
  return { sessions, s: sessions.find((s) => s.sessionId === rec.sessionId) };
}

const NAMES = ['main', 'fork', 'autocompact', 'subagents', 'named', 'subfolder', 'worktree', 'goneWorktree', 'models', 'longPath', 'watched'];

for (const name of NAMES) {
  test(`${name}: discovered as the CLI ran it`, async (t) => {
    const rec = manifest.sessions[name];
    assert.ok(rec, `scenario ${name} ran`);
    const { s } = await found(rec);

    await t.test('listed for its repository', () => {
      assert.ok(s, `${rec.sessionId} (started in ${rec.cwd}) is listed for ${manifest.repos[rec.repo]}`);
      assert.equal(s.cwd, rec.cwd);
    });
    if (!s) return;

    await t.test('token totals equal what the API billed under its id', () => {
      const b = billed(rec);
      assert.deepEqual(
        { input: s.totalInputTokens, output: s.totalOutputTokens, cacheRead: s.cacheReadTokens, cacheCreation: s.cacheCreationTokens },
        { input: b.inputTokens, output: b.outputTokens, cacheRead: b.cacheReadTokens, cacheCreation: b.cacheCreationTokens },
      );
    });

    await t.test("totalCostUsd is the CLI's own figure", () => {
      assert.equal(typeof s.totalCostUsd, 'number', 'totalCostUsd is reported');
      assert.ok(Math.abs(s.totalCostUsd - cliCost(rec)) < 1e-9, `${s.totalCostUsd} vs the CLI's ${cliCost(rec)}`);
    });

    await t.test('the prompts as typed', () => {
      const typed = [...(rec.inheritedPrompts ?? []), ...rec.prompts].filter((p) => !isCommand(p));
      assert.equal(s.firstMessage, typed[0]);
      assert.equal(s.lastUserMessage, typed.at(-1));
      assert.equal(s.title, name === 'named' ? 'Release checklist' : typed[0]);
    });

    await t.test('every model, subagents included', () => {
      assert.deepEqual([...s.models].sort(), billed(rec).models);
    });

    await t.test('how it was started, and by which CLI', () => {
      assert.equal(s.entrypoint, 'sdk-cli');
      assert.equal(s.version, '2.1.328');
    });

    await t.test("the model's context window as the CLI reports it", () => {
      const last = rec.runs.at(-1).modelUsage;
      const model = api.requests.filter((r) => r.sessionId === rec.sessionId && !r.claudeHeaders['x-claude-code-agent-id']).at(-1).model;
      assert.equal(s.contextWindow, last[model].contextWindow);
    });

    if (name !== 'fork') {
      await t.test('prompts and responses counted, not lines', () => {
        const own = api.requests.filter((r) => r.sessionId === rec.sessionId && r.completed && !r.claudeHeaders['x-claude-code-agent-id']);
        const compactions = own.filter((r) => r.lastUserText.includes('Respond with TEXT ONLY'));
        assert.equal(s.promptCount, rec.prompts.filter((p) => !isCommand(p)).length);
        assert.equal(s.responseCount, own.length - compactions.length);
        assert.ok(s.messageCount > s.promptCount + s.responseCount, 'messageCount stays the line count');
      });
    }

    await t.test('not running once its CLI has exited', () => {
      assert.equal(s.isRunning, false);
    });
  });
}

test('compactions: /compact and the automatic one are counted', async () => {
  const main = (await found(manifest.sessions.main)).s;
  const auto = (await found(manifest.sessions.autocompact)).s;
  assert.equal(main.compactionCount, 1);
  assert.equal(auto.compactionCount, 1);
  // Both compaction calls were billed; neither response is in a transcript.
  assert.ok(api.requests.some((r) => r.sessionId === manifest.sessions.autocompact.sessionId && r.lastUserText.includes('Respond with TEXT ONLY')));
});

test('a session watched while its CLI runs is running, then not', () => {
  assert.ok(watched.record, 'the CLI wrote its liveness record');
  const record = JSON.parse(watched.record);
  assert.equal(record.sessionId, manifest.sessions.watched.sessionId);
  assert.equal(record.pid, watched.pid);
  assert.ok(watched.during, 'listed while it ran');
  assert.equal(watched.during.isRunning, true, 'running while its process lived (no runningSessionIds given)');
  assert.equal(watched.duringAgain?.isRunning, true, 'and on a warm repeat call');
  assert.equal(watched.recordAfter, false, 'the CLI removed its record when it exited');
});

test('stale liveness records: a dead pid, a reused pid', { skip: linux ? false : 'start times in the CLI\'s form are read from /proc here' }, async (t) => {
  const rec = manifest.sessions.watched;
  const repo = manifest.repos[rec.repo];
  const real = JSON.parse(watched.record);
  const sessionsDir = path.join(box.config, 'sessions');
  fs.mkdirSync(sessionsDir, { recursive: true });
  const isRunning = async () => (await discover(repo)).find((s) => s.sessionId === rec.sessionId).isRunning;
  const place = (pid, start) => {
    const file = path.join(sessionsDir, `${pid}.json`);
    fs.writeFileSync(file, JSON.stringify({ ...real, pid, procStart: start }));
    return file;
  };
  // Settled first: later calls may take the kept result.
  for (let i = 0; i < 3; i++) assert.equal(await isRunning(), false);

  /** Runs `f` with the record `file` in place, and removes it after. */
  const withRecord = async (file, f) => {
    try {
      await f();
    } finally {
      fs.rmSync(file, { force: true });
    }
  };

  await t.test("the CLI's record of a process that is gone", async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    await withRecord(place(dead, real.procStart), async () => {
      assert.equal(await isRunning(), false);
    });
  });

  const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
  const exited = new Promise((r) => sleeper.once('exit', r));
  try {
    await t.test('a live process that started at another time (a reused pid)', async () => {
      assert.notEqual(procStart(sleeper.pid), real.procStart);
      await withRecord(place(sleeper.pid, real.procStart), async () => {
        assert.equal(await isRunning(), false);
      });
    });

    await t.test('the same live process with its own start time is running (the control)', async () => {
      await withRecord(place(sleeper.pid, procStart(sleeper.pid)), async () => {
        assert.equal(await isRunning(), true, 'a record appearing changes no project folder, yet is seen');
        sleeper.kill('SIGKILL');
        await exited;
        assert.equal(await isRunning(), false, 'and its process ending is seen');
      });
    });
  } finally {
    sleeper.kill('SIGKILL');
  }
});
