#!/usr/bin/env node
// Records fixtures/claude-code-2.1: runs the scenarios of
// claude-scenarios.mjs once with the real Claude Code CLI, offline against
// the fake Messages API, in a fixed scratch folder (so the paths inside the
// transcripts are the same on every recording), and copies what the CLI
// wrote (its projects folder, the liveness record it wrote while the slow
// session ran) plus a manifest: every session's id, repository, folder,
// prompts as typed, the CLI's own cost per run, and what the API billed
// under its id.
//
//   node __test__/support/claude-record-fixtures.mjs

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeAnthropic } from './fake-anthropic.mjs';
import { CLAUDE_CODE } from './claude-cli.mjs';
import { makeRepos, runScenarios, RUN_FLAGS } from './claude-scenarios.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = path.join(repoRoot, 'fixtures', 'claude-code-2.1');
/** The fixed scratch root the recording runs in. */
const ROOT = '/tmp/osi-claude-code-2.1';

fs.rmSync(ROOT, { recursive: true, force: true });
const box = { root: ROOT, home: path.join(ROOT, 'home'), config: path.join(ROOT, 'config'), tmp: path.join(ROOT, 'tmp') };
for (const d of [box.home, box.config, box.tmp]) fs.mkdirSync(d, { recursive: true });
const repos = makeRepos(path.join(ROOT, 'work'));
const api = await startFakeAnthropic();
let liveness = null;
const manifest = await runScenarios(box, api, repos, {
  watch: async ({ pid }) => {
    const file = path.join(box.config, 'sessions', `${pid}.json`);
    for (let i = 0; i < 100 && !fs.existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
    liveness = { name: `${pid}.json`, text: fs.readFileSync(file, 'utf8'), stat: fs.readFileSync(`/proc/${pid}/stat`, 'utf8') };
  },
});
await api.close();

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
fs.cpSync(path.join(box.config, 'projects'), path.join(out, 'projects'), { recursive: true });
for (const d of fs.readdirSync(path.join(out, 'projects'))) fs.rmSync(path.join(out, 'projects', d, 'memory'), { recursive: true, force: true });
fs.mkdirSync(path.join(out, 'sessions'));
fs.writeFileSync(path.join(out, 'sessions', liveness.name), liveness.text);
const usage = api.usageBySession();
const requests = api.requests.map((r) => ({
  n: r.n, time: r.time, sessionId: r.sessionId, agentId: r.claudeHeaders['x-claude-code-agent-id'] ?? null,
  model: r.model, prompt: r.lastUserText.slice(0, 80), stopReason: r.answer?.stopReason ?? null, usage: r.usage, completed: r.completed,
}));
for (const rec of Object.values(manifest.sessions)) rec.api = usage[rec.sessionId];
fs.writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify({
  claudeCode: CLAUDE_CODE, runFlags: RUN_FLAGS, root: ROOT, configDir: box.config,
  repos: manifest.repos, sessions: manifest.sessions,
  liveness: { file: `sessions/${liveness.name}`, procStat: liveness.stat.trim() },
}, null, 2)}\n`);
fs.writeFileSync(path.join(out, 'api-requests.jsonl'), requests.map((r) => JSON.stringify(r)).join('\n') + '\n');
console.log(`recorded ${Object.keys(manifest.sessions).length} sessions, ${requests.length} API requests into ${path.relative(repoRoot, out)}`);
