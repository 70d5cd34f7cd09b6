#!/usr/bin/env node
// occ: the OpenClaw context cleaner and Claude Code session tools, over the
// openclaw-session-intel addon. Results on stdout (--json: the addon's result
// objects as they are), errors on stderr with a hint, distinct exit codes.

import path from 'node:path';
import { createRequire } from 'node:module';
import { UsageError, loadConfig } from './occ-config.mjs';
import { SLIM_SWITCHES, SLIM_VALUE_FLAGS, ccSlim } from './occ-slim.mjs';

const require = createRequire(import.meta.url);
/** The addon, loaded only by commands that need it. */
const addon = () => require('../entry.js');

/** Exit codes by error code. */
const EXIT = {
  E_INVALID_ARGUMENT: 2, E_UNKNOWN_PRESET: 2, E_PARSE: 2,
  E_SESSION_NOT_FOUND: 3, E_AGENT_NOT_FOUND: 3, E_NO_SESSIONS: 3, E_NO_BACKUP: 3, E_REPO_NOT_FOUND: 3, E_TRANSCRIPT_UNAVAILABLE: 3,
  E_AMBIGUOUS_SESSION: 4,
  E_SESSION_BUSY: 5, E_CONCURRENT_MODIFICATION: 5,
  E_UNSUPPORTED_STORE: 6,
};

const QUICKSTART = `occ - OpenClaw Context Cleaner

WHEN TO USE:
  Running low on context? Clean up old tool calls to keep working.

PRESETS:
  default     Keep 20 recent turns with tools, truncate half
  aggressive  Keep 10 recent turns, truncate half
  extreme     Remove all tool calls

COMMON COMMANDS:
  occ edit --strip-tools           Edit current session (auto-detect)
  occ edit abc123 --strip-tools    Edit specific session
  occ clone <id> --strip-tools     Clone instead of edit
  occ list                         Show available sessions
  occ info <id>                    Analyze session before cleaning
  occ restore <id>                 Undo last edit from backup
  occ export <id> -o file.jsonl    Save a session as JSONL

FLAGS:
  --json       Machine-readable output
  --verbose    Detailed statistics
  --help       Full documentation`;

const HELP = `usage: occ <command> [options]

OpenClaw transcripts, in JSONL files (OpenClaw up to 2026.7) or the agent's SQLite
database (2026.8 and later); agent from --agent, $OCC_AGENT, the config file, else "main":
  occ list [-n <count>]                       sessions of the agent, newest first
  occ info <id>                               what a session holds
  occ edit [id] --strip-tools[=<preset>]      strip old tool calls in place (backup first)
      [--dry-run] [--verbose] [--quiet-ms <ms>]   (quiet period of a running gateway; default 10000)
  occ clone <id> [--strip-tools[=<preset>]]   copy into a new session
      [-o <path>] [--no-register]
  occ restore <id>                            undo the last edit from its backup
  occ export <id> [-o <file>]                 the session as JSONL (stdout, or a new file)

Session handoff (what you were doing, for your next session):
  occ handoff capture [id] [--project <name>] capture where the session left off
      [--trigger <why>]                       reset, new, stop (or OpenClaw's command:reset...), manual
  occ handoff status                          the captured handoff and its files
  occ handoff resume                          print the context block (offers it now)
  occ handoff clear                           discard the handoff

Claude Code sessions of a repository (default: the current directory):
  occ cc sessions [repo]                      sessions, newest first
  occ cc status [repo]                        the pre-flight project briefing
  occ cc select "<task>" [repo]               resume or fresh for a task
  occ cc slim <id> [--preset <name>] [--dry-run]  cut images and long tool output from a session
      [--fork [--title <t>]] [--restore]       (backup kept; --fork writes a new session; --restore undoes)

Options:
  --agent <id>        agent id                 --state-dir <dir>   OpenClaw state dir
  --json              result objects as JSON   --verbose           more detail
  --quickstart        a short guide            --help              this text

Ids may be unique prefixes or session keys (agent:main:main, or just main); without an id,
edit takes the most recent session. SQLite sessions are edited only while idle: with a gateway
running, not during a turn. Backups of SQLite sessions are JSONL files in
<state>/agents/<agent>/session-intel-backups/.
Presets: default (keep 20 turns with tools, truncate half), aggressive (10), extreme (0),
or your own in occ.config.json / .occrc: {"agent", "stateDir", "preset", "presets": {name: {keepTurnsWithTools, truncatePercent}}}.
Precedence: flags > $OCC_AGENT, $OCC_STATE_DIR, $OCC_PRESET > config file > defaults.

Exit codes: 0 ok, 1 internal, 2 invalid input or unreadable transcript, 3 not found (or a
transcript in a cold archive or without events), 4 ambiguous id, 5 busy, 6 unsupported store.`;

