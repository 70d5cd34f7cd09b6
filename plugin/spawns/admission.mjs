// @ts-check
// The pre-flight of a Claude Code spawn, as the plugin runs it on the host's
// `before_tool_call` of `sessions_spawn`: which calls it takes, the addon's
// `preflightSpawn` (guards, continuation, briefing) with what the tracker
// knows, within the time budget, and the admission of the spawn it lets
// through (tracked, recorded, its session learned). Whatever goes wrong,
// the spawn proceeds: with its task and origin marker when the pre-flight
// failed or ran out of time, exactly as asked when the plugin cannot even
// tell a Claude Code spawn or load the addon.

import { randomBytes } from 'node:crypto';
import { PLUGIN_ID, addon, coded, describe, stateDir } from '../host.mjs';
import { settings } from '../config.mjs';
import { record } from './records.mjs';
import { startLearning } from './learning.mjs';
import { dropUnusedWorktree } from './worktrees.mjs';
import { slimAfterRun } from './slim-later.mjs';
import { askNodesForSpawn, remoteSection, reportsText } from '../nodes/briefing.mjs';

/** @typedef {import('../host.mjs').Api} Api */
/** @typedef {import('./tracker.mjs').SpawnTracker} SpawnTracker */
/** @typedef {import('./tracker.mjs').Spawn} Spawn */
/** @typedef {{ worktreePath: string, branch: string, baseCommit: string, reason: string }} SpawnIsolation the worktree the pre-flight isolated a spawn in (the addon's `SpawnIsolation`) */
/** @typedef {{ block: true, blockReason: string } | { params: Record<string, string> } | undefined} HookResult */

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
 * Whether the pre-flight takes a `sessions_spawn` call: it is on, and the
 * call starts Claude Code through ACP. Throws when OpenClaw's config
 * cannot be read.
 * @param {Api} api
 * @param {Record<string, any> | undefined} params
 */
export const takesSpawn = (api, params) => settings(api).spawnPreflight.enabled && isClaudeAcpSpawn(params ?? {}, /** @type {any} */ (api.config));

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
 * The pre-flight of one `sessions_spawn` call `takesSpawn` took: the hook's
 * result, or undefined to leave the call as it is. When the pre-flight
 * fails or runs past its budget, the spawn proceeds with its task and only
 * the origin marker after it (the part of the briefing ready at once), and
 * is tracked and recorded all the same.
 * @param {Api} api
 * @param {SpawnTracker} tracker
 * @param {{ params: Record<string, any>, toolCallId?: string }} event
 * @param {{ agentId?: string, sessionKey?: string, toolCallId?: string }} ctx
 * @returns {Promise<HookResult>}
 */
export async function preflight(api, tracker, event, ctx) {
  const p = settings(api).spawnPreflight;
  const params = event.params ?? {};
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
  const started = tracker.now();
  const budgetMs = p.budgetMs ?? tracker.policy.preflightBudgetMs;
  const nonce = randomBytes(8).toString('hex');
  // The reservation, made before the first await: a pre-flight of the same
  // instant (several spawns in one answer of the model run their
  // pre-flights at once) sees this spawn in flight, so that two spawns
  // into one idle repository never both get its working tree.
  const spawn = tracker.track({
    nonce,
    agentId,
    requesterSessionKey: requesterKey,
    toolCallId: event.toolCallId ?? ctx.toolCallId,
    cwd,
    mode: params.mode === 'session' ? 'session' : 'run',
    startedAt: started,
    claudeSessionId: askedResume,
  });
  const facts = tracker.facts(requesterKey, nonce);
  try {
    return await decide(api, tracker, { spawn, params, task, workspace, budgetMs, facts });
  } catch (e) {
    // The spawn proceeds as asked, unmarked: it cannot be tracked.
    tracker.forget(nonce);
    throw e;
  }
}

/**
 * The pre-flight's decision on a reserved spawn, and its admission when it
 * is let through (see `preflight`).
 * @param {Api} api
 * @param {SpawnTracker} tracker
 * @param {{ spawn: Spawn, params: Record<string, any>, task: string, workspace: string | undefined, budgetMs: number, facts: ReturnType<SpawnTracker['facts']> }} asked
 * @returns {Promise<HookResult>}
 */
