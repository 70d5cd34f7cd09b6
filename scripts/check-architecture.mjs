#!/usr/bin/env node
// Fails when docs/architecture.md's module map misses a module of
// crates/core/src, or names one that is not there.
//
//   node scripts/check-architecture.mjs [src dir] [architecture.md]
//
// The map is the first table under "## Module map": its first column names a file
// (`spawns.rs`) or a folder (`claude_code/cache/`) relative to crates/core/src,
// or several, each in backticks; a folder's row names its files in backticks
// (`scans.rs`). A module is mapped when its path is in a first column, or its
// folder's row names its file; a folder's `mod.rs` when the folder has a row.
// Exit 0 when complete, 1 with one line per finding.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Every `.rs` file below `dir`, relative to it with `/` separators. */
function* rustFiles(dir, base = dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* rustFiles(p, base);
    else if (e.name.endsWith('.rs')) yield path.relative(base, p).split(path.sep).join('/');
  }
}

/** The rows of the module map: `{ names: [first column], mentions: [every backticked name] }`. */
export function mapRows(markdown) {
  const at = markdown.indexOf('## Module map');
  if (at === -1) return null;
  const lines = markdown.slice(at).split('\n').slice(1);
  const first = lines.findIndex((l) => l.startsWith('|'));
  const after = lines.slice(first).findIndex((l) => !l.startsWith('|'));
  const rows = [];
  for (const line of lines.slice(first, after === -1 ? undefined : first + after)) {
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    if (cells.length < 2 || /^-+$/.test(cells[0]) || cells[0].startsWith('module')) continue;
    const ticks = (s) => [...s.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    rows.push({ names: ticks(cells[0]), mentions: ticks(cells.join(' ')) });
  }
  return rows;
}

/** What the map misses of `files` (paths relative to the source folder) and what it names that is not there. */
export function checkMap(files, rows) {
  const findings = [];
  const folderRow = new Map(rows.flatMap((r) => r.names.filter((n) => n.endsWith('/')).map((n) => [n, r])));
  const named = new Set(rows.flatMap((r) => r.names));
  const folders = new Set(files.filter((f) => f.includes('/')).map((f) => f.slice(0, f.lastIndexOf('/') + 1)));
  for (const file of files) {
    if (file === 'lib.rs') continue;
    const slash = file.lastIndexOf('/') + 1;
    const folder = file.slice(0, slash);
    const name = file.slice(slash);
    if (name === 'mod.rs') {
      if (!folderRow.has(folder)) findings.push(`${folder}: the folder has no row of its own`);
      continue;
    }
    if (named.has(file)) continue;
    if (folder && folderRow.get(folder)?.mentions.includes(name)) continue;
    findings.push(`${file}: not named in the map (add it to ${folder ? `the row of \`${folder}\`` : 'a row of its own'})`);
  }
  for (const n of named) {
    const exists = n.endsWith('/') ? folders.has(n) : files.includes(n);
    if (!exists) findings.push(`${n}: named in the map, not in the tree`);
  }
  return findings;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [srcArg, docArg] = process.argv.slice(2);
  const src = path.resolve(srcArg ?? path.join(root, 'crates', 'core', 'src'));
  const doc = path.resolve(docArg ?? path.join(root, 'docs', 'architecture.md'));
  const rows = mapRows(fs.readFileSync(doc, 'utf8'));
  const findings = rows ? checkMap([...rustFiles(src)].sort(), rows) : [`${doc}: no "## Module map" section`];
  for (const f of findings) console.error(`${path.relative(root, doc)}: ${f}`);
  if (findings.length) {
    console.error(`\n${findings.length} finding(s): docs/architecture.md's module map must name every module of ${path.relative(root, src)}.`);
    process.exit(1);
  }
  console.log(`check-architecture: the module map names all ${[...rustFiles(src)].length - 1} modules of ${path.relative(root, src)}`);
}
