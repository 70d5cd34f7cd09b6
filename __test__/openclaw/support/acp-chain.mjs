// The whole chain by which OpenClaw runs Claude Code, offline, for the
// integration suites: OpenClaw 2026.9.6 on Node 24 → its ACP control plane →
// acpx 0.19.1's runtime (backend `acpx`) → the Claude Agent ACP adapter
// 0.76.0 → the Claude Code native binary it carries → a fake Anthropic
// Messages API on 127.0.0.1. This package's plugin is installed from
// `npm pack` as users get it.
//
// The official `@openclaw/acpx` plugin is not on the npm registry, so a
// small test-only plugin with the same id stands in for it: it registers
// acpx's real runtime (`createAcpRuntime`, its file session store and agent
// registry) as ACP backend `acpx` through OpenClaw's plugin SDK. Everything
// above the backend is OpenClaw's own code; the real plugin's provider-env
// scrubbing, startup probe and MCP bridges are not part of this chain.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { addon, sleep, tempDir, until } from '../../support/helpers.mjs';
import { freePort } from '../../install/support/registry.mjs';
import { cacheDir, gatewayCall, installOnce, node24, openclaw, openclawCli, openclawEnv } from './env.mjs';
import { processAlive } from './process.mjs';
import { PLUGIN_ID } from './pack.mjs';

export const OPENCLAW_VERSION = '2026.9.6';
export const ACPX = '0.19.1';
export const ADAPTER = '0.76.0';
/** The requester every spawn is made for: OpenClaw's main agent's main session. */
export const REQUESTER = 'agent:main:main';
/** The plugin id of the hook recorder (see `writeHookRecorder`). */
export const HOOK_RECORDER = 'osi-hook-recorder';
/**
 * OpenClaw's own agent model, when a chain drives real agent turns: a
 * custom provider on the fake Messages API. Its requests carry this model
 * id and no Claude Code session header, which tells them apart from Claude
 * Code's.
 */
export const AGENT_PROVIDER = 'fake-anthropic';
export const AGENT_MODEL = 'openclaw-agent-model';

/**
 * acpx and the Claude adapter, installed once into the test cache with
 * their optional dependencies: the adapter's Claude Agent SDK carries the
 * Claude Code native binary in its platform package. Nothing runs `npx` at
 * run time: the adapter is launched from here.
 */
export function acpChainPackages() {
  const dir = path.join(cacheDir, `acp-chain-acpx-${ACPX}-claude-agent-acp-${ADAPTER}`);
  installOnce(dir, [`acpx@${ACPX}`, `@agentclientprotocol/claude-agent-acp@${ADAPTER}`]);
  const modules = path.join(dir, 'node_modules');
  const claude = path.join(modules, '@anthropic-ai', `claude-agent-sdk-linux-${process.arch}`, 'claude');
  // --ignore-scripts keeps the binary's mode from the tarball; check it runs.
  execFileSync(claude, ['--version'], { stdio: 'pipe', timeout: 60_000, env: { ...process.env, DISABLE_AUTOUPDATER: '1' } });
  return {
    acpxRuntime: path.join(modules, 'acpx', 'dist', 'runtime.js'),
    adapter: path.join(modules, '@agentclientprotocol', 'claude-agent-acp', 'dist', 'index.js'),
    claude,
  };
}

