// @ts-check
// The commands: `/handoff`, `/clean` and `/worktrees` in chat, and
// `openclaw occ` on the command line. What reads or edits the agent's
// transcript store runs in a child `occ`.

import { addon, coded, describe, occ, occOnTerminal, stateDir } from './host.mjs';
import { PRESETS, settings } from './config.mjs';

/** @typedef {import('./host.mjs').Api} Api */

const kb = (/** @type {number} */ n) => `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KB`;

/** `/handoff status` as chat lines. @param {any} h */
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

/** The presets of `occ cc slim`. */
const SLIM_PRESETS = ['default', 'aggressive'];

/**
 * `/slim <Claude Code session id> [default|aggressive] [--dry-run|--restore]`:
 * slims a Claude Code session's transcript in place (in a child `occ`), so
 * resuming it re-sends less; `--restore` undoes it.
 * @param {string} args
 */
async function slimCommand(args) {
  const words = args.trim().split(/\s+/).filter(Boolean);
  const flags = words.filter((w) => w.startsWith('--'));
  const [id, preset = 'default', ...extra] = words.filter((w) => !w.startsWith('--'));
  const usage = { text: `Usage: /slim <Claude Code session id> [${SLIM_PRESETS.join('|')}] [--dry-run|--restore]` };
  if (!id || extra.length || !SLIM_PRESETS.includes(preset) || flags.some((f) => f !== '--dry-run' && f !== '--restore') || flags.length > 1) return usage;
  if (flags[0] === '--restore') {
    const r = await occ(['cc', 'slim', id, '--restore']);
    return { text: r.ok ? `Restored ${r.value.sessionId} from ${r.value.restoredFrom}.` : `Not restored: ${describe(r.error)}` };
  }
  const r = await occ(['cc', 'slim', id, '--preset', preset, ...flags]);
  if (!r.ok) return { text: `Not slimmed: ${describe(r.error)}` };
  const v = r.value;
  const s = v.stats;
  if (!v.changed) return { text: `Nothing to slim in ${v.sessionId} with the ${preset} preset.` };
  const what = `${s.imagesRemoved} image(s) replaced, ${s.toolResultsCut} long tool result(s) cut, ${s.linesDropped} progress line(s) dropped; ${kb(v.sizeOriginal)} → ${kb(v.sizeAfter)} (-${v.reductionPercent}%), about ${v.estimatedInputTokensSaved} fewer input tokens per resumed turn`;
  return { text: v.dryRun ? `Dry run, nothing changed: ${what}.` : `Slimmed ${v.sessionId}: ${what}. Undo: /slim ${v.sessionId} --restore` };
}

/** One kept spawn worktree as a chat line. @param {any} w */
const worktreeLine = (w) => `${w.path}: branch ${w.branch}, ${w.commitsAhead} commit(s) beyond ${String(w.baseCommit).slice(0, 7)}, ${w.dirty ? 'uncommitted changes' : 'clean'}${w.merged ? ', merged' : ''}${w.inUse ? ', in use by a running Claude Code' : ''}`;

/** Why prune kept a worktree, for a chat line. @param {any} w */
const keptBecause = (w) => (w.inUse ? 'a Claude Code session runs in it' : w.dirty ? 'uncommitted changes' : w.commitsAhead && !w.merged ? 'unmerged commits' : 'kept');

/**
 * `/worktrees [list|prune] [<repository>] [--force] [<worktree>…]`: the
 * words as a request, or a usage error.
 * @param {string} args
 * @returns {{ sub: 'list' | 'prune', repo?: string, force: boolean, paths: string[] } | { usage: string }}
 */
export function worktreesRequest(args) {
  const usage = 'Usage: /worktrees [list] [<repository>] | /worktrees prune [<repository>] [--force] [<worktree>...]';
  const words = args.trim().split(/\s+/).filter(Boolean);
  const sub = words[0] === 'list' || words[0] === 'prune' ? words.shift() : 'list';
  const force = words.includes('--force');
  const rest = words.filter((w) => w !== '--force');
  if (rest.some((w) => w.startsWith('-'))) return { usage };
  if (sub === 'list' && (force || rest.length > 1)) return { usage };
  const [repo, ...paths] = rest;
  // Work is removed regardless only in a repository named on purpose.
  if (force && !repo) return { usage: `${usage}\n--force removes uncommitted and unmerged work: name the repository.` };
  return { sub: /** @type {'list' | 'prune'} */ (sub), repo, force, paths };
}

