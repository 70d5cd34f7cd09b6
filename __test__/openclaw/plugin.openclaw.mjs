// The package as an OpenClaw plugin, in the real OpenClaw 2026.9.6: packed
// with `npm pack`, its platform package served by a throwaway registry,
// installed with `openclaw plugins install npm-pack:`, inspected, and then
// used in a running gateway (no model provider needed): the tools through
// tools.invoke, /clean and /handoff through chat.send, the handoff hooks
// through sessions.reset and /context, a live reload, and `openclaw occ`.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { addon, root, tempDir, writeSession, userLine, assistantLine, jsonl, writeSqliteStore } from '../support/helpers.mjs';
import { processAlive } from './support/process.mjs';
import { freePort, run } from '../install/support/registry.mjs';
import { gatewayCall, node24, openclaw, openclawCli, openclawEnv } from './support/env.mjs';
import { PLUGIN_ID as ID, packedPlugin, pkg, platformName } from './support/pack.mjs';

const VERSION = '2026.9.6';
const SYNTH = '6513270e-269e-4d37-b2a7-4de452e6b438';

let gateway;
after(() => gateway?.kill('SIGKILL'));

/** The JSON object an openclaw command printed (after any banner lines). */
const json = (text) => JSON.parse(text.slice(text.indexOf('{')));

