#!/usr/bin/env node
// occ: the command line over openclaw-session-intel.
//   occ cc sessions [repo] [--json]   Claude Code sessions of a repository

import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const EXIT = { E_INVALID_ARGUMENT: 2, E_SESSION_NOT_FOUND: 3, E_REPO_NOT_FOUND: 3, E_AMBIGUOUS_SESSION: 4, E_SESSION_BUSY: 5 };

const USAGE = `usage: occ cc sessions [repo] [--json]

  cc sessions [repo]   list the Claude Code sessions of a repository (default: .)
  --json               print the result objects as JSON
  --help               show this help`;

function relative(date, now = Date.now()) {
  const s = Math.max(0, Math.round((now - date.getTime()) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}

function compact(n) {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

function table(rows, headers) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join('  ').trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

async function ccSessions(repo, json) {
  const { discoverSessions } = require('../index.js');
  const sessions = await discoverSessions(repo);
  if (json) return console.log(JSON.stringify(sessions, null, 2));
  if (sessions.length === 0) return console.log(`No Claude Code sessions for ${repo}.`);
  const rows = sessions.map((s) => [
    s.sessionId.slice(0, 8),
    s.isRunning ? 'running' : s.source === 'openclaw' ? `openclaw:${s.agentId}` : 'native',
    s.branch,
    relative(s.lastModified),
    s.messageCount,
    compact(s.contextTokens),
    s.compactionCount,
    s.subagentCount,
    s.title.replace(/\s+/g, ' ').slice(0, 48),
  ]);
  console.log(table(rows, ['SESSION', 'SOURCE', 'BRANCH', 'MODIFIED', 'LINES', 'CONTEXT', 'COMPACT', 'AGENTS', 'TITLE']));
  console.log(`\n${sessions.length} session(s) of ${repo}`);
}

async function main(argv) {
  const json = argv.includes('--json');
  const positional = argv.filter((a) => !a.startsWith('-'));
  if (argv.includes('--help') || positional.length === 0) {
    console.log(USAGE);
    return positional.length === 0 && !argv.includes('--help') ? 2 : 0;
  }
  const [group, command, target] = positional;
  if (group === 'cc' && command === 'sessions') {
    await ccSessions(path.resolve(target ?? '.'), json);
    return 0;
  }
  console.error(`occ: unknown command "${positional.join(' ')}"\n\n${USAGE}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(`occ: ${err.message}${err.hint ? `\nhint: ${err.hint}` : ''}`);
    process.exit(EXIT[err.code] ?? 1);
  },
);
