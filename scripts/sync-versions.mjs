#!/usr/bin/env node
// `npm version <v>` runs this after it bumps package.json: every platform
// package under npm/ and every optionalDependencies entry takes the same
// version, and so does the OpenClaw plugin manifest, so the commit npm makes
// for the tag is consistent.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.join(root, 'package.json');
const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
const write = (f, json) => fs.writeFileSync(f, `${JSON.stringify(json, null, 2)}\n`);
for (const name of Object.keys(pkg.optionalDependencies)) {
  const sub = path.join(root, 'npm', name.slice(pkg.name.length + 1), 'package.json');
  write(sub, { ...JSON.parse(fs.readFileSync(sub, 'utf8')), version: pkg.version });
  pkg.optionalDependencies[name] = pkg.version;
}
write(file, pkg);
const manifest = path.join(root, 'openclaw.plugin.json');
if (fs.existsSync(manifest)) write(manifest, { ...JSON.parse(fs.readFileSync(manifest, 'utf8')), version: pkg.version });
console.log(`npm/*, optionalDependencies and openclaw.plugin.json set to ${pkg.version}`);
