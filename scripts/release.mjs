#!/usr/bin/env node
// Publishes a release: each platform package (npm/<platform>/ as committed,
// plus the binary the build job made for it, staged in a temporary folder so
// the checkout is never changed), then the main package. What is
// committed is what ships: nothing is generated here, install scripts never
// run, and the release stops before publishing anything when a binary is
// missing or a version does not match.
//
//   node scripts/release.mjs --artifacts <dir> [--registry <url>] [--no-provenance] [--dry-run]
//
// <dir> holds the build job's binaries, openclaw-session-intel.<platform>.node,
// at any depth (actions/download-artifact puts each in its own folder).
// A package already at this version on the registry is skipped, so a failed
// release can be re-run.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const artifacts = option('--artifacts');
const registry = option('--registry');
const dryRun = args.includes('--dry-run');
const provenance = !args.includes('--no-provenance');

function fail(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}

function npm(npmArgs, opts = {}) {
  const all = [...npmArgs, ...(registry ? ['--registry', registry] : [])];
  return spawnSync('npm', all, { encoding: 'utf8', shell: process.platform === 'win32', ...opts });
}

/** Every file under dir, recursively. */
function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

if (!artifacts) fail('usage: node scripts/release.mjs --artifacts <dir> [--registry <url>] [--no-provenance] [--dry-run]');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const tag = process.env.GITHUB_REF_TYPE === 'tag' ? process.env.GITHUB_REF_NAME : undefined;
if (tag && tag !== `v${pkg.version}`) fail(`the tag ${tag} does not match package.json's version ${pkg.version} (tag v${pkg.version})`);

// npm's provenance check wants each package's repository to be the one the
// workflow runs in.
const repository = process.env.GITHUB_REPOSITORY;
const repoOf = (p) => (typeof p.repository === 'string' ? p.repository : p.repository?.url) ?? '';

const found = new Map(walk(artifacts).filter((f) => f.endsWith('.node')).map((f) => [path.basename(f), f]));
const platforms = Object.keys(pkg.optionalDependencies).map((name) => name.slice(pkg.name.length + 1));
const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'osi-release-'));
const packages = [];
for (const platform of platforms) {
  const dir = path.join(staging, platform);
  fs.cpSync(path.join(root, 'npm', platform), dir, { recursive: true });
  const sub = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  if (sub.version !== pkg.version || pkg.optionalDependencies[sub.name] !== pkg.version) {
    fail(`${sub.name} is at ${sub.version} and required at ${pkg.optionalDependencies[sub.name]}; both must be ${pkg.version}`);
  }
  const binary = found.get(sub.main);
  if (!binary) fail(`no ${sub.main} under ${artifacts}: the build for ${platform} is missing`);
  fs.copyFileSync(binary, path.join(dir, sub.main));
  packages.push({ name: sub.name, dir, repo: repoOf(sub) });
}
packages.push({ name: pkg.name, dir: root, repo: repoOf(pkg) });
if (provenance && repository) {
  for (const p of packages) {
    if (!p.repo.includes(`github.com/${repository}`)) fail(`${p.name}: package.json "repository" must be https://github.com/${repository} (npm provenance checks it)`);
  }
}

for (const p of packages) {
  const seen = npm(['view', `${p.name}@${pkg.version}`, 'version']);
  if (seen.status === 0 && seen.stdout.trim() === pkg.version) {
    console.log(`${p.name}@${pkg.version} is already published; skipped`);
    continue;
  }
  const flags = ['--access', 'public', '--ignore-scripts', ...(provenance ? ['--provenance'] : []), ...(dryRun ? ['--dry-run'] : [])];
  const r = npm(['publish', ...flags], { cwd: p.dir, stdio: 'inherit' });
  if (r.status !== 0) fail(`npm publish of ${p.name} failed (exit ${r.status}); packages published before it stay, re-run to continue`);
  console.log(`${dryRun ? 'would publish' : 'published'} ${p.name}@${pkg.version}`);
}
fs.rmSync(staging, { recursive: true, force: true });
