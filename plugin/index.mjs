// @ts-check
// The OpenClaw plugin of openclaw-session-intel: agent tools that brief an
// agent on a repository and its Claude Code sessions, the handoff across
// /new and /reset, the pre-flight of every Claude Code spawn (a briefing,
// guards, continuation and a record of the spawn, see docs/plugin.md), the
// /handoff and /clean chat commands, and `openclaw occ`.
//
// OpenClaw imports this module in every registration mode (CLI metadata,
// discovery, the gateway), several times per process: `register` only
// registers. The native addon is loaded on first use inside a handler.
// Anything that may open the agent's SQLite transcript store runs in a
// child `occ` process: the gateway has that database open with its own
// SQLite, and a second SQLite library in one process would drop the
// gateway's POSIX locks on it when it closed the file.

import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** @typedef {import('openclaw/plugin-sdk/plugin-entry').OpenClawPluginApi} Api */
/** @typedef {import('openclaw/plugin-sdk/plugin-entry').AnyAgentTool} AnyAgentTool */
/** @typedef {import('openclaw/plugin-sdk/plugin-entry').OpenClawPluginToolContext} ToolContext */
/** @typedef {import('openclaw/plugin-sdk/plugin-entry').PluginCommandContext} CommandContext */
/** @typedef {{ code: string, message: string, hint: string | null }} CodedError */
/**
 * @typedef {object} PluginConfig
 * @property {string} [claudeConfigDir]
 * @property {'default' | 'aggressive' | 'extreme'} [defaultPreset]
 * @property {number} [handoffExpiryHours]
 * @property {{ capture?: boolean, offer?: boolean }} [hooks]
 * @property {PreflightConfig} [spawnPreflight]
 */
/** @typedef {'block' | 'warn' | 'off'} GuardMode */
/**
 * The spawn pre-flight's config, as given.
 * @typedef {object} PreflightConfig
 * @property {boolean} [enabled]
 * @property {number} [budgetMs]
 * @property {{ enabled?: boolean, maxChars?: number }} [briefing]
 * @property {{ missingCwd?: GuardMode, invalidCwd?: GuardMode, busy?: GuardMode, missingResume?: GuardMode }} [guards]
 * @property {{ resume?: boolean, context?: boolean }} [continuation]
 * @property {number} [busyWindowSeconds]
 * @property {number} [githubTimeoutMs]
 */
/**
 * The config with its defaults filled in.
 * @typedef {object} Settings
 * @property {string} [claudeConfigDir]
 * @property {'default' | 'aggressive' | 'extreme'} defaultPreset
 * @property {number} handoffExpiryHours
 * @property {{ capture: boolean, offer: boolean }} hooks
 * @property {Required<Omit<PreflightConfig, 'briefing' | 'guards' | 'continuation'>> & { briefing: { enabled: boolean, maxChars: number }, guards: Record<'missingCwd' | 'invalidCwd' | 'busy' | 'missingResume', GuardMode>, continuation: { resume: boolean, context: boolean } }} spawnPreflight
 */

export const PLUGIN_ID = 'openclaw-session-intel';
const here = path.dirname(fileURLToPath(import.meta.url));
const OCC = path.join(here, '..', 'bin', 'occ.mjs');
const PRESETS = ['default', 'aggressive', 'extreme'];

/** @type {typeof import('../index.js') | undefined} */
let loaded;
/** The addon, loaded on first use (never while OpenClaw only reads metadata). */
const addon = () => (loaded ??= createRequire(import.meta.url)('../entry.js'));

/** OpenClaw's state dir as the gateway's service was given it, once started. @type {string | undefined} */
let serviceStateDir;
const stateDir = () => serviceStateDir ?? process.env.OPENCLAW_STATE_DIR ?? undefined;

/** @param {unknown} e @returns {CodedError} */
function coded(e) {
  const err = /** @type {{ code?: unknown, message?: unknown, hint?: unknown }} */ (e ?? {});
  return {
    code: typeof err.code === 'string' && err.code.startsWith('E_') ? err.code : 'E_INTERNAL',
    message: typeof err.message === 'string' ? err.message : String(e),
    hint: typeof err.hint === 'string' ? err.hint : null,
  };
}

/** @param {CodedError} error */
const describe = (error) => `${error.message}${error.hint ? `\nHint: ${error.hint}` : ''}`;

/**
 * Runs `occ <args> --json` with this Node and the addon beside this plugin.
 * @param {string[]} args
 * @returns {Promise<{ ok: true, value: any } | { ok: false, error: CodedError }>}
 */
function occ(args) {
  const dir = stateDir();
  const argv = [OCC, ...args, '--json', ...(dir ? ['--state-dir', dir] : [])];
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { timeout: 120_000, maxBuffer: 256 * 2 ** 20, windowsHide: true }, (err, stdout, stderr) => {
      if (!err) {
        try {
          return resolve({ ok: true, value: JSON.parse(stdout) });
        } catch {
          return resolve({ ok: false, error: { code: 'E_INTERNAL', message: `occ printed no JSON: ${stdout.slice(0, 200)}`, hint: null } });
        }
      }
      const last = stderr.trim().split('\n').pop() ?? '';
      try {
        const { error } = JSON.parse(last);
        if (error?.code) return resolve({ ok: false, error });
      } catch {}
      resolve({ ok: false, error: { code: 'E_INTERNAL', message: `occ failed (${err.killed ? 'timed out' : `exit ${err.code}`}): ${stderr.trim().slice(0, 500)}`, hint: null } });
    });
  });
}