/** --quiet-ms as a number of milliseconds, when given. */
function quietMs(flags) {
  const raw = flags['--quiet-ms'];
  if (raw === undefined) return undefined;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 0 || ms > 3_600_000) throw new UsageError(`--quiet-ms must be a whole number of milliseconds (got ${raw})`);
  return ms;
}

/** Refuses arguments past the `count` that `command` takes (`what`). */
function atMost(count, args, command, what, hint) {
  if (args.length > count) throw new UsageError(`${command} takes ${what} (got ${args.join(' ')})`, hint);
}

/** argv → { positional, flags }. */
function parseArgs(argv) {
  const flags = {};
  const positional = [];
  const takesValue = new Set(['--agent', '--state-dir', '-n', '-o', '--project', '--trigger', '--quiet-ms', ...SLIM_VALUE_FLAGS]);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('-') && a !== '-') {
      const [name, inline] = a.split(/=(.*)/s);
      if (takesValue.has(name)) {
        const value = inline ?? argv[++i];
        if (value === undefined) throw new UsageError(`${name} needs a value`);
        flags[name] = value;
      } else if (['--json', '--verbose', '--help', '--quickstart', '--no-register', '--dry-run', '--strip-tools', ...SLIM_SWITCHES].includes(name)) {
        flags[name] = inline ?? true;
      } else {
        throw new UsageError(`unknown option ${name}`);
      }
    } else {
      positional.push(a);
    }
  }
  return { positional, flags };
}

/** Settings with their precedence: flags > environment > config file > defaults. */
function settings(flags) {
  const config = loadConfig(process.cwd());
  const pick = (flag, env, key, fallback) => flags[flag] ?? process.env[env] ?? config[key] ?? fallback;
  const stripFlag = flags['--strip-tools'];
  return {
    agentId: pick('--agent', 'OCC_AGENT', 'agent', 'main'),
    stateDir: pick('--state-dir', 'OCC_STATE_DIR', 'stateDir', undefined),
    preset: typeof stripFlag === 'string' ? stripFlag : process.env.OCC_PRESET ?? config.preset ?? 'default',
    customPresets: Object.entries(config.presets ?? {}).map(([name, p]) => ({ name, keepTurnsWithTools: p.keepTurnsWithTools, truncatePercent: p.truncatePercent })),
  };
}

function ago(date, now = Date.now()) {
  const s = Math.max(0, Math.round((now - new Date(date).getTime()) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}
function size(bytes) {
  if (bytes >= 2 ** 20) return `${(bytes / 2 ** 20).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} B`;
}
const pct = (before, after) => (before > 0 ? Math.round(((before - after) / before) * 100) : 0);
const compact = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(n));
function table(rows, headers) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join('  ').trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}
const print = (json, value, human) => console.log(json ? JSON.stringify(value, null, 2) : human());

function statsLines(s, verbose, turns) {
  const after = s.messagesAfter ?? s.messagesCloned;
  const sizeAfter = s.sizeAfter ?? s.sizeCloned;
  if (!verbose) {
    return [
      `  Messages: ${s.messagesOriginal} → ${after} (${pct(s.messagesOriginal, after)}% reduction)`,
      `  Tool calls: ${s.toolCallsRemoved} removed, ${s.toolCallsTruncated} truncated, ${s.toolCallsPreserved} preserved`,
      `  Size: ${size(s.sizeOriginal)} → ${size(sizeAfter)} (${Math.round(s.reductionPercent)}% reduction)`,
    ];
  }
  const zone = (z) => (turns ?? []).filter((t) => t.zone === z).map((t) => t.turnIndex);
  const span = (list) => (list.length ? ` (turns ${list[0]}-${list[list.length - 1]})` : '');
  return [
    '', 'Statistics:',
    `  Messages:     ${s.messagesOriginal} → ${after} (${pct(s.messagesOriginal, after)}% reduction)`,
    `  Tool calls:   ${s.toolCallsOriginal} total`,
    `                ${s.toolCallsRemoved} removed (oldest turns)`,
    `                ${s.toolCallsTruncated} truncated (middle turns)`,
    `                ${s.toolCallsPreserved} preserved (recent turns)`,
    `  Size:         ${size(s.sizeOriginal)} → ${size(sizeAfter)} (${Math.round(s.reductionPercent)}% reduction)`,
    '', 'Turn Analysis:',
    `  Total turns with tools: ${s.turnsWithToolsTotal ?? zone('removed').length + zone('truncated').length + zone('preserved').length}`,
    `  Turns removed: ${zone('removed').length}${span(zone('removed'))}`,
    `  Turns truncated: ${zone('truncated').length}${span(zone('truncated'))}`,
    `  Turns preserved: ${zone('preserved').length}${span(zone('preserved'))}`,
    '',
  ];
}