/** Writes the stand-in for `@openclaw/acpx` into `dir` (see the header). */
function writeAcpxStandIn(dir, { acpxRuntime, adapter }) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({
    name: 'acpx-standin', version: ACPX, type: 'module', private: true, openclaw: { extensions: ['./index.mjs'] },
  }, null, 2));
  fs.writeFileSync(path.join(dir, 'openclaw.plugin.json'), JSON.stringify({
    id: 'acpx', name: 'acpx (test stand-in)', description: `acpx ${ACPX}'s runtime as ACP backend acpx`, version: ACPX,
    activation: { onStartup: true }, configSchema: { type: 'object', additionalProperties: false, properties: {} },
  }, null, 2));
  const backend = path.join(openclaw(OPENCLAW_VERSION), 'dist', 'plugin-sdk', 'acp-runtime-backend.js');
  fs.writeFileSync(path.join(dir, 'index.mjs'), `// Test stand-in for @openclaw/acpx (not on the npm registry): acpx ${ACPX}'s
// real runtime registered as OpenClaw's ACP backend "acpx"; the claude agent
// is the Claude Agent ACP adapter ${ADAPTER} run by the gateway's Node.
import path from 'node:path';
import { createAcpRuntime, createAgentRegistry, createFileSessionStore } from ${JSON.stringify(pathToFileURL(acpxRuntime).href)};
import { registerAcpRuntimeBackend, unregisterAcpRuntimeBackend } from ${JSON.stringify(pathToFileURL(backend).href)};

let runtime;
export default {
  id: 'acpx',
  name: 'acpx (test stand-in)',
  register(api) {
    api.registerService({
      id: 'acpx-runtime',
      start(ctx) {
        runtime = createAcpRuntime({
          cwd: ctx.stateDir,
          sessionStore: createFileSessionStore({ stateDir: path.join(ctx.stateDir, 'acpx') }),
          agentRegistry: createAgentRegistry({ overrides: { claude: [process.execPath, ${JSON.stringify(adapter)}] } }),
          permissionMode: 'approve-all',
          nonInteractivePermissions: 'deny',
          timeoutMs: 300000,
        });
        registerAcpRuntimeBackend({ id: 'acpx', runtime, healthy: () => true });
        api.logger.info('acpx stand-in: backend acpx registered');
      },
      async stop() {
        unregisterAcpRuntimeBackend('acpx');
        await runtime?.shutdown();
        api.logger.info('acpx stand-in: backend acpx stopped');
      },
    });
  },
};
`);
}

/**
 * The hooks the recorder plugin logs: what OpenClaw tells plugins about a
 * spawn after its `before_tool_call` (which this package's plugin handles).
 */
export const RECORDED_HOOKS = ['after_tool_call', 'subagent_spawned', 'subagent_progress', 'subagent_ended', 'subagent_delivery_target'];

/**
 * Writes a test-only plugin into `dir` that appends every event of
 * `RECORDED_HOOKS` to `file`, one JSON line each: `{ hook, at, event, ctx }`
 * (functions, abort signals and cycles left out). It returns nothing from
 * any hook, so it changes nothing OpenClaw does.
 */
function writeHookRecorder(dir, file) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({
    name: 'osi-hook-recorder', version: '0.0.0', type: 'module', private: true, openclaw: { extensions: ['./index.mjs'] },
  }, null, 2));
  fs.writeFileSync(path.join(dir, 'openclaw.plugin.json'), JSON.stringify({
    id: HOOK_RECORDER, name: 'hook recorder (test)', description: 'Logs the spawn-related hook events', version: '0.0.0',
    activation: { onStartup: true }, configSchema: { type: 'object', additionalProperties: false, properties: {} },
  }, null, 2));
  fs.writeFileSync(path.join(dir, 'index.mjs'), `// Test-only: logs the hook events OpenClaw sends around a spawn.
import fs from 'node:fs';
const file = ${JSON.stringify(file)};
const plain = (value) => {
  const seen = new WeakSet();
  return JSON.parse(JSON.stringify(value ?? null, (k, v) => {
    if (typeof v === 'function' || (typeof AbortSignal !== 'undefined' && v instanceof AbortSignal)) return undefined;
    if (v && typeof v === 'object') {
      if (seen.has(v)) return undefined;
      seen.add(v);
    }
    return v;
  }));
};
export default {
  id: ${JSON.stringify(HOOK_RECORDER)},
  name: 'hook recorder (test)',
  register(api) {
    for (const hook of ${JSON.stringify(RECORDED_HOOKS)}) {
      api.on(hook, (event, ctx) => {
        try {
          fs.appendFileSync(file, JSON.stringify({ hook, at: Date.now(), event: plain(event), ctx: plain(ctx) }) + '\\n');
        } catch {}
      });
    }
  },
};
`);
}