/** @param {Api} api @returns {Settings} */
function settings(api) {
  const c = /** @type {PluginConfig} */ (api.pluginConfig ?? {});
  return {
    claudeConfigDir: c.claudeConfigDir,
    defaultPreset: c.defaultPreset ?? 'default',
    handoffExpiryHours: c.handoffExpiryHours ?? 24,
    hooks: { capture: c.hooks?.capture ?? true, offer: c.hooks?.offer ?? true },
    spawnPreflight: preflightSettings(c.spawnPreflight ?? {}),
  };
}

/** @param {PreflightConfig} p */
function preflightSettings(p) {
  const g = p.guards ?? {};
  return {
    enabled: p.enabled ?? true,
    budgetMs: p.budgetMs ?? 3000,
    briefing: { enabled: p.briefing?.enabled ?? true, maxChars: p.briefing?.maxChars ?? 1500 },
    guards: { missingCwd: g.missingCwd ?? 'block', invalidCwd: g.invalidCwd ?? 'block', busy: g.busy ?? 'block', missingResume: g.missingResume ?? 'block' },
    continuation: { resume: p.continuation?.resume ?? true, context: p.continuation?.context ?? true },
    busyWindowSeconds: p.busyWindowSeconds ?? 10,
    githubTimeoutMs: p.githubTimeoutMs ?? 1500,
  };
}

// ---------------------------------------------------------------- tools

/**
 * A tool result: the payload as JSON text for the model, and as details.
 * @param {unknown} payload
 */
const toolOk = (payload) => ({ content: [{ type: /** @type {const} */ ('text'), text: JSON.stringify(payload, null, 2) }], details: payload });

/**
 * A failed call, returned rather than thrown so that the caller (the model,
 * or a tools.invoke client) sees the addon's code and hint.
 * @param {unknown} e
 */
function toolError(e) {
  const error = coded(e);
  return { content: [{ type: /** @type {const} */ ('text'), text: `Error ${error.code}: ${describe(error)}` }], details: { ok: false, error } };
}

/**
 * The repository a tool was asked about: absolute, or relative to the
 * agent's workspace; an existing directory.
 * @param {unknown} raw
 * @param {ToolContext} ctx
 */
function repositoryPath(raw, ctx) {
  const invalid = (/** @type {string} */ message, /** @type {string} */ hint) => Object.assign(new Error(message), { code: 'E_INVALID_ARGUMENT', hint });
  if (typeof raw !== 'string' || raw.trim() === '') throw invalid('repoPath must be a non-empty string', 'pass the repository folder, absolute or relative to the workspace');
  if (raw.includes('\0')) throw invalid('repoPath contains a NUL character', 'pass a plain folder path');
  const base = ctx.workspaceDir ?? process.cwd();
  const resolved = path.resolve(base, raw.startsWith('~') ? path.join(os.homedir(), raw.slice(1)) : raw);
  let stat;
  try {
    stat = fs.statSync(resolved);
  } catch {
    throw Object.assign(new Error(`no such folder: ${resolved}`), { code: 'E_REPO_NOT_FOUND', hint: 'check the path; relative paths are resolved against the agent workspace' });
  }
  if (!stat.isDirectory()) throw Object.assign(new Error(`not a folder: ${resolved}`), { code: 'E_REPO_NOT_FOUND', hint: 'pass the repository folder, not a file in it' });
  return resolved;
}

const repoParam = { type: 'string', description: 'The repository folder: absolute, or relative to the agent workspace.' };

/**
 * @param {string} name
 * @param {string} label
 * @param {string} description
 * @param {object} parameters
 * @param {(params: any, ctx: ToolContext) => Promise<unknown>} run
 * @returns {{ name: string, create: (ctx: ToolContext) => AnyAgentTool }}
 */
function tool(name, label, description, parameters, run) {
  const create = (/** @type {ToolContext} */ ctx) => ({
    name,
    label,
    description,
    parameters: /** @type {any} */ ({ type: 'object', additionalProperties: false, ...parameters }),
    async execute(/** @type {string} */ _toolCallId, /** @type {unknown} */ params) {
      try {
        return toolOk(await run(params ?? {}, ctx));
      } catch (e) {
        return toolError(e);
      }
    },
  });
  return { name, create };
}