async function decide(api, tracker, { spawn, params, task, workspace, budgetMs, facts }) {
  const config = settings(api);
  const p = config.spawnPreflight;
  const { nonce, agentId, cwd, startedAt: started } = spawn;
  const askedResume = spawn.claudeSessionId;
  /** @type {any} */
  let result;
  /** @type {unknown} */
  let failure;
  /** @type {Promise<any> | undefined} */
  let answer;
  // The paired nodes are asked meanwhile, done a little before the budget
  // so that their section is added within it.
  const remote = p.briefing?.enabled === false ? undefined : askNodesForSpawn(api, cwd, Date.now() + budgetMs - Math.min(250, budgetMs / 5));
  try {
    /** @type {Promise<any>} */
    const pending = addon().preflightSpawn(
      { task, cwd, resumeSessionId: askedResume, label: typeof params.label === 'string' ? params.label : undefined, agentId, requesterWorkspace: workspace },
      {
        claudeConfigDir: config.claudeConfigDir,
        registryRoot: stateDir(),
        briefing: p.briefing?.enabled,
        briefingMaxChars: p.briefing?.maxChars,
        ...p.guards,
        continuationResume: p.continuation?.resume,
        continuationContext: p.continuation?.context,
        slimOverMb: p.continuation?.slimOverMb,
        ...facts,
        busyWindowMs: p.busyWindowSeconds === undefined ? undefined : p.busyWindowSeconds * 1000,
        githubTimeoutMs: p.githubTimeoutMs,
        isolation: p.isolation,
        budgetMs,
        nonce,
      },
    );
    answer = pending;
    result = await withinBudget(pending, budgetMs);
  } catch (e) {
    failure = e;
  }
  const took = tracker.now() - started;
  // An answer that came after the budget counts as an overrun even when it
  // won the race (a timer due in 1 ms may run after an answer that took 2).
  if (!failure && took > budgetMs) result = OVERRUN;
  if (failure || result === OVERRUN) {
    // A worktree the late answer made is not where this spawn runs.
    if (answer) dropUnusedWorktree(api, answer);
    // Without the addon this throws, and the spawn passes exactly as asked.
    const marked = addon().markSpawnTask(task, agentId, nonce);
    api.logger.warn(failure
      ? `${PLUGIN_ID}: spawn pre-flight failed, the spawn proceeds with its task and origin marker only (${describe(coded(failure))})`
      : `${PLUGIN_ID}: spawn pre-flight took longer than ${budgetMs} ms, the spawn proceeds with its task and origin marker only`);
    return admit(api, tracker, spawn, { params, task, decision: failure ? 'failed' : 'overrun', patch: { task: marked }, waitMs: 0 });
  }
  for (const w of result.warnings) api.logger.warn(`${PLUGIN_ID}: spawn pre-flight warning (${result.guard}): ${w}`);
  if (result.block) {
    tracker.forget(nonce);
    api.logger.info(`${PLUGIN_ID}: spawn pre-flight block (${result.guard}) in ${took} ms: ${result.reason}`);
    return { block: true, blockReason: result.reason };
  }
  api.logger.info(`${PLUGIN_ID}: spawn pre-flight ${result.decision} ${nonce} in ${took} ms: ${result.reason}`);
  if (!result.params) {
    // Nothing to add (no origin marker): the spawn is not tracked.
    tracker.forget(nonce);
    return undefined;
  }
  /** @type {Record<string, string>} */
  const patch = {};
  if (result.params.task) patch.task = await withRemoteWork(api, task, result.params.task, remote, { ms: budgetMs - (tracker.now() - started), elapsed: () => tracker.now() - started });
  if (result.params.resumeSessionId) patch.resumeSessionId = result.params.resumeSessionId;
  if (result.params.cwd) patch.cwd = result.params.cwd;
  if (result.resumeSlim?.deferred) {
    api.logger.info(`${PLUGIN_ID}: spawn ${nonce}: ${result.resumeSlim.skipped}`);
    slimAfterRun(api, tracker, { nonce, sessionId: result.resumeSlim.sessionId, claudeConfigDir: config.claudeConfigDir });
  }
  const isolation = result.isolation ?? undefined;
  if (isolation) api.logger.info(`${PLUGIN_ID}: spawn ${nonce} isolated in worktree ${isolation.worktreePath} on branch ${isolation.branch}: ${isolation.reason}`);
  return admit(api, tracker, spawn, {
    params,
    task,
    decision: result.decision,
    repoPath: result.repoPath,
    baseCommit: isolation?.baseCommit ?? result.baseCommit ?? undefined,
    isolation,
    patch,
    waitMs: budgetMs - (tracker.now() - started),
  });
}