/**
 * How OpenClaw 2026.9.6 under load sometimes fails an accepted ACP spawn
 * before its first turn, so that Claude Code never gets the task:
 * "ACP_SESSION_INIT_FAILED: ACP metadata is missing for <child key>" (the
 * turn read the session's ACP record before a slow SQLite write of it
 * committed; seen on the first spawn after a start) and
 * "SessionTranscriptWriterClaimReboundError: session writer claim changed
 * before transcript persistence" (seen with two gateways on two busy cores).
 * The suites make such a spawn again, and only such a spawn.
 */
export const HOST_SPAWN_RACES = /ACP_SESSION_INIT_FAILED: ACP metadata is missing|SessionTranscriptWriterClaimReboundError/;

/** Whether this process runs as root (Claude Code then wants IS_SANDBOX=1). */
const isRoot = process.getuid?.() === 0;

/** Pids of the processes whose environment holds `marker` (every process a gateway started). */
export function processesMarked(marker) {
  const needle = Buffer.from(`${marker}\0`);
  const pids = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/environ`).includes(needle) && processAlive(Number(name))) pids.push(Number(name));
    } catch {}
  }
  return pids;
}

/** The command line of `pid` ('' once gone). */
export function commandLine(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** A git repository made with the git CLI: one commit on `branch`. */
export function gitRepo(dir, { branch = 'main', files = { 'README.md': '# demo\n' }, message = 'First commit' } = {}) {
  fs.mkdirSync(dir, { recursive: true });
  const git = (...args) => execFileSync('git', ['-c', `init.defaultBranch=${branch}`, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, stdio: 'pipe', encoding: 'utf8' }).trim();
  git('init', '-q');
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), text);
  }
  git('add', '.');
  git('commit', '-qm', message);
  return { dir, git, head: () => git('rev-parse', 'HEAD') };
}

/**
 * Starts a gateway running the whole chain, in a scratch HOME and state
 * dir, talking to `api` (a fake Anthropic API from `startFakeAnthropic`).
 * `plugin` is what `packedPlugin()` returned; `pluginConfig` goes to this
 * package's plugin entry. With `agentModel`, OpenClaw's main agent has a
 * model: `AGENT_PROVIDER/AGENT_MODEL` on the same fake API, so that
 * `chain.agentTurn` drives real agent turns (without it the main agent has
 * no model, and spawns come through `chain.invoke`). Every chain runs the
 * hook recorder (`chain.hookEvents`). Resolves to the chain (see the
 * returned object).
 */
export async function startChain({ api, plugin, pluginConfig = {}, agentModel = false }) {
  const packages = acpChainPackages();
  const scratch = tempDir('osi-chain-');
  const home = path.join(scratch, 'home');
  const state = path.join(scratch, 'state');
  const claudeDir = path.join(home, '.claude');
  const standIn = path.join(scratch, 'acpx-standin');
  const recorder = path.join(scratch, 'hook-recorder');
  const hookLog = path.join(scratch, 'hook-events.jsonl');
  fs.mkdirSync(claudeDir, { recursive: true });
  writeAcpxStandIn(standIn, packages);
  writeHookRecorder(recorder, hookLog);
  const port = await freePort();
  const token = randomBytes(16).toString('hex');
  // Every process the gateway starts inherits this variable: how the end
  // of the run finds whatever would be left running.
  const marker = `OSI_CHAIN_RUN=${randomBytes(8).toString('hex')}`;
  const env = openclawEnv(state, home, {
    npm_config_registry: plugin.url,
    OPENCLAW_GATEWAY_TOKEN: token,
    [marker.split('=')[0]]: marker.split('=')[1],
    CLAUDE_CONFIG_DIR: claudeDir,
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: 'sk-ant-test-offline',
    ...(isRoot ? { IS_SANDBOX: '1' } : {}),
    CLAUDE_CODE_TMPDIR: path.join(scratch, 'tmp'),
    XDG_RUNTIME_DIR: path.join(scratch, 'run'),
    OPENCLAW_SESSION_INTEL_CACHE_DIR: path.join(scratch, 'osi-cache'),
    DISABLE_AUTOUPDATER: '1', DISABLE_UPDATES: '1', DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1',
    DISABLE_GROWTHBOOK: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', CLAUDE_CODE_DISABLE_FEATURE_FLAGS: '1',
    CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: '1', CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
  });
  for (const d of ['tmp', 'run']) fs.mkdirSync(path.join(scratch, d), { recursive: true, mode: 0o700 });
  const cli = (args, opts = {}) => openclawCli(OPENCLAW_VERSION, args, { env, timeout: 300_000, ...opts });

  // The config of the chain; `plugins install` then adds this package.
  const configFile = path.join(state, 'openclaw.json');
  fs.mkdirSync(state, { recursive: true });
  fs.writeFileSync(configFile, JSON.stringify({
    gateway: {
      mode: 'local', bind: 'loopback', port, auth: { mode: 'token', token },
      // sessions_spawn is denied over HTTP by default, and ACP refuses a
      // requester whose inherited deny list holds the editing tools.
      tools: { allow: ['sessions_spawn', 'apply_patch', 'exec', 'shell', 'spawn', 'fs_write', 'fs_delete', 'fs_move'] },
    },
    acp: { enabled: true, backend: 'acpx', defaultAgent: 'claude', allowedAgents: ['claude'] },
    ...(agentModel ? { models: agentModelProvider(api) } : {}),
    // Without an agent entry for claude the Gateway refuses the child key agent:claude:acp:….
    // No heartbeat turns of the main agent: every model request is a test's.
    agents: {
      defaults: { heartbeat: { every: '0m' }, ...(agentModel ? { model: { primary: `${AGENT_PROVIDER}/${AGENT_MODEL}` } } : {}) },
      entries: { main: { default: true }, claude: { runtime: { type: 'acp', acp: { agent: 'claude', backend: 'acpx' } } } },
    },
    plugins: { load: { paths: [standIn, recorder] }, entries: { acpx: { enabled: true }, [HOOK_RECORDER]: { enabled: true } } },
  }, null, 2));
  const installed = cli(['plugins', 'install', `npm-pack:${plugin.tgz}`, '--force', '--accept-capabilities']);
  assert.match(installed.stdout + installed.stderr, new RegExp(`Installed plugin: ${PLUGIN_ID}`));
  const setPluginConfig = (config) => {
    const c = JSON.parse(fs.readFileSync(configFile, 'utf8'));
    c.plugins.entries[PLUGIN_ID] = { ...c.plugins.entries[PLUGIN_ID], enabled: true, config };
    fs.writeFileSync(configFile, JSON.stringify(c, null, 2));
  };
  setPluginConfig(pluginConfig);

  /** Everything every gateway process of this chain printed, in order. */
  let log = '';
  let gateway;
  /** Kills every process the gateway started, the gateway included (by pid). */
  const killMarked = () => {
    for (const pid of processesMarked(marker)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
  };
  /** Starts a gateway process and waits until it takes spawns. */
  const launch = async () => {
    const from = log.length;
    const proc = spawn(node24(), [path.join(openclaw(OPENCLAW_VERSION), 'openclaw.mjs'), 'gateway', 'run', '--verbose', '--allow-unconfigured', '--auth', 'token', '--port', String(port), '--bind', 'loopback'],
      { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    proc.stdout.on('data', (d) => (log += d));
    proc.stderr.on('data', (d) => (log += d));
    gateway = proc;
    chain.gateway = proc;
    const waitFor = async (re, what, ms) => {
      const started = Date.now();
      while (!re.test(log.slice(from)) && Date.now() - started < ms) {
        if (proc.exitCode !== null) break;
        await sleep(200);
      }
      if (!re.test(log.slice(from))) throw new Error(`${what}:\n${log.slice(from)}`);
    };
    try {
      await waitFor(/\] ready/, 'the gateway was not ready in 240 s', 240_000);
      // Plugin services start after "ready": a spawn before the backend is
      // registered fails at once, without reaching Claude Code.
      await waitFor(/backend acpx registered/, 'the acpx backend was not registered in 120 s', 120_000);
      assert.match(log.slice(from), new RegExp(`plugins: [^)]*${PLUGIN_ID}`), 'the gateway loaded the plugin');
    } catch (e) {
      // Nothing outlives a gateway that did not come up.
      killMarked();
      throw e;
    }
  };
  /**
   * Stops the gateway (SIGTERM, waiting for it to exit) and returns what
   * it started that was still running after it: each such process is
   * killed (by pid) and reported.
   */
  const shutDown = async () => {
    const proc = gateway;
    const exited = proc.exitCode !== null ? Promise.resolve() : new Promise((ok) => proc.on('exit', ok));
    proc.kill('SIGTERM');
    await Promise.race([exited, sleep(90_000)]);
    const deadline = Date.now() + 30_000;
    let left = processesMarked(marker);
    while (left.length && Date.now() < deadline) {
      await sleep(250);
      left = processesMarked(marker);
    }
    const report = left.map((pid) => `${pid} ${commandLine(pid)}`);
    killMarked();
    try {
      process.kill(-proc.pid, 'SIGKILL');
    } catch {}
    return report;
  };

  let stopped = false;
  const chain = {
    scratch, home, state, claudeDir, port, token, env, gateway, marker, packages, configFile,
    /** Everything the gateway printed so far (across restarts). */
    log: () => log,
    /** What explains a spawn that went wrong: the gateway's ACP, warning and error lines. */
    diagnostics: () => log.split('\n').filter((l) => /acp|spawn|warn|error|fail/i.test(l)).slice(-60).join('\n'),
    /** The `openclaw` CLI against this state dir. */
    cli,
    /** This package's plugin config, written to the config file (then `reloadPlugin`). */
    setPluginConfig,
    /**
     * The hook events the recorder logged so far, oldest first:
     * `{ hook, at, event, ctx }` (see `RECORDED_HOOKS`).
     */
    hookEvents() {
      if (!fs.existsSync(hookLog)) return [];
      return fs.readFileSync(hookLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    },
    /**
     * POST /tools/invoke: `{ status, body }`. `origin` is the conversation
     * the call comes from, as the Gateway reads it from the request's
     * headers: `{ channel, accountId, to, threadId }`, each optional.
     */
    async invoke(name, args, { sessionKey = REQUESTER, origin = {} } = {}) {
      const originHeaders = Object.fromEntries(Object.entries({
        'x-openclaw-message-channel': origin.channel,
        'x-openclaw-account-id': origin.accountId,
        'x-openclaw-message-to': origin.to,
        'x-openclaw-thread-id': origin.threadId,
      }).filter(([, v]) => v !== undefined));
      const res = await fetch(`http://127.0.0.1:${port}/tools/invoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...originHeaders },
        body: JSON.stringify({ name, sessionKey, args }),
        signal: AbortSignal.timeout(180_000),
      });
      const text = await res.text();
      let body;
      try {
        body = JSON.parse(text);
      } catch {
        body = { raw: text };
      }
      return { status: res.status, body };
    },
    /** sessions_spawn of Claude Code through ACP, for the main agent's main session (`opts` as for `invoke`). */
    spawnClaude(args, opts) {
      return chain.invoke('sessions_spawn', { runtime: 'acp', agentId: 'claude', mode: 'run', ...args }, opts);
    },
    /**
     * One turn of OpenClaw's own agent (a chain started with `agentModel`):
     * `openclaw agent --session-key <sessionKey> --message <message> --json`
     * against the running gateway, as an operator sends one. Resolves, once
     * the turn has ended, to what the command printed as JSON (`{ runId,
     * status, result: { payloads, meta } }`); rejects when it fails.
     * Asynchronous: the fake API answers the turn's model requests from this
     * process meanwhile.
     */
    agentTurn(message, { sessionKey = REQUESTER, timeoutSeconds = 300 } = {}) {
      const args = [path.join(openclaw(OPENCLAW_VERSION), 'openclaw.mjs'), 'agent', '--session-key', sessionKey, '--message', message, '--json', '--timeout', String(timeoutSeconds)];
      return new Promise((ok, fail) => execFile(node24(), args, { env, timeout: (timeoutSeconds + 60) * 1000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
        if (err) return fail(new Error(`openclaw agent failed: ${err.message}\n${stdout}\n${stderr}`));
        try {
          ok(JSON.parse(stdout.slice(stdout.indexOf('{'))));
        } catch {
          fail(new Error(`openclaw agent printed no JSON:\n${stdout}\n${stderr}`));
        }
      }));
    },
    /** A Gateway RPC method through `openclaw gateway call` (retryable answers retried). */
    call(method, params = {}) {
      return gatewayCall(OPENCLAW_VERSION, port, method, params, { env, timeout: 300_000 });
    },
    /**
     * Rows of a read-only query of OpenClaw's shared state database
     * (`<state>/state/openclaw.sqlite`), run by Node 24's SQLite in a
     * child process; [] while the database does not exist.
     */
    queryState(sql) {
      const db = path.join(state, 'state', 'openclaw.sqlite');
      if (!fs.existsSync(db)) return Promise.resolve([]);
      const code = `import { DatabaseSync } from 'node:sqlite';
const db = new DatabaseSync(${JSON.stringify(db)}, { readOnly: true });
console.log(JSON.stringify(db.prepare(${JSON.stringify(sql)}).all()));`;
      return new Promise((ok, fail) => execFile(node24(), ['--no-warnings', '--input-type=module', '-e', code], { timeout: 60_000, maxBuffer: 64 << 20 },
        (err, stdout, stderr) => (err ? fail(new Error(`${err.message}\n${stderr}`)) : ok(JSON.parse(stdout)))));
    },
    /**
     * The error by which OpenClaw failed the spawn of child
     * `childSessionKey` in one of `HOST_SPAWN_RACES` (its task run's error,
     * or a gateway log line naming the child), or undefined.
     */
    async hostFailedSpawn(childSessionKey) {
      const runs = await chain.queryState(`select error from task_runs where child_session_key = '${childSessionKey.replace(/'/g, "''")}'`);
      const error = runs.at(-1)?.error ?? '';
      if (HOST_SPAWN_RACES.test(error)) return error;
      return log.split('\n').find((l) => l.includes(childSessionKey) && HOST_SPAWN_RACES.test(l));
    },
    /**
     * OpenClaw's ACP records (`acp_sessions` of the shared state database),
     * as `{ key, sessionId, identity }`: the child session key, OpenClaw's
     * session id of the child, and the parsed identity (`acpxSessionId` is
     * the Claude session id).
     */
    async acpRecords() {
      const rows = await chain.queryState('select session_key, session_id, identity_json from acp_sessions');
      return rows.map((r) => {
        let key = r.session_key;
        try {
          key = JSON.parse(Buffer.from(r.session_key.replace(/^@acp:v1:/, ''), 'base64url').toString('utf8'))[1];
        } catch {}
        return { key, sessionId: r.session_id, identity: JSON.parse(r.identity_json ?? '{}') };
      });
    },
    /** The plugin's record of the spawn whose origin marker Claude Code received in `sent` (a task message). */
    async spawnRecordOf(sent, agentId = 'main') {
      const nonce = addon.parseOriginMarker(sent)?.spawn;
      assert.ok(nonce, `the origin marker with the spawn's nonce: ${sent}`);
      return (await addon.listSpawns(agentId, state)).find((r) => r.nonce === nonce);
    },
    /** Processes the gateway started that still run (the gateway itself included). */
    running: () => processesMarked(marker),
    /** Processes of the Claude Code binary that still run. */
    runningClaude: () => processesMarked(marker).filter((pid) => commandLine(pid).startsWith(packages.claude)),
    /** The lines of Claude Code session `sessionId`'s transcript, or null. */
    transcript: (sessionId) => transcriptLines(claudeDir, sessionId),
    /** Whether a Claude Code process of `sessionId` still runs. */
    claudeRunning: (sessionId) => chain.runningClaude().some((pid) => commandLine(pid).includes(sessionId)),
    /**
     * Waits until Claude Code session `sessionId` gave its answer (an
     * assistant line whose text `isAnswer` accepts: by default the scripted
     * `Done: …` of the suites) and its process is gone.
     */
    async finished(sessionId, isAnswer = (text) => text.startsWith('Done:')) {
      await until(`Claude Code session ${sessionId} to finish`, () => chain.transcript(sessionId)
        ?.some((l) => l.type === 'assistant' && isAnswer(lineText(l))) && !chain.claudeRunning(sessionId), 300_000);
    },
    /**
     * Restarts the gateway on the same state dir, config and port, as an
     * operator does: the running one is stopped (whatever it leaves
     * running is killed and returned, as by `stop`), a new one started and
     * waited for until it takes spawns.
     */
    async restart() {
      assert.ok(!stopped, 'the chain was stopped');
      const left = await shutDown();
      await launch();
      return left;
    },
    /**
     * Stops the gateway (SIGTERM, then its process group) and returns what
     * was still running after it: each such process is killed (by pid) so
     * that nothing outlives the test, and reported.
     */
    async stop() {
      if (stopped) return [];
      stopped = true;
      return shutDown();
    },
  };
  await launch();
  return chain;
}

