// The world a spawn pre-flight runs in, for the suites of the pre-flight and
// of the plugin's spawns: two real git repositories made with the git CLI
// (one with a branch and changes of every kind), an empty Claude Code
// config folder and an empty OpenClaw state folder.

import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { tempDir } from './helpers.mjs';

/** `git args` in `dir`, with a fixed identity; its output, trimmed. */
export function git(dir, ...args) {
  return execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@e', '-c', 'init.defaultBranch=main', ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir } }).trim();
}

/** A repository with a commit, a branch and changes; its real path. */
export function repository(name = 'shop') {
  const dir = path.join(fs.realpathSync(tempDir('osi-pf-')), name);
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  git(dir, 'init', '-q');
  fs.writeFileSync(path.join(dir, 'src', 'cart.js'), 'export const cart = 1;\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'Add the cart');
  git(dir, 'checkout', '-q', '-b', 'feature/totals');
  fs.writeFileSync(path.join(dir, 'src', 'cart.js'), 'export const cart = 2;\n');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'x\n');
  return dir;
}

/** `{ claudeConfigDir, stateDir, repo, other }`: the folders and two repositories. */
export function world() {
  const base = tempDir('osi-pf-world-');
  const claudeConfigDir = path.join(base, 'claude');
  const stateDir = path.join(base, 'state');
  fs.mkdirSync(claudeConfigDir);
  fs.mkdirSync(stateDir);
  return { claudeConfigDir, stateDir, repo: repository(), other: repository('blog') };
}