/** @param {Api} api */
function registerTools(api) {
  const discovery = () => ({ claudeConfigDir: settings(api).claudeConfigDir, registryRoot: stateDir() });
  const tools = [
    tool('project_status', 'Project status',
      'Brief yourself on a repository before working in it or spawning Claude Code: branch, head commit, uncommitted and staged changes, stashes, recent commits, the Claude Code sessions active and recent there, docs, and open pull requests.',
      { properties: { repoPath: repoParam }, required: ['repoPath'] },
      async ({ repoPath }, ctx) => {
        const a = addon();
        return a.projectStatusToolPayload(await a.gatherProjectStatus(repositoryPath(repoPath, ctx), ctx.agentId, discovery()));
      }),
    tool('claude_code_sessions', 'Claude Code sessions',
      "A repository's Claude Code sessions, newest first: id, title or first prompt, when, turns, tokens and cost, whether one is running, and which ones this gateway spawned.",
      { properties: { repoPath: repoParam, includeNative: { type: 'boolean', description: 'Include sessions OpenClaw did not spawn (default true).' } }, required: ['repoPath'] },
      async ({ repoPath, includeNative }, ctx) => {
        const a = addon();
        return a.sessionListToolPayload(await a.discoverSessions(repositoryPath(repoPath, ctx), discovery()), { includeNative: includeNative ?? true });
      }),
    tool('select_session', 'Select a Claude Code session',
      'Decide whether a task in a repository should resume an existing Claude Code session or start fresh (or wait for a running one), with the reason and the scores.',
      { properties: { repoPath: repoParam, task: { type: 'string', description: 'The task, as you would give it to Claude Code.' }, label: { type: 'string', description: 'A session label, to keep parallel lines of work apart.' } }, required: ['repoPath', 'task'] },
      async ({ repoPath, task, label }, ctx) => {
        if (typeof task !== 'string' || task.trim() === '') throw Object.assign(new Error('task must be a non-empty string'), { code: 'E_INVALID_ARGUMENT', hint: 'describe the task' });
        const a = addon();
        const repo = repositoryPath(repoPath, ctx);
        const agentId = ctx.agentId ?? 'main';
        const status = await a.gatherProjectStatus(repo, agentId, discovery());
        return a.selectSession(task, repo, agentId, status, label);
      }),
    tool('handoff_status', 'Handoff status',
      'What was captured when your session was last reset (/new or /reset): the summary, whether it will be offered to your next session, and when it expires.',
      { properties: {} },
      async (_params, ctx) => {
        const r = await occ(['handoff', 'status', '--agent', ctx.agentId ?? 'main']);
        if (!r.ok) throw r.error;
        return r.value;
      }),
  ];
  for (const { name, create } of tools) api.registerTool(create, { name });
}

// ---------------------------------------------------------------- hooks

/** @param {Api} api */
function registerHooks(api) {
  api.registerHook(['command:new', 'command:reset'], async (event) => {
    const config = settings(api);
    if (!config.hooks.capture) return;
    const context = /** @type {Record<string, any>} */ (event.context ?? {});
    const agentId = context.agentId ?? 'main';
    const sessionId = context.previousSessionEntry?.sessionId ?? context.sessionEntry?.sessionId;
    const r = await occ(['handoff', 'capture', ...(sessionId ? [sessionId] : []), '--trigger', `command:${event.action}`, '--agent', agentId]);
    if (r.ok) api.logger.info(`${PLUGIN_ID}: handoff captured from ${r.value.previousSessionId} on ${event.type}:${event.action}`);
    else api.logger.warn(`${PLUGIN_ID}: no handoff captured on ${event.type}:${event.action} (${r.error.code}: ${r.error.message})`);
  }, { name: `${PLUGIN_ID}-handoff-capture`, description: 'Captures where the session left off before /new or /reset hides it.' });

  api.registerHook('agent:bootstrap', async (event) => {
    const config = settings(api);
    if (!config.hooks.offer) return;
    const context = /** @type {Record<string, any>} */ (event.context ?? {});
    if (!Array.isArray(context.bootstrapFiles)) return;
    const agentId = context.agentId ?? 'main';
    try {
      const a = addon();
      const state = await a.checkForHandoff({ agentId, stateDir: stateDir(), expiryHours: config.handoffExpiryHours });
      if (!state) return;
      const root = stateDir() ?? path.join(os.homedir(), '.openclaw');
      context.bootstrapFiles.push({ name: 'HANDOFF.md', path: path.join(root, 'agents', agentId, 'handoff', 'session-state.json'), content: a.renderHandoffContext(state), missing: false });
      api.logger.info(`${PLUGIN_ID}: handoff from ${state.previousSessionId} offered to agent ${agentId}`);
    } catch (e) {
      api.logger.warn(`${PLUGIN_ID}: no handoff offered (${describe(coded(e))})`);
    }
  }, { name: `${PLUGIN_ID}-handoff-offer`, description: 'Offers the captured handoff to the next session, once, as HANDOFF.md.' });
}

// ---------------------------------------------------------------- spawn pre-flight

/**
 * A Claude Code spawn this plugin let through, from the pre-flight until
 * the host reports its end (and, for a persistent one, until its session
 * is closed).
 * @typedef {object} Spawn
 * @property {string} nonce
 * @property {string} agentId the requesting agent
 * @property {string | undefined} requesterSessionKey
 * @property {string | undefined} toolCallId
 * @property {string | undefined} cwd absent when the spawn gave none (a guard let it pass)
 * @property {string | undefined} repoPath
 * @property {string} mode 'run' or 'session'
 * @property {number} startedAt milliseconds since the epoch
 * @property {string | undefined} claudeSessionId
 * @property {string | undefined} childSessionKey
 * @property {boolean} started the host started it (a child key, or its transcript, was seen)
 * @property {boolean} ended the run ended (or the host refused the spawn)
 * @property {boolean} closed its session is gone too
 * @property {boolean} [lookupFailed] looking up its transcript failed once (and was logged)
 */