/**
 * `models` of OpenClaw's config for a chain whose main agent has a model:
 * one custom provider on the fake Messages API (`api: "anthropic-messages"`;
 * a custom provider's exact loopback origin is trusted), replacing every
 * discovered provider.
 */
function agentModelProvider(api) {
  return {
    mode: 'replace',
    providers: {
      [AGENT_PROVIDER]: {
        baseUrl: api.url,
        api: 'anthropic-messages',
        apiKey: 'fake-anthropic-local-key',
        models: [{
          id: AGENT_MODEL, name: 'OpenClaw agent model (fake API)', reasoning: false, input: ['text'],
          contextWindow: 200_000, maxTokens: 8192, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        }],
      },
    },
  };
}

/**
 * The end of a suite on a chain: stops the gateway (reporting and killing
 * what it left running), closes the fake API and, with `OSI_CHAIN_DEBUG`,
 * prints the gateway's log. Either may be undefined (a `before` that failed).
 */
export async function closeChain(chain, api) {
  if (chain) {
    const left = await chain.stop();
    if (left.length) console.error(`# killed what the gateway left running:\n# ${left.join('\n# ')}`);
  }
  await api?.close();
  if (process.env.OSI_CHAIN_DEBUG && chain) console.error(chain.log());
}

export { sleep, until };