const commands = {
  async list({ positional, flags }, s) {
    const limit = flags['-n'] === undefined ? undefined : Number(flags['-n']);
    if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) throw new UsageError(`-n takes a positive whole number, not ${flags['-n']}`);
    atMost(0, positional, 'list', 'no arguments');
    const list = await addon().listTranscripts({ agentId: s.agentId, stateDir: s.stateDir, limit });
    print(flags['--json'], list, () => {
      if (!list.length) return `No sessions for agent ${s.agentId}.`;
      const state = (t) => (t.availability === 'available' ? '' : t.availability);
      const rows = list.map((t) => [t.sessionId.slice(0, 8), ago(t.modified), size(t.sizeBytes), state(t), t.label ?? t.displayName ?? t.sessionKeys[0] ?? t.windowKey ?? '', flags['--verbose'] ? t.path : '']);
      return table(rows, ['SESSION', 'MODIFIED', 'SIZE', 'STATE', 'NAME', flags['--verbose'] ? 'PATH' : '']);
    });
  },
  async info({ positional, flags }, s) {
    const [id] = positional;
    atMost(1, positional, 'info', 'one session id');
    if (!id) throw new UsageError('info needs a session id', "run 'occ list' to see the session ids");
    const i = await addon().transcriptInfo(id, { agentId: s.agentId, stateDir: s.stateDir });
    print(flags['--json'], i, () => [
      `Session ${i.sessionId}`,
      `  Path: ${i.path}`,
      `  Size: ${size(i.sizeBytes)}, modified ${ago(i.modified)}`,
      `  Messages: ${i.messageCount} (${Object.entries(i.messagesByRole).map(([r, n]) => `${n} ${r}`).join(', ')})`,
      `  Tool calls: ${i.toolCallCount}, tool results: ${i.toolResultCount}`,
      `  Turns: ${i.turnCount} (${i.turnsWithTools} with tools), compactions: ${i.compactionCount}`,
      `  Estimated tokens: ${compact(i.estimatedTokens)}`,
    ].join('\n'));
  },
  async edit({ positional, flags }, s) {
    atMost(1, positional, 'edit', 'at most one session id');
    if (!flags['--strip-tools']) throw new UsageError('edit needs --strip-tools[=<preset>]', "e.g. 'occ edit --strip-tools' or 'occ edit <id> --strip-tools=aggressive'");
    const r = await addon().executeEdit({ sessionId: positional[0], agentId: s.agentId, stateDir: s.stateDir, toolRemoval: { preset: s.preset }, customPresets: s.customPresets, dryRun: Boolean(flags['--dry-run']), quietMs: quietMs(flags) });
    print(flags['--json'], r, () => {
      const head = r.dryRun ? `Dry run (nothing written): ${r.sessionId}` : r.changed ? `✓ Session edited: ${r.sessionId}` : `✓ Nothing to strip: ${r.sessionId}`;
      const tail = r.backupPath ? [`${flags['--verbose'] ? '' : '  '}Backup: ${r.backupPath}`] : [];
      return [head, ...statsLines(r.statistics, flags['--verbose'], r.turns), ...tail].join('\n');
    });
  },
  async clone({ positional, flags }, s) {
    const [id] = positional;
    atMost(1, positional, 'clone', 'one session id');
    if (!id) throw new UsageError('clone needs a session id', "run 'occ list' to see the session ids");
    const r = await addon().executeClone({
      sessionId: id, agentId: s.agentId, stateDir: s.stateDir, customPresets: s.customPresets,
      toolRemoval: flags['--strip-tools'] ? { preset: s.preset } : undefined,
      outputPath: flags['-o'] ? path.resolve(flags['-o']) : undefined, noRegister: Boolean(flags['--no-register']),
    });
    print(flags['--json'], r, () => [`✓ Session cloned: ${r.sourceSessionId} → ${r.clonedSessionId}`, ...statsLines(r.statistics, flags['--verbose']), `  Path: ${r.clonedSessionPath}`, ...(r.sessionKey ? [`  Registered as: ${r.sessionKey}`] : [])].join('\n'));
  },
  async restore({ positional, flags }, s) {
    const [id] = positional;
    atMost(1, positional, 'restore', 'one session id');
    if (!id) throw new UsageError('restore needs a session id', "run 'occ list' to see the session ids");
    const r = await addon().restoreFromBackup(id, { agentId: s.agentId, stateDir: s.stateDir });
    print(flags['--json'], r, () => [`✓ Session restored: ${r.sessionId}`, `  From: ${r.restoredFrom}`, `  Previous content kept as: ${r.replacedBackup} (run restore again to undo)`].join('\n'));
  },
  async export({ positional, flags }, s) {
    const [id] = positional;
    atMost(1, positional, 'export', 'one session id');
    if (!id) throw new UsageError('export needs a session id', "run 'occ list' to see the session ids");
    const outputPath = flags['-o'] ? path.resolve(flags['-o']) : undefined;
    const r = await addon().exportTranscript(id, { agentId: s.agentId, stateDir: s.stateDir, outputPath });
    if (!outputPath && !flags['--json']) return process.stdout.write(r.jsonl);
    print(flags['--json'], r, () => `✓ Session exported: ${r.sessionId}\n  ${r.eventCount} events, ${size(r.bytes)} → ${r.path}`);
  },
  async handoff({ positional, flags }, s) {
    const [sub, ...rest] = positional;
    const opts = { agentId: s.agentId, stateDir: s.stateDir };
    const summaryLines = (st) => [
      `  Project: ${st.project}  Captured: ${st.updatedAt}  Expires: ${st.expiresAt}`,
      `  Last topic: ${st.summary.lastTopic || '(none)'}`,
      ...st.summary.inProgress.map((t) => `  In progress: ${t}`),
      ...st.summary.blockers.map((b) => `  Blocker: ${b}`),
      ...st.summary.decisions.map((d) => `  Decision: ${d}`),
      `  Next step: ${st.summary.nextStep || '(none)'}`,
    ];
    if (sub === 'capture') {
      atMost(1, rest, 'handoff capture', 'at most one session id');
      const st = await addon().captureHandoff({ ...opts, sessionId: rest[0], trigger: flags['--trigger'] ?? 'manual', project: flags['--project'] });
      return print(flags['--json'], st, () => [`✓ Handoff captured from ${st.previousSessionId}`, ...summaryLines(st), `  Patterns: ${st.patterns.length}`].join('\n'));
    }
    atMost(0, rest, `handoff ${sub}`, 'no arguments');
    if (sub === 'status') {
      const h = await addon().handoffStatus(opts);
      return print(flags['--json'], h, () => {
        if (!h.state) return `No handoff for agent ${s.agentId}${h.reason === 'no handoff captured' ? '' : ` (${h.reason})`}.`;
        const intact = h.transcriptIntact === null ? 'unreadable' : h.transcriptIntact ? 'unchanged' : 'rewritten since';
        return [`Handoff from ${h.state.previousSessionId} (${h.offerable ? 'will be offered' : h.reason})`, ...summaryLines(h.state), `  Transcript: ${intact}; ${h.snapshotCount} snapshot(s), ${h.patternFileCount} pattern file(s) in ${h.dir}`].join('\n');
      });
    }
    if (sub === 'resume') {
      const st = await addon().checkForHandoff({ ...opts, force: true });
      return print(flags['--json'], st, () => (st ? addon().renderHandoffContext(st) : `No handoff to resume for agent ${s.agentId}.`));
    }
    if (sub === 'clear') {
      const r = await addon().clearHandoff(opts);
      return print(flags['--json'], r, () => (r.cleared ? '✓ Handoff cleared.' : 'No handoff to clear.'));
    }
    throw new UsageError(`unknown command "handoff ${sub ?? ''}"`.trim(), 'use occ handoff capture|status|resume|clear');
  },
  async cc({ positional, flags }, s) {
    const [sub, ...rest] = positional;
    // The registries of the sessions OpenClaw spawned live in the same state dir as its transcripts.
    const discovery = { registryRoot: s.stateDir };
    if (sub === 'sessions' || sub === 'status') atMost(1, rest, `cc ${sub}`, 'at most one repository');
    if (sub === 'sessions') {
      const repo = path.resolve(rest[0] ?? '.');
      const sessions = await addon().discoverSessions(repo, discovery);
      return print(flags['--json'], sessions, () => {
        if (!sessions.length) return `No Claude Code sessions for ${repo}.`;
        const rows = sessions.map((x) => [x.sessionId.slice(0, 8), x.isRunning ? 'running' : x.source === 'openclaw' ? `openclaw:${x.agentId}` : 'native', x.branch, ago(x.lastModified), x.messageCount, compact(x.contextTokens), x.compactionCount, x.subagentCount, x.title.replace(/\s+/g, ' ').slice(0, 48)]);
        return `${table(rows, ['SESSION', 'SOURCE', 'BRANCH', 'MODIFIED', 'LINES', 'CONTEXT', 'COMPACT', 'AGENTS', 'TITLE'])}\n\n${sessions.length} session(s) of ${repo}`;
      });
    }
    if (sub === 'status') {
      const status = await addon().gatherProjectStatus(path.resolve(rest[0] ?? '.'), s.agentId, discovery);
      return print(flags['--json'], status, () => {
        const g = status.git;
        return [
          `${status.repo.name} (${status.repo.path})${status.repo.isGitRepo ? '' : ' — not a git repository'}`,
          `  Branch: ${g.currentBranch || '(detached)'}  HEAD: ${g.headCommitSha} ${g.headCommitMessage}`,
          `  Changes: ${g.stagedChanges.length} staged, ${g.uncommittedChanges.length} unstaged/untracked, ${g.stashCount} stashes`,
          ...g.recentCommits.slice(0, 5).map((c) => `    ${c.sha} ${c.message} (${c.author}, ${c.date})`),
          ...(status.github ? [`  GitHub: ${status.github.openPrs.length} open PRs, ${status.github.failingChecks.length} failing checks`] : []),
          `  Sessions: ${status.sessions.recent.length} recent, ${status.sessions.active.length} running`,
          `  Docs: ${[status.docs.hasClaudeMd && 'CLAUDE.md', status.docs.hasReadme && 'README.md', status.docs.hasTodo && 'TODO.md', ...status.docs.specFiles.map((f) => `.specs/${f}`)].filter(Boolean).join(', ') || 'none'}`,
        ].join('\n');
      });
    }
    if (sub === 'select') {
      const [task, repoArg] = rest;
      atMost(2, rest, 'cc select', 'a task and at most one repository', 'quote the task: occ cc select "fix the webhook retries" [repo]');
      if (!task) throw new UsageError('cc select needs a task', 'occ cc select "fix the webhook retries" [repo]');
      const repo = path.resolve(repoArg ?? '.');
      const status = await addon().gatherProjectStatus(repo, s.agentId, discovery);
      const pick = await addon().selectSession(task, repo, s.agentId, status);
      return print(flags['--json'], pick, () => [`${pick.action.toUpperCase()}${pick.sessionId ? ` ${pick.sessionId}` : ''}`, `  ${pick.reason}`, ...(pick.scores ?? []).map((x) => `    ${x.sessionId.slice(0, 8)} ${x.score.toFixed(2)} ${x.recommendation}`)].join('\n'));
    }
    if (sub === 'slim') return ccSlim(addon(), rest, flags, print);
    throw new UsageError(`unknown command "cc ${sub ?? ''}"`.trim(), 'use occ cc sessions|status|select|slim');
  },
};

async function main(argv) {
  const parsed = parseArgs(argv);
  const { positional, flags } = parsed;
  if (flags['--quickstart']) return console.log(QUICKSTART);
  if (flags['--help'] || positional.length === 0) {
    console.log(HELP);
    return positional.length === 0 && !flags['--help'] ? 2 : 0;
  }
  const [command, ...rest] = positional;
  const run = commands[command];
  if (!run) throw new UsageError(`unknown command "${command}"`);
  await run({ positional: rest, flags }, settings(flags));
  return 0;
}

// exitCode, not exit(): a large result written to a pipe is flushed first.
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code ?? 0;
  },
  (err) => {
    // With --json the error is JSON too, for programs that run occ.
    if (process.argv.includes('--json')) console.error(JSON.stringify({ error: { code: err.code ?? 'E_INTERNAL', message: err.message, hint: err.hint ?? null } }));
    else {
      console.error(`Error: ${err.message}`);
      if (err.hint) console.error(`Hint: ${err.hint}`);
    }
    process.exitCode = EXIT[err.code] ?? 1;
  },
);