/** @type {Map<string, Spawn>} by nonce */
const spawns = new Map();
/** Claude Code sessions whose spawn ended, newest last (at most 200). @type {string[]} */
const finishedSessions = [];
/** @type {NodeJS.Timeout | undefined} */
let learnTimer;
/** @type {Api | undefined} */
let learnApi;
/** How long after its start a spawn's transcript is looked for. */
const LEARN_FOR_MS = 15 * 60_000;
/**
 * How long a spawn the host has not been seen starting counts as running.
 * A spawn OpenClaw refuses through `tools.invoke` fires no hook at all
 * (`after_tool_call` runs only in the agent loop), so without this it
 * would hold its repository until the gateway restarts.
 */
const UNSEEN_START_MS = 60_000;

/**
 * Whether a spawn is running now, as far as this gateway knows: not ended,
 * and seen starting (else only for a minute). One whose Claude Code
 * session is never learned counts only while it is looked for: OpenClaw
 * reports no end of a spawn made through `tools.invoke`, and a session
 * really at work in the repository shows it by itself (its liveness
 * record, its transcript's writes).
 * @param {Spawn} s
 */
const running = (s) => {
  if (s.ended) return false;
  const age = Date.now() - s.startedAt;
  if (!s.started) return age < UNSEEN_START_MS;
  return Boolean(s.claudeSessionId) || age < LEARN_FOR_MS;
};

/** The agent id of an OpenClaw session key (`agent:<id>:…`). @param {string | undefined} key */
const agentOfKey = (key) => (typeof key === 'string' && key.startsWith('agent:') ? key.split(':')[1] : undefined);

/**
 * Whether a `sessions_spawn` call starts Claude Code through ACP: runtime
 * "acp" and a target that is the `claude` harness (directly, through an
 * agent entry whose ACP agent is claude, or `acp.defaultAgent`), as
 * OpenClaw resolves the target.
 * @param {Record<string, any>} params
 * @param {Record<string, any> | undefined} config
 */
export function isClaudeAcpSpawn(params, config) {
  if (params?.runtime !== 'acp') return false;
  const norm = (/** @type {unknown} */ v) => (typeof v === 'string' && v.trim() ? v.trim().toLowerCase() : undefined);
  const entry = (/** @type {string} */ id) => {
    const agents = config?.agents ?? {};
    const fromEntries = agents.entries?.[id];
    if (fromEntries) return fromEntries;
    return Array.isArray(agents.list) ? agents.list.find((/** @type {any} */ a) => norm(a?.id) === id) : undefined;
  };
  const requested = norm(params.agentId);
  let target;
  if (requested) {
    const e = entry(requested);
    target = e?.runtime?.type === 'acp' ? norm(e.runtime.acp?.agent) ?? requested : requested;
  } else {
    target = norm(config?.acp?.defaultAgent);
  }
  return target === 'claude';
}

/**
 * Starts tracking a spawn: `fields` over one the host has not been seen
 * starting yet.
 * @param {Pick<Spawn, 'nonce' | 'agentId' | 'cwd' | 'mode' | 'startedAt'> & Partial<Spawn>} fields
 * @returns {Spawn}
 */
function track(fields) {
  /** @type {Spawn} */
  const spawn = {
    requesterSessionKey: undefined,
    toolCallId: undefined,
    repoPath: undefined,
    claudeSessionId: undefined,
    childSessionKey: undefined,
    started: false,
    ended: false,
    closed: false,
    ...fields,
  };
  spawns.set(spawn.nonce, spawn);
  return spawn;
}

/** @param {Spawn} s */
function endSpawn(s) {
  s.ended = true;
  if (s.claudeSessionId && !finishedSessions.includes(s.claudeSessionId)) {
    finishedSessions.push(s.claudeSessionId);
    if (finishedSessions.length > 200) finishedSessions.shift();
  }
}

/** Forgets spawns that are over and whose session is known, or too old to learn. */
function prune() {
  const now = Date.now();
  for (const [nonce, s] of spawns) {
    const over = s.ended && (s.mode !== 'session' || s.closed);
    if ((over && (s.claudeSessionId || now - s.startedAt > LEARN_FOR_MS)) || now - s.startedAt > 24 * 3600_000) spawns.delete(nonce);
  }
}

/**
 * @param {Api} api
 * @param {string} agentId
 * @param {Record<string, unknown>} record
 */
async function record(api, agentId, record) {
  try {
    const a = addon();
    await a.recordSpawn(agentId, /** @type {any} */ (record), stateDir());
  } catch (e) {
    api.logger.warn(`${PLUGIN_ID}: spawn record not written (${describe(coded(e))})`);
  }
}

/**
 * Looks for the transcripts of spawns whose Claude Code session is not
 * known yet, by the nonce in their first message; records what it finds.
 * @param {Api} api
 */