test('openclaw plugins install gives agents the tools, hooks and commands; they work in a live gateway', { timeout: 900_000 }, async () => {
  openclaw(VERSION);
  // The registry holds the host's platform package; the main package is packed.
  const { url, npm, packDir, packed, tgz } = await packedPlugin();

  const scratch = tempDir('osi-plug-');
  const state = path.join(scratch, 'state');
  const home = path.join(scratch, 'home');
  fs.mkdirSync(home, { recursive: true });
  const port = await freePort();
  const env = openclawEnv(state, home, { npm_config_registry: url, OPENCLAW_GATEWAY_TOKEN: 'plugin-test-token' });
  const cli = (args, opts = {}) => openclawCli(VERSION, args, { env, timeout: 300_000, ...opts });

  // 1. Install, inspect, doctor.
  const installed = cli(['plugins', 'install', `npm-pack:${tgz}`, '--force', '--accept-capabilities']);
  assert.match(installed.stdout + installed.stderr, new RegExp(`Installed plugin: ${ID}`));
  const inspect = json(cli(['plugins', 'inspect', ID, '--runtime', '--json'], { rerunIfHung: true }).stdout);
  assert.deepEqual(inspect.tools.flatMap((t) => t.names).sort(), ['claude_code_sessions', 'claude_code_spawns', 'handoff_status', 'project_status', 'select_session']);
  assert.deepEqual(Object.fromEntries(inspect.customHooks.map((h) => [h.name, h.events])), {
    [`${ID}-handoff-capture`]: ['command:new', 'command:reset'],
    [`${ID}-handoff-offer`]: ['agent:bootstrap'],
  });
  assert.deepEqual(inspect.commands.sort(), ['clean', 'handoff', 'slim', 'worktrees']);
  assert.deepEqual(inspect.cliCommands, ['occ']);
  assert.deepEqual(inspect.diagnostics, []);
  assert.match(cli(['plugins', 'doctor'], { rerunIfHung: true }).stdout, /checks passed/);
  // The config schema is strict.
  const bogus = cli(['config', 'set', `plugins.entries.${ID}.config.bogus`, '1'], { allowFailure: true });
  assert.notEqual(bogus.status, 0);
  assert.match(bogus.stdout + bogus.stderr, /bogus/);
  const badPreset = cli(['config', 'set', `plugins.entries.${ID}.config.defaultPreset`, 'gentle'], { allowFailure: true });
  assert.notEqual(badPreset.status, 0, 'an unknown preset is refused');
  cli(['config', 'set', `plugins.entries.${ID}.config.handoffExpiryHours`, '48']);

  // 2. The occ commands under `openclaw occ`, with occ's exit codes.
  const none = cli(['occ', 'list'], { allowFailure: true });
  assert.equal(none.status, 3, none.stderr);
  // An agent store as OpenClaw 2026.9.6 wrote it, taken in by its doctor.
  writeSqliteStore(state, 23);
  cli(['doctor', '--fix', '--non-interactive', '--yes']);
  assert.match(cli(['occ', 'list']).stdout, /^6513270e\s.*synthetic-tools/m);

  // A repository with a Claude Code session, for the tools.
  const repo = path.join(scratch, 'repo');
  fs.mkdirSync(repo);
  // Dates far enough back that "… ago" reads the same in the gateway and here.
  const when = '2026-01-05T10:00:00Z';
  const git = (...args) => execFileSync('git', ['-c', 'init.defaultBranch=main', '-c', 'user.name=t', '-c', 'user.email=t@t', ...args],
    { cwd: repo, stdio: 'pipe', env: { ...process.env, GIT_AUTHOR_DATE: when, GIT_COMMITTER_DATE: when } });
  git('init', '-q');
  fs.writeFileSync(path.join(repo, 'README.md'), '# demo\n');
  git('add', '.');
  git('commit', '-qm', 'First commit');
  const cc = '11111111-2222-4333-8444-555555555555';
  const ccFile = writeSession(path.join(home, '.claude'), repo, cc, jsonl([
    userLine(cc, 'Add a webhook handler', { cwd: repo }),
    assistantLine(cc, 'msg_1', { input_tokens: 10, output_tokens: 20 }, { cwd: repo }),
  ]));
  const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000);
  fs.utimesSync(ccFile, threeDaysAgo, threeDaysAgo);

  // 3. The gateway.
  gateway = spawn(node24(), [path.join(openclaw(VERSION), 'openclaw.mjs'), 'gateway', 'run', '--allow-unconfigured', '--auth', 'token', '--port', String(port), '--bind', 'loopback'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  gateway.stdout.on('data', (d) => (log += d));
  gateway.stderr.on('data', (d) => (log += d));
  for (let i = 0; i < 1200 && !/\] ready/.test(log); i++) {
    assert.equal(gateway.exitCode, null, `the gateway exited:\n${log}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
  assert.match(log, /\] ready/, log);
  assert.match(log, new RegExp(`plugins: [^)]*${ID}`), 'the gateway loaded the plugin');
  const call = (method, params) => gatewayCall(VERSION, port, method, params, { env });
  let n = 0;
  const invoke = (name, args) => call('tools.invoke', { name, args, idempotencyKey: `t${++n}` });
  const chat = async (message) => {
    call('chat.send', { sessionKey: 'synthetic-tools', message, idempotencyKey: `c${++n}` });
    for (let i = 0; i < 100; i++) {
      const { messages } = call('chat.history', { sessionKey: 'synthetic-tools', limit: 4 });
      const at = messages.findLastIndex((m) => m.role === 'user' && (typeof m.content === 'string' ? m.content : m.content?.[0]?.text) === message);
      const reply = at >= 0 && messages.slice(at + 1).find((m) => m.role === 'assistant');
      if (reply) return reply.content.map((b) => b.text ?? '').join('');
      await new Promise((ok) => setTimeout(ok, 300));
    }
    throw new Error(`no reply to ${message}`);
  };
  const toolCalls = () => call('chat.history', { sessionKey: 'synthetic-tools', limit: 1000 }).messages
    .flatMap((m) => (m.role === 'assistant' && Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'toolCall').length;

  // Tools: results an agent can read, coded errors returned (not thrown).
  // What the addon answers called directly, with the gateway's settings.
  const direct = { claudeConfigDir: path.join(home, '.claude'), registryRoot: state };
  // With no paired node: the addon's payload, `hosts` naming the gateway alone (docs/plugin.md#paired-nodes).
  const gatewayOnly = ({ hosts, remote, ...payload }) => {
    assert.deepEqual(hosts.map((h) => [h.hostId, h.status]), [['gateway', 'ok']], JSON.stringify(hosts));
    if (remote) assert.deepEqual(remote, []);
    return { ...payload, ...(payload.sessions ? { sessions: payload.sessions.map(({ host, projectPath, ...s }) => (assert.equal(host.id, 'gateway'), assert.equal(projectPath, repo), s)) } : {}) };
  };
  const status = invoke('project_status', { repoPath: repo });
  assert.equal(status.ok, true);
  assert.deepEqual(gatewayOnly(status.output.details), addon.projectStatusToolPayload(await addon.gatherProjectStatus(repo, 'main', direct)));
  assert.equal(status.output.details.branch, 'main');
  assert.match(status.output.details.headCommit, /First commit/);
  assert.deepEqual(JSON.parse(status.output.content[0].text), status.output.details);
  assert.deepEqual(gatewayOnly(invoke('project_status', { repoPath: path.relative(path.join(state, 'workspace'), repo) }).output.details), gatewayOnly(status.output.details), 'relative to the workspace');
  const missing = invoke('project_status', { repoPath: path.join(scratch, 'nowhere') });
  assert.equal(missing.output.details.error.code, 'E_REPO_NOT_FOUND');
  assert.match(missing.output.content[0].text, /^Error E_REPO_NOT_FOUND: .*\nHint: /);
  assert.equal(invoke('project_status', {}).output.details.error.code, 'E_INVALID_ARGUMENT');
  const sessions = invoke('claude_code_sessions', { repoPath: repo }).output.details;
  assert.deepEqual(gatewayOnly(sessions), addon.sessionListToolPayload(await addon.discoverSessions(repo, direct), { includeNative: true }));
  assert.equal(sessions.total, 1);
  assert.equal(sessions.sessions[0].sessionId, cc);
  const selection = invoke('select_session', { repoPath: repo, task: 'Add a webhook handler for payments' }).output.details;
  const task = 'Add a webhook handler for payments';
  assert.deepEqual(selection, await addon.selectSession(task, repo, 'main', await addon.gatherProjectStatus(repo, 'main', direct)));
  assert.ok(['resume', 'fresh', 'queue'].includes(selection.action), JSON.stringify(selection));
  assert.equal(typeof selection.reason, 'string');
  assert.equal(invoke('handoff_status', {}).output.details.state, null);

  // /clean: a dry run reports, the real one strips the session it runs in
  // (SQLite, through a child occ) and OpenClaw goes on writing to it.
  const before = toolCalls();
  assert.equal(before, 99);
  assert.match(await chat('/clean --dry-run'), /^Dry run, nothing changed: 33 tool call\(s\) removed/);
  assert.equal(toolCalls(), 99);
  assert.match(await chat('/clean'), /^Cleaned \(default\): 33 tool call\(s\) removed.*Undo: openclaw occ restore 6513270e/);
  assert.equal(toolCalls(), 66);
  assert.match(await chat('/clean extreme --dry-run'), /^Dry run, nothing changed: 66 tool call\(s\) removed/);
  assert.match(await chat('/clean gentle'), /^Usage: \/clean/);

  // Handoff: sessions.reset fires command:reset; the capture hook records
  // the session the reset hides; /handoff and the tool see it; the next
  // bootstrap (/context) is offered HANDOFF.md.
  call('sessions.reset', { key: 'synthetic-tools', reason: 'reset' });
  const handoff = invoke('handoff_status', {}).output.details;
  assert.equal(handoff.state?.previousSessionId, SYNTH, JSON.stringify(handoff));
  const stateFile = JSON.parse(fs.readFileSync(path.join(handoff.dir, 'session-state.json'), 'utf8'));
  assert.equal(stateFile.previousSessionId, SYNTH, 'the handoff state file names the session');
  const { expiresInMs: _a, ...viaTool } = handoff;
  const { expiresInMs: _b, ...viaAddon } = await addon.handoffStatus({ agentId: 'main', stateDir: state, expiryHours: 48 });
  assert.deepEqual(viaTool, viaAddon);
  assert.equal(handoff.offerable, true);
  assert.match(handoff.state.trigger, /reset/);
  assert.equal(handoff.state.transcriptStore, 'sqlite');
  assert.ok(handoff.state.lastMessageIndex > 0, 'the messages before the reset were read');
  assert.match(handoff.state.summary.lastTopic, /\S/);
  assert.match(await chat('/handoff status'), /^Handoff from 6513270e.*will be offered/);
  const context = await chat('/context detail');
  assert.match(context, /HANDOFF\.md/, context);
  assert.doesNotMatch(await chat('/context detail'), /HANDOFF\.md/, 'offered once, not twice');
  const offered = invoke('handoff_status', {}).output.details;
  assert.equal(offered.offerable, false, 'offered once: not again at the next bootstrap');
  assert.ok(offered.state.resumeOfferedAt);
  assert.match(await chat('/handoff clear'), /^Handoff cleared\./);

  // A live reload loads a second copy of the addon into the gateway; both
  // coexist and the tools keep working.
  cli(['plugins', 'reload', ID]);
  const copies = fs.readFileSync(`/proc/${gateway.pid}/maps`, 'utf8').split('\n').filter((l) => l.includes(`${pkg.napi.binaryName}.${platformName}.node`));
  assert.ok(new Set(copies.map((l) => l.split(/\s+/).slice(5).join(' '))).size >= 1);
  assert.equal(invoke('project_status', { repoPath: repo }).output.details.branch, 'main');
  // A second install of a newer pack swaps it in live.
  const newer = path.join(tempDir('osi-plug-newer-'), 'package');
  fs.mkdirSync(newer);
  for (const f of packed.files.map((x) => x.path)) {
    fs.mkdirSync(path.dirname(path.join(newer, f)), { recursive: true });
    fs.copyFileSync(path.join(root, f), path.join(newer, f));
  }
  const bump = (f) => fs.writeFileSync(path.join(newer, f), JSON.stringify({ ...JSON.parse(fs.readFileSync(path.join(newer, f), 'utf8')), version: '0.1.1-test' }, null, 2));
  bump('package.json');
  bump('openclaw.plugin.json');
  const newerTgz = path.join(packDir, JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', packDir], { cwd: newer }).stdout)[0].filename);
  const swapped = cli(['plugins', 'install', `npm-pack:${newerTgz}`, '--force', '--accept-capabilities']);
  assert.match(swapped.stdout + swapped.stderr, /Applied in Gateway generation \d+/);
  assert.equal(json(cli(['plugins', 'inspect', ID, '--runtime', '--json'], { rerunIfHung: true }).stdout).plugin.version, '0.1.1-test');
  assert.equal(invoke('claude_code_sessions', { repoPath: repo }).output.details.total, 1);
  assert.equal(call('health', {}).ok, true);
  assert.doesNotMatch(log, /Error: .*session-intel|TypeError|panicked/);

  // Stopped, the gateway and every process it started are gone.
  const brokers = [...log.matchAll(/spawn broker ready pid=(\d+)/g)].map((m) => Number(m[1]));
  const exited = new Promise((ok) => gateway.on('exit', ok));
  gateway.kill('SIGTERM');
  await Promise.race([exited, new Promise((_, no) => setTimeout(() => no(new Error(`the gateway did not stop in 60 s:\n${log.slice(-2000)}`)), 60_000))]);
  for (let i = 0; i < 50 && [gateway.pid, ...brokers].some(processAlive); i++) await new Promise((ok) => setTimeout(ok, 100));
  assert.deepEqual([gateway.pid, ...brokers].filter(processAlive), [], 'nothing left running');
  gateway = undefined;
});

test('the plugin type-checks against the OpenClaw plugin SDK it was built for (strict, checkJs)', () => {
  const dir = tempDir('osi-plug-tsc-');
  fs.cpSync(path.join(root, 'plugin'), path.join(dir, 'plugin'), { recursive: true });
  for (const f of ['index.js', 'index.d.ts']) fs.copyFileSync(path.join(root, f), path.join(dir, f));
  const modules = path.dirname(openclaw(VERSION));
  fs.mkdirSync(path.join(dir, 'node_modules', '@types'), { recursive: true });
  fs.symlinkSync(path.join(modules, 'openclaw'), path.join(dir, 'node_modules', 'openclaw'));
  fs.symlinkSync(path.join(modules, '@types', 'node'), path.join(dir, 'node_modules', '@types', 'node'));
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { allowJs: true, checkJs: true, noEmit: true, strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', skipLibCheck: true, types: ['node'] },
    include: ['plugin/**/*.mjs'],
  }));
  const r = run(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { allowFailure: true });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