/**
 * The task Claude Code receives (`briefed`: the task, origin marker and
 * briefing) with the section on Claude Code work on the same repository
 * on paired nodes after it, when they answered within `ms`; the nodes'
 * reports go to the gateway log. Never throws: without the section the
 * task is `briefed`.
 * @param {Api} api
 * @param {string} task the task as asked
 * @param {string} briefed
 * @param {Promise<import('../nodes/briefing.mjs').RemoteWork> | undefined} remote
 * @param {{ ms: number, elapsed: () => number }} time the time left, and the pre-flight's time so far
 */
async function withRemoteWork(api, task, briefed, remote, { ms, elapsed }) {
  if (!remote) return briefed;
  try {
    const work = await withinBudget(remote, ms);
    if (work === OVERRUN) {
      api.logger.warn(`${PLUGIN_ID}: spawn pre-flight: the paired nodes did not answer within the budget`);
      return briefed;
    }
    if (work.reports.length) api.logger.info(`${PLUGIN_ID}: spawn pre-flight asked the paired nodes (done ${elapsed()} ms after it started): ${reportsText(work.reports)}`);
    const section = remoteSection(api, task, work);
    return section ? `${briefed}\n${section}` : briefed;
  } catch (e) {
    api.logger.warn(`${PLUGIN_ID}: spawn pre-flight: the paired nodes' section failed (${describe(coded(e))})`);
    return briefed;
  }
}

/**
 * Lets a reserved spawn through: tracks it from now to its end (for the
 * busy guard, continuation, learning its Claude Code session and finishing
 * its worktree) as the host will run it (in the worktree the pre-flight
 * isolated it in, if any), records it, and returns the hook's result. The
 * record is written within `waitMs`; a slow disk finishes it in the
 * background.
 * @param {Api} api
 * @param {SpawnTracker} tracker
 * @param {Spawn} spawn the reservation
 * @param {{ params: Record<string, any>, task: string, decision: string, repoPath?: string, baseCommit?: string, isolation?: SpawnIsolation, patch: Record<string, string>, waitMs: number }} outcome
 * @returns {Promise<HookResult>}
 */
async function admit(api, tracker, spawn, outcome) {
  const { params, task, isolation } = outcome;
  spawn.cwd = outcome.patch.cwd ?? spawn.cwd;
  spawn.repoPath = outcome.repoPath;
  spawn.claudeSessionId = outcome.patch.resumeSessionId ?? spawn.claudeSessionId;
  if (isolation) spawn.worktree = { path: isolation.worktreePath, branch: isolation.branch };
  const { nonce, agentId, requesterSessionKey, cwd, startedAt } = spawn;
  const resumeId = spawn.claudeSessionId;
  if (!resumeId && cwd) startLearning(api, tracker);
  const recording = record(api, agentId, {
    nonce,
    claudeSessionId: resumeId,
    requesterSessionKey,
    agentId,
    task: task || undefined,
    label: typeof params.label === 'string' ? params.label : undefined,
    cwd,
    repoPath: outcome.repoPath,
    mode: spawn.mode,
    resumed: Boolean(resumeId),
    decision: outcome.decision,
    startedAt: new Date(startedAt).toISOString(),
    baseCommit: outcome.baseCommit,
    worktreePath: isolation?.worktreePath,
    worktreeBranch: isolation?.branch,
    finalState: tracker.hostState(spawn),
  });
  if (outcome.waitMs > 0) await withinBudget(recording, outcome.waitMs);
  return Object.keys(outcome.patch).length ? { params: outcome.patch } : undefined;
}