async function learnSessions(api) {
  const config = settings(api);
  for (const s of spawns.values()) {
    if (s.claudeSessionId || !s.cwd || Date.now() - s.startedAt > LEARN_FOR_MS) continue;
    try {
      const id = await addon().findSpawnedSession(s.cwd, s.nonce, { claudeConfigDir: config.claudeConfigDir, sinceMs: s.startedAt - 5000 });
      if (!id) continue;
      s.claudeSessionId = id;
      s.started = true;
      if (s.ended) endSpawn(s);
      api.logger.info(`${PLUGIN_ID}: spawn ${s.nonce} is Claude Code session ${id}${s.childSessionKey ? ` (${s.childSessionKey})` : ''}`);
      await record(api, s.agentId, { nonce: s.nonce, claudeSessionId: id });
    } catch (e) {
      // Said once a spawn: the look-up is tried again every round.
      if (!s.lookupFailed) api.logger.warn(`${PLUGIN_ID}: transcript of spawn ${s.nonce} not looked up (${describe(coded(e))})`);
      s.lookupFailed = true;
    }
  }
  prune();
  if (![...spawns.values()].some((s) => !s.claudeSessionId && s.cwd && Date.now() - s.startedAt <= LEARN_FOR_MS)) stopLearning();
}

/**
 * Looks for unknown sessions every two seconds until none is left to
 * learn, with the config of the plugin that admitted the latest spawn.
 * @param {Api} api
 */
function startLearning(api) {
  learnApi = api;
  if (learnTimer) return;
  let busy = false;
  learnTimer = setInterval(() => {
    if (busy || !learnApi) return;
    busy = true;
    learnSessions(learnApi).finally(() => (busy = false));
  }, 2000);
  learnTimer.unref?.();
}

/**
 * After a gateway restart: the recorded spawns of the last
 * `LEARN_FOR_MS` whose Claude Code session was not learned yet (the
 * gateway stopped first) are looked for again, so that they are still
 * listed as OpenClaw's.
 * @param {Api} api
 */