/**
 * The repositories whose spawns this agent isolated in worktrees, from its
 * spawn records.
 * @param {string} agentId
 * @returns {Promise<string[]>}
 */
async function isolatedRepositories(agentId) {
  /** @type {Array<{ worktreePath?: string, repoPath?: string }>} */
  const records = await addon().listSpawns(agentId, stateDir());
  return [...new Set(records.filter((r) => r.worktreePath && r.repoPath).map((r) => /** @type {string} */ (r.repoPath)))];
}

/**
 * Registers `/handoff`, `/clean`, `/worktrees` and `/slim`.
 * @param {Api} api
 */
export function registerCommands(api) {
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
      if (rest.length > 1 || !(/** @type {readonly string[]} */ (PRESETS)).includes(preset)) return { text: `Usage: /clean [${PRESETS.join('|')}] [--dry-run]` };
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

  api.registerCommand({
    name: 'worktrees',
    description: 'The git worktrees Claude Code spawns were isolated in and kept: /worktrees [list] [<repository>], /worktrees prune [<repository>] [--force] [<worktree>...]',
    acceptsArgs: true,
    async handler(ctx) {
      const request = worktreesRequest(ctx.args ?? '');
      if ('usage' in request) return { text: request.usage };
      try {
        const a = addon();
        // Claude Code's liveness records tell a worktree still in use.
        const { claudeConfigDir } = settings(api);
        const repos = request.repo ? [request.repo] : await isolatedRepositories(ctx.agentId ?? 'main');
        if (!repos.length) return { text: 'No spawn of this agent was isolated in a worktree. Name a repository: /worktrees <repository>' };
        const lines = [];
        for (const repo of repos) {
          if (request.sub === 'list') {
            const kept = await a.listSpawnWorktrees(repo, { claudeConfigDir });
            lines.push(kept.length ? `${repo}: ${kept.length} kept worktree(s)` : `${repo}: no kept worktree`, ...kept.map(worktreeLine));
            continue;
          }
          /** @type {any[]} */
          const pruned = await a.pruneSpawnWorktrees(repo, { force: request.force, paths: request.paths.length ? request.paths : undefined, claudeConfigDir });
          const removed = pruned.filter((w) => w.removed);
          const kept = pruned.filter((w) => !w.removed);
          lines.push(`${repo}: ${removed.length} removed, ${kept.length} kept`, ...removed.map((w) => `removed ${w.path} (branch ${w.branch})`),
            ...kept.map((w) => `kept ${worktreeLine(w)}: ${keptBecause(w)}; merge it, or /worktrees prune ${repo} --force ${w.path}`));
        }
        return { text: lines.join('\n') };
      } catch (e) {
        return { text: `/worktrees ${request.sub} failed: ${describe(coded(e))}` };
      }
    },
  });
  registerSlimCommand(api);
}

/**
 * Registers `/slim`.
 * @param {Api} api
 */
function registerSlimCommand(api) {
  api.registerCommand({
    name: 'slim',
    description: 'Cut images and long tool output from a Claude Code session so resuming it costs less: /slim <id> [default|aggressive] [--dry-run|--restore]',
    acceptsArgs: true,
    async handler(ctx) {
      try {
        return await slimCommand(ctx.args ?? '');
      } catch (e) {
        return { text: `/slim failed: ${describe(coded(e))}` };
      }
    },
  });
}

/**
 * Registers `openclaw occ`: every `occ` command, with no second binary to
 * install.
 * @param {Api} api
 */
export function registerCli(api) {
  api.registerCli(({ program }) => {
    program
      .command('occ')
      .description('The occ commands: clean, inspect, export and restore transcripts; handoff; Claude Code sessions (openclaw occ --help)')
      .helpOption(false)
      .allowUnknownOption(true)
      .allowExcessArguments(true)
      .argument('[args...]')
      .action(async (/** @type {string[]} */ args) => {
        process.exitCode = await occOnTerminal(args);
      });
  }, { descriptors: [{ name: 'occ', description: 'Clean and inspect agent transcripts, handoff, Claude Code sessions', hasSubcommands: true }] });
}
