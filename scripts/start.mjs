#!/usr/bin/env node
// `npm start [repo]`: the main job. With a repository path, lists its Claude
// Code sessions from your own ~/.claude. Without one, generates a small
// realistic sample (a few sessions of one repository, with subagents,
// compactions and an OpenClaw registry) and lists that, so the output is real
// even on a machine that has never run Claude Code.

import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCorpus } from '../bench/corpus.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const env = { ...process.env };
if (args.length === 0 || args[0].startsWith('-')) {
  const sample = generateCorpus({ dir: path.join(os.tmpdir(), 'openclaw-session-intel-sample'), sessions: 8, totalBytes: 6 * 2 ** 20, seed: 2026 });
  console.log(`Sample: ${sample.sessions.length} Claude Code sessions (${(sample.bytes / 2 ** 20).toFixed(1)} MB) of ${sample.repo}\n`);
  env.CLAUDE_CONFIG_DIR = sample.claudeDir;
  env.OPENCLAW_STATE_DIR = sample.stateDir;
  args.unshift(sample.repo);
}
const r = spawnSync(process.execPath, [path.join(root, 'bin', 'occ.mjs'), 'cc', 'sessions', ...args], { stdio: 'inherit', env });
process.exit(r.status ?? 1);