async function relearn(api) {
  try {
    if (!settings(api).spawnPreflight.enabled) return;
    const root = stateDir() ?? path.join(os.homedir(), '.openclaw');
    /** @type {string[]} */
    let agents = [];
    try {
      agents = fs.readdirSync(path.join(root, 'agents'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    } catch {}
    let found = false;
    for (const agentId of agents) {
      if (!fs.existsSync(path.join(root, 'agents', agentId, 'claude-code-spawns.json'))) continue;
      for (const r of await addon().listSpawns(agentId, root)) {
        const at = Date.parse(r.startedAt ?? '');
        if (r.claudeSessionId || !r.cwd || spawns.has(r.nonce) || !(Date.now() - at < LEARN_FOR_MS)) continue;
        track({
          nonce: r.nonce,
          agentId,
          requesterSessionKey: r.requesterSessionKey,
          cwd: r.cwd,
          repoPath: r.repoPath,
          mode: r.mode ?? 'run',
          startedAt: at,
          childSessionKey: r.childSessionKey,
          ended: Boolean(r.endedAt),
          closed: Boolean(r.endedAt),
        });
        found = true;
      }
    }
    if (found) startLearning(api);
  } catch (e) {
    api.logger.warn(`${PLUGIN_ID}: recorded spawns not looked up again (${describe(coded(e))})`);
  }
}

function stopLearning() {
  if (learnTimer) clearInterval(learnTimer);
  learnTimer = undefined;
}

/** What a pre-flight that ran past its budget resolves to. */
const OVERRUN = Symbol('overrun');

/**
 * `work`, or OVERRUN once `ms` have passed first.
 * @template T
 * @param {Promise<T>} work
 * @param {number} ms
 * @returns {Promise<T | typeof OVERRUN>}
 */
async function withinBudget(work, ms) {
  let timer;
  const overrun = new Promise((resolve) => {
    timer = setTimeout(() => resolve(OVERRUN), Math.max(0, ms));
    timer.unref?.();
  });
  try {
    return await Promise.race([work, overrun]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The pre-flight of one `sessions_spawn` call: the hook's result, or
 * undefined to leave the call as it is. When the pre-flight fails or runs
 * past its budget, the spawn proceeds with its task and only the origin
 * marker after it (the part of the briefing ready at once), and is
 * tracked and recorded all the same.
 * @param {Api} api
 * @param {{ params: Record<string, any>, toolCallId?: string }} event
 * @param {{ agentId?: string, sessionKey?: string, toolCallId?: string }} ctx
 */
async function preflight(api, event, ctx) {
  const config = settings(api);
  const p = config.spawnPreflight;
  const params = event.params ?? {};
  if (!p.enabled || !isClaudeAcpSpawn(params, /** @type {any} */ (api.config))) return undefined;
  const agentId = ctx.agentId ?? agentOfKey(ctx.sessionKey) ?? 'main';
  const requesterKey = ctx.sessionKey;
  /** @type {string | undefined} */
  let workspace;
  try {
    workspace = /** @type {any} */ (api.runtime)?.agent?.resolveAgentWorkspaceDir?.(api.config, agentId);
  } catch {}
  const task = typeof params.task === 'string' ? params.task : '';
  // OpenClaw refuses a spawn without a task by itself.
  if (!task.trim()) return undefined;
  const cwd = typeof params.cwd === 'string' ? params.cwd : undefined;
  const askedResume = typeof params.resumeSessionId === 'string' ? params.resumeSessionId : undefined;
  const started = Date.now();
  const nonce = randomBytes(8).toString('hex');
  /** @type {any} */
  let result;
  /** @type {unknown} */
  let failure;
  try {
    result = await withinBudget(addon().preflightSpawn(
      { task, cwd, resumeSessionId: askedResume, label: typeof params.label === 'string' ? params.label : undefined, agentId, requesterWorkspace: workspace },
      {
        claudeConfigDir: config.claudeConfigDir,
        registryRoot: stateDir(),
        briefing: p.briefing.enabled,
        briefingMaxChars: p.briefing.maxChars,
        ...p.guards,
        continuationResume: p.continuation.resume,
        continuationContext: p.continuation.context,
        inFlight: [...spawns.values()].filter((s) => s.cwd && running(s)).map((s) => ({ repoPath: s.repoPath, cwd: /** @type {string} */ (s.cwd), claudeSessionId: s.claudeSessionId, childSessionKey: s.childSessionKey, startedAtMs: s.startedAt })),
        resumable: [...spawns.values()]
          // A persistent spawn's session stays with the host between its
          // tasks (OpenClaw reports no end of a task started through
          // tools.invoke); the pre-flight resumes it only while its
          // transcript shows it idle.
          .filter((s) => s.cwd && s.mode === 'session' && !s.closed && s.claudeSessionId && s.requesterSessionKey === requesterKey)
          .map((s) => ({ claudeSessionId: /** @type {string} */ (s.claudeSessionId), cwd: /** @type {string} */ (s.repoPath ?? s.cwd), childSessionKey: s.childSessionKey })),
        finishedSessionIds: finishedSessions,
        busyWindowMs: p.busyWindowSeconds * 1000,
        githubTimeoutMs: Math.max(1, Math.min(p.githubTimeoutMs, p.budgetMs / 2)),
        // A huge work tree's status is left out rather than the whole briefing.
        statusBudgetMs: Math.max(1, Math.round(p.budgetMs * 0.75)),
        nonce,
      },
    ), p.budgetMs);
  } catch (e) {
    failure = e;
  }
  const took = Date.now() - started;
  /** The spawn as the host will run it, for the record. */
  const admitted = { nonce, agentId, requesterKey, toolCallId: event.toolCallId ?? ctx.toolCallId, params, task, cwd, started };
  if (failure || result === OVERRUN) {
    // Without the addon this throws, and the spawn passes exactly as asked.
    const marked = addon().markSpawnTask(task, agentId, nonce);
    api.logger.warn(failure
      ? `${PLUGIN_ID}: spawn pre-flight failed, the spawn proceeds with its task and origin marker only (${describe(coded(failure))})`
      : `${PLUGIN_ID}: spawn pre-flight took longer than ${p.budgetMs} ms, the spawn proceeds with its task and origin marker only`);
    return admit(api, admitted, { decision: failure ? 'failed' : 'overrun', resumeId: askedResume, patch: { task: marked }, waitMs: 0 });
  }
  for (const w of result.warnings) api.logger.warn(`${PLUGIN_ID}: spawn pre-flight warning (${result.guard}): ${w}`);
  if (result.block) {
    api.logger.info(`${PLUGIN_ID}: spawn pre-flight block (${result.guard}) in ${took} ms: ${result.reason}`);
    return { block: true, blockReason: result.reason };
  }
  api.logger.info(`${PLUGIN_ID}: spawn pre-flight ${result.decision} ${nonce} in ${took} ms: ${result.reason}`);
  if (!result.params) return undefined;
  /** @type {Record<string, string>} */
  const patch = {};
  if (result.params.task) patch.task = result.params.task;
  if (result.params.resumeSessionId) patch.resumeSessionId = result.params.resumeSessionId;
  return admit(api, admitted, {
    decision: result.decision,
    repoPath: result.repoPath,
    resumeId: patch.resumeSessionId ?? askedResume,
    patch,
    waitMs: p.budgetMs - took,
  });
}

/**
 * Lets a spawn through: tracks it from now to its end (for the busy guard,
 * continuation and learning its Claude Code session), records it, and
 * returns the hook's result. The record is written within `waitMs`; a
 * slow disk finishes it in the background.
 * @param {Api} api
 * @param {{ nonce: string, agentId: string, requesterKey: string | undefined, toolCallId: string | undefined, params: Record<string, any>, task: string, cwd: string | undefined, started: number }} spawnAsked
 * @param {{ decision: string, repoPath?: string, resumeId: string | undefined, patch: Record<string, string>, waitMs: number }} outcome
 */
async function admit(api, spawnAsked, outcome) {
  const { nonce, agentId, requesterKey, params, task, cwd, started } = spawnAsked;
  const spawn = track({
    nonce,
    agentId,
    requesterSessionKey: requesterKey,
    toolCallId: spawnAsked.toolCallId,
    cwd,
    repoPath: outcome.repoPath,
    mode: params.mode === 'session' ? 'session' : 'run',
    startedAt: started,
    claudeSessionId: outcome.resumeId,
  });
  if (!outcome.resumeId && cwd) startLearning(api);
  const recording = record(api, agentId, {
    nonce,
    claudeSessionId: outcome.resumeId,
    requesterSessionKey: requesterKey,
    agentId,
    task: task || undefined,
    label: typeof params.label === 'string' ? params.label : undefined,
    cwd,
    repoPath: outcome.repoPath,
    mode: spawn.mode,
    resumed: Boolean(outcome.resumeId),
    decision: outcome.decision,
    startedAt: new Date(started).toISOString(),
  });
  if (outcome.waitMs > 0) await withinBudget(recording, outcome.waitMs);
  return Object.keys(outcome.patch).length ? { params: outcome.patch } : undefined;
}

/** @param {Api} api */
function registerSpawnPreflight(api) {
  // Whatever goes wrong, the spawn proceeds as asked: OpenClaw blocks a
  // call whose before_tool_call handler throws.
  api.on('before_tool_call', async (event, ctx) => {
    if (event.toolName !== 'sessions_spawn') return undefined;
    try {
      return await preflight(api, /** @type {any} */ (event), /** @type {any} */ (ctx));
    } catch (e) {
      api.logger.warn(`${PLUGIN_ID}: spawn pre-flight failed, the spawn proceeds as asked (${describe(coded(e))})`);
      return undefined;
    }
  }, { matcher: ['sessions_spawn'], timeoutMs: 14_000 });

  // The host's answer to the spawn (in the agent loop only: not after
  // tools.invoke). A refused spawn is over at once.
  api.on('after_tool_call', async (event, ctx) => {
    try {
      if (event.toolName !== 'sessions_spawn') return;
      const id = event.toolCallId ?? /** @type {any} */ (ctx)?.toolCallId;
      const s = [...spawns.values()].find((x) => id && x.toolCallId === id);
      if (!s) return;
      const details = /** @type {any} */ (event.result)?.details ?? {};
      if (typeof details.childSessionKey === 'string') {
        s.childSessionKey = details.childSessionKey;
        s.started = true;
      }
      if (event.error || (details.status && details.status !== 'accepted')) {
        endSpawn(s);
        s.closed = true;
        await record(api, s.agentId, { nonce: s.nonce, childSessionKey: s.childSessionKey, outcome: 'rejected', endedAt: new Date().toISOString() });
      } else if (s.childSessionKey) {
        await record(api, s.agentId, { nonce: s.nonce, childSessionKey: s.childSessionKey });
      }
    } catch (e) {
      api.logger.warn(`${PLUGIN_ID}: spawn result not tracked (${describe(coded(e))})`);
    }
  }, { matcher: ['sessions_spawn'] });

  api.on('subagent_progress', async (event, ctx) => {
    try {
      const key = event.childSessionKey;
      if (typeof key !== 'string' || !key.includes(':acp:')) return;
      let s = [...spawns.values()].find((x) => x.childSessionKey === key);
      if (!s && event.phase === 'started') {
        // The oldest spawn of this requester still waiting for its child,
        // among those started recently enough to be waiting still (one
        // OpenClaw refused fires no hook and never gets a child).
        const requester = ctx?.requesterSessionKey;
        s = [...spawns.values()].find((x) => !x.childSessionKey && !x.ended && Date.now() - x.startedAt < UNSEEN_START_MS
          && (!requester || !x.requesterSessionKey || x.requesterSessionKey === requester));
        if (s) {
          s.childSessionKey = key;
          s.started = true;
          await record(api, s.agentId, { nonce: s.nonce, childSessionKey: key });
        }
        return;
      }
      if (!s || event.phase !== 'ended') return;
      endSpawn(s);
      api.logger.info(`${PLUGIN_ID}: spawn ${s.nonce} (${key}) ended: ${event.outcome}`);
      await record(api, s.agentId, { nonce: s.nonce, childSessionKey: key, outcome: event.outcome, endedAt: new Date().toISOString() });
      if (!s.claudeSessionId) await learnSessions(api);
    } catch (e) {
      api.logger.warn(`${PLUGIN_ID}: spawn progress not tracked (${describe(coded(e))})`);
    }
  });

  api.on('subagent_ended', async (event) => {
    try {
      const s = [...spawns.values()].find((x) => x.childSessionKey === event.targetSessionKey);
      if (!s) return;
      const first = !s.ended;
      endSpawn(s);
      s.closed = true;
      if (first) await record(api, s.agentId, { nonce: s.nonce, outcome: event.outcome ?? event.reason, endedAt: new Date(event.endedAt ?? Date.now()).toISOString() });
    } catch (e) {
      api.logger.warn(`${PLUGIN_ID}: spawn end not tracked (${describe(coded(e))})`);
    }
  });
}

// ---------------------------------------------------------------- commands

const kb = (/** @type {number} */ n) => `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KB`;

/** @param {any} h */
function handoffLines(h) {
  const st = h.state;
  if (!st) return `No handoff${h.reason && h.reason !== 'no handoff captured' ? ` (${h.reason})` : ''}.`;
  return [
    `Handoff from ${st.previousSessionId} (${h.offerable ? 'will be offered to the next session' : h.reason}), expires ${st.expiresAt}`,
    `Last topic: ${st.summary.lastTopic || '(none)'}`,
    ...st.summary.inProgress.map((/** @type {string} */ t) => `In progress: ${t}`),
    ...st.summary.blockers.map((/** @type {string} */ b) => `Blocker: ${b}`),
    `Next step: ${st.summary.nextStep || '(none)'}`,
  ].join('\n');
}

/** @param {Api} api */
function registerCommands(api) {
  api.registerCommand({
    name: 'handoff',
    description: 'Handoff across /new and /reset: /handoff [status|resume|clear|capture]',
    acceptsArgs: true,
    async handler(ctx) {
      const agentId = ctx.agentId ?? 'main';
      const [sub = 'status', ...extra] = (ctx.args ?? '').trim().split(/\s+/).filter(Boolean);
      if (extra.length) return { text: `/handoff ${sub} takes no arguments.` };
      try {
        if (sub === 'status') {
          const r = await occ(['handoff', 'status', '--agent', agentId]);
          return { text: r.ok ? handoffLines(r.value) : `Handoff status unavailable: ${describe(r.error)}` };
        }
        if (sub === 'capture') {
          const r = await occ(['handoff', 'capture', ...(ctx.sessionId ? [ctx.sessionId] : []), '--trigger', 'manual', '--agent', agentId]);
          return { text: r.ok ? `Handoff captured from ${r.value.previousSessionId}: ${r.value.summary.lastTopic || 'no topic found'}.` : `Nothing captured: ${describe(r.error)}` };
        }
        const a = addon();
        const options = { agentId, stateDir: stateDir(), expiryHours: settings(api).handoffExpiryHours };
        if (sub === 'resume') {
          const state = await a.checkForHandoff({ ...options, force: true });
          return { text: state ? a.renderHandoffContext(state) : 'No handoff to resume.' };
        }
        if (sub === 'clear') return { text: (await a.clearHandoff(options)).cleared ? 'Handoff cleared.' : 'No handoff to clear.' };
        return { text: `Unknown /handoff ${sub}: use status, resume, clear or capture.` };
      } catch (e) {
        return { text: `/handoff ${sub} failed: ${describe(coded(e))}` };
      }
    },
  });

  api.registerCommand({
    name: 'clean',
    description: 'Strip old tool calls from this session to free context: /clean [default|aggressive|extreme] [--dry-run]',
    acceptsArgs: true,
    async handler(ctx) {
      const words = (ctx.args ?? '').trim().split(/\s+/).filter(Boolean);
      const dryRun = words.includes('--dry-run');
      const rest = words.filter((w) => w !== '--dry-run');
      const preset = rest[0] ?? settings(api).defaultPreset;
      if (rest.length > 1 || !PRESETS.includes(preset)) return { text: `Usage: /clean [${PRESETS.join('|')}] [--dry-run]` };
      if (!ctx.sessionId) return { text: 'No session to clean here.' };
      // The command's own message was written a moment ago: the quiet
      // period is waived, every other sign of a turn in progress still
      // refuses the edit.
      const r = await occ(['edit', ctx.sessionId, `--strip-tools=${preset}`, '--agent', ctx.agentId ?? 'main', '--quiet-ms', '0', ...(dryRun ? ['--dry-run'] : [])]);
      if (!r.ok) {
        if (r.error.code === 'E_SESSION_BUSY' || r.error.code === 'E_CONCURRENT_MODIFICATION') return { text: `Not cleaned now: ${r.error.message} Try again when the current turn has finished.` };
        return { text: `Not cleaned: ${describe(r.error)}` };
      }
      const s = r.value.statistics;
      if (!r.value.changed) return { text: `Nothing to strip with the ${preset} preset (${s.toolCallsOriginal} tool calls, all recent enough to keep).` };
      const what = `${s.toolCallsRemoved} tool call(s) removed, ${s.toolCallsTruncated} truncated, ${s.toolCallsPreserved} kept; ${kb(s.sizeOriginal)} → ${kb(s.sizeAfter)} (-${s.reductionPercent}%)`;
      return { text: dryRun ? `Dry run, nothing changed: ${what}.` : `Cleaned (${preset}): ${what}. Undo: openclaw occ restore ${r.value.sessionId}` };
    },
  });
}

// ---------------------------------------------------------------- CLI

/** @param {Api} api */
function registerCli(api) {
  api.registerCli(({ program }) => {
    program
      .command('occ')
      .description('The occ commands: clean, inspect, export and restore transcripts; handoff; Claude Code sessions (openclaw occ --help)')
      .helpOption(false)
      .allowUnknownOption(true)
      .allowExcessArguments(true)
      .argument('[args...]')
      .action(async (/** @type {string[]} */ args) => {
        const child = spawn(process.execPath, [OCC, ...args], { stdio: 'inherit', windowsHide: true });
        process.exitCode = await new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
      });
  }, { descriptors: [{ name: 'occ', description: 'Clean and inspect agent transcripts, handoff, Claude Code sessions', hasSubcommands: true }] });
}

export default {
  id: PLUGIN_ID,
  name: 'Session Intel',
  description: "Brief agents on a repository and its Claude Code sessions, pick resume or fresh, carry work across /new and /reset, and clean an agent's own context.",
  /** @param {Api} api */
  register(api) {
    registerTools(api);
    registerHooks(api);
    registerSpawnPreflight(api);
    registerCommands(api);
    registerCli(api);
    api.registerService({
      id: PLUGIN_ID,
      start(ctx) {
        serviceStateDir = ctx.stateDir;
        void relearn(api);
      },
      stop() {
        stopLearning();
      },
    });
  },
};
