// @ts-check
// The agent tools: `project_status`, `claude_code_sessions` and
// `select_session` brief an agent on a repository and its Claude Code
// sessions, `claude_code_spawns` tells what the Claude Code spawns of the
// gateway did (in-process, through the addon); `handoff_status` shows the
// captured handoff (through `occ`, as it reads the agent's transcript
// store). A failed call is returned, not thrown, with the addon's code and
// hint, so that the model or a `tools.invoke` client sees them.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addon, coded, describe, occ, stateDir } from './host.mjs';
import { settings } from './config.mjs';
import { NODE_COMMANDS } from './nodes/protocol.mjs';
import { NODES_PARAM, askNodesAbout, nodeSelection, sessionsAcrossHosts, statusAcrossHosts, toolRows } from './nodes/listing.mjs';

/** @typedef {import('./host.mjs').Api} Api */
/** @typedef {import('openclaw/plugin-sdk/plugin-entry').AnyAgentTool} AnyAgentTool */
/** @typedef {import('openclaw/plugin-sdk/plugin-entry').OpenClawPluginToolContext} ToolContext */

/**
 * A tool result: the payload as JSON text for the model, and as details.
 * @param {unknown} payload
 */
const toolOk = (payload) => ({ content: [{ type: /** @type {const} */ ('text'), text: JSON.stringify(payload, null, 2) }], details: payload });

/**
 * A failed call, as a result.
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
 * An optional string parameter: absent, or a non-empty string.
 * @param {Record<string, unknown>} params
 * @param {string} name
 * @returns {string | undefined}
 */
function optionalString(params, name) {
  const v = params[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.trim() === '') throw Object.assign(new Error(`${name} must be a non-empty string`), { code: 'E_INVALID_ARGUMENT', hint: `omit ${name}, or pass it as text` });
  return v;
}

/**
 * The query of `claude_code_spawns`: by repository, by requester, or one
 * spawn by its Claude session id, OpenClaw child key or nonce; with none
 * of them, the calling session's own spawns.
 * @param {Record<string, unknown>} params
 * @param {ToolContext} ctx
 */
function spawnQuery(params, ctx) {
  const repoPath = params.repoPath === undefined ? undefined : repositoryPath(params.repoPath, ctx);
  const one = { sessionId: optionalString(params, 'sessionId'), childSessionKey: optionalString(params, 'childSessionKey'), nonce: optionalString(params, 'nonce') };
  let requesterSessionKey = optionalString(params, 'requesterSessionKey');
  if (!repoPath && !requesterSessionKey && !one.sessionId && !one.childSessionKey && !one.nonce) requesterSessionKey = ctx.sessionKey;
  const limit = params.limit;
  if (limit !== undefined && !(Number.isInteger(limit) && /** @type {number} */ (limit) >= 1)) throw Object.assign(new Error('limit must be a positive integer'), { code: 'E_INVALID_ARGUMENT', hint: 'omit it for the default' });
  return { repoPath, requesterSessionKey, ...one, limit: /** @type {number | undefined} */ (limit) };
}

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

/**
 * Registers the agent tools.
 * @param {Api} api
 */
export function registerTools(api) {
  const discovery = () => ({ claudeConfigDir: settings(api).claudeConfigDir, registryRoot: stateDir() });
  const tools = [
    tool('project_status', 'Project status',
      'Brief yourself on a repository before working in it or spawning Claude Code: branch, head commit, uncommitted and staged changes, stashes, recent commits, the Claude Code sessions active and recent there, docs, and open pull requests; also the same repository on the paired OpenClaw nodes (remote), with a report of every host asked.',
      { properties: { repoPath: repoParam, nodes: NODES_PARAM }, required: ['repoPath'] },
      async ({ repoPath, nodes }, ctx) => {
        const a = addon();
        const repo = repositoryPath(repoPath, ctx);
        const started = Date.now();
        const remote = askNodesAbout(api, repo, NODE_COMMANDS.status, { selection: nodeSelection(nodes) });
        const local = a.projectStatusToolPayload(await a.gatherProjectStatus(repo, ctx.agentId, discovery()));
        const localMs = Date.now() - started;
        return statusAcrossHosts(local, localMs, await remote);
      }),
    tool('claude_code_sessions', 'Claude Code sessions',
      "A repository's Claude Code sessions, newest first: id, title or first prompt, when, turns, tokens and cost, whether one is running, which ones this gateway spawned, and which are worth slimming before they are resumed (worthSlimming; slimSavingsTokens: input tokens each resumed turn would no longer send); also those on the paired OpenClaw nodes (the same repository found by its remote or first commit, at any path), each with its host, and a report of every host asked.",
      { properties: { repoPath: repoParam, includeNative: { type: 'boolean', description: 'Include sessions OpenClaw did not spawn (default true).' }, nodes: NODES_PARAM }, required: ['repoPath'] },
      async ({ repoPath, includeNative, nodes }, ctx) => {
        const a = addon();
        const repo = repositoryPath(repoPath, ctx);
        const started = Date.now();
        const remote = askNodesAbout(api, repo, NODE_COMMANDS.sessions, { selection: nodeSelection(nodes), read: toolRows(includeNative ?? true) });
        const local = a.sessionListToolPayload(await a.discoverSessions(repo, discovery()), { includeNative: includeNative ?? true });
        const localMs = Date.now() - started;
        return sessionsAcrossHosts(repo, local, localMs, await remote);
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
    tool('claude_code_spawns', 'Claude Code spawns',
      "What the Claude Code spawns of this gateway did, newest first: the task, folder and state (starting, running, waiting: its answer given, ended, failed), Claude Code's final answer, the files changed and commits made since it started, tokens and cost, start, end and duration, and the git worktree and branch of a spawn isolated from a busy repository (commits ahead, uncommitted changes, kept or removed). Read it after a spawn's result was announced, or when it never was. By repository, by requester, or one spawn by its Claude session id, OpenClaw child session key or nonce; with none of them, this session's own spawns.",
      {
        properties: {
          repoPath: repoParam,
          requesterSessionKey: { type: 'string', description: 'The spawns this OpenClaw session requested.' },
          sessionId: { type: 'string', description: 'The spawn that ran this Claude Code session.' },
          childSessionKey: { type: 'string', description: "The spawn of this OpenClaw child session (agent:claude:acp:…)." },
          nonce: { type: 'string', description: 'The spawn of this nonce (its origin marker\'s spawn=).' },
          limit: { type: 'integer', minimum: 1, description: 'At most this many spawns.' },
        },
      },
      async (params, ctx) => ({
        spawns: await addon().spawnOutcomes({ agentId: ctx.agentId ?? 'main', stateDir: stateDir(), claudeConfigDir: settings(api).claudeConfigDir, ...spawnQuery(params, ctx) }),
      })),
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