/** Claude Code's transcripts under `claudeDir` for `cwd`: `{ sessionId, file, lines }` each. */
export function transcriptsOf(claudeDir, cwd) {
  const slug = cwd.replace(/[^A-Za-z0-9]/g, '-');
  const dir = path.join(claudeDir, 'projects', slug);
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')).map((f) => {
    const file = path.join(dir, f);
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
    return { sessionId: f.slice(0, -'.jsonl'.length), file, lines };
  });
}

/** The texts of one user message of a Claude Code request, without Claude Code's own system reminders. */
export const textsOf = (m) => (typeof m.content === 'string' ? [m.content] : m.content.filter((b) => b?.type === 'text').map((b) => b.text))
  .filter((t) => !t.startsWith('<system-reminder>'));
/** The texts of the user messages Claude Code sent, without its own system reminders. */
export const userTexts = (r) => r.messages.filter((m) => m.role === 'user').flatMap(textsOf);
/** The first user message of a Claude Code request: the task Claude Code was given. */
export const taskMessage = (r) => userTexts(r)[0];
/** The task a Claude Code request works on: the latest user message with text (a resumed session's new task). */
export const currentTask = (r) => r.messages.filter((m) => m.role === 'user').map(textsOf).findLast((t) => t.length)?.[0];
/** Claude Code's request for a session title: `<session>…</session>` and the instructions. */
export const isTitleRequest = (r) => r.lastUserText.startsWith('<session>');

/** The lines of Claude Code session `sessionId`'s transcript anywhere under `claudeDir`, or null. */
export function transcriptLines(claudeDir, sessionId) {
  const projects = path.join(claudeDir, 'projects');
  for (const dir of fs.existsSync(projects) ? fs.readdirSync(projects) : []) {
    const file = path.join(projects, dir, `${sessionId}.jsonl`);
    if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  }
  return null;
}

/** The text of a transcript line's message (string content or text blocks). */
export function lineText(line) {
  const c = line?.message?.content;
  if (typeof c === 'string') return c;
  return Array.isArray(c) ? c.filter((b) => b?.type === 'text').map((b) => b.text).join('\n') : '';
}
