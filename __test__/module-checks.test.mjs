// scripts/check-modules.mjs and scripts/check-architecture.mjs: the import
// circles and parent imports they catch in a Rust source tree, what they let
// through (re-exports, comments, strings, test modules), the module map's
// missing and stale rows, and that the core and docs/architecture.md pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyse } from '../scripts/check-modules.mjs';
import { checkMap, mapRows } from '../scripts/check-architecture.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A source tree in a temp folder: `{ 'a/mod.rs': '…' }`. */
function tree(t, files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'osi-modules-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const base = {
  'lib.rs': 'pub mod a;\npub mod b;\npub mod p;\npub use b::Thing;\n',
  'a.rs': 'use crate::b::Thing;\npub fn use_it(_: Thing) {}\n',
  'b.rs': 'pub struct Thing;\n',
  'p/mod.rs': 'pub mod c;\npub mod d;\npub use d::Shared;\n',
  'p/c.rs': 'use super::Shared;\npub fn f(_: Shared) {}\n',
  'p/d.rs': 'pub struct Shared;\n',
};

test('a tree whose modules import each other one way only passes', (t) => {
  const { findings, edges } = analyse(tree(t, base));
  assert.deepEqual(findings, []);
  assert.deepEqual([...edges.get('crate::a')], ['crate::b']);
  // Through the parent's re-export, to the module that defines it.
  assert.deepEqual([...edges.get('crate::p::c')], ['crate::p::d']);
});

test('an import circle fails, named as the path around it', (t) => {
  const { findings } = analyse(tree(t, { ...base, 'b.rs': 'pub struct Thing;\nfn back() { crate::a::use_it(Thing) }\n' }));
  assert.deepEqual(findings, ['import circle: crate::a -> crate::b -> crate::a']);
});

test('a circle made through a re-export fails too', (t) => {
  const { findings } = analyse(tree(t, { ...base, 'b.rs': 'use crate::p::Shared;\npub struct Thing;\n', 'p/d.rs': 'use crate::Thing;\npub struct Shared;\n' }));
  assert.deepEqual(findings, ['import circle: crate::b -> crate::p::d -> crate::b']);
});

test('a child taking logic from its parent mod.rs fails; a re-export does not', (t) => {
  const dir = tree(t, { ...base, 'p/mod.rs': 'pub mod c;\npub mod d;\npub use d::Shared;\npub(crate) fn helper() {}\n', 'p/c.rs': 'use super::Shared;\npub fn f(_: Shared) { super::helper() }\n' });
  const { findings } = analyse(dir);
  assert.equal(findings.length, 1);
  assert.match(findings[0], /p\/c\.rs:2: imports helper from its parent .*p\/mod\.rs/);
});

test('comments, strings and test modules are not imports', (t) => {
  const b = [
    '//! See [`use_it`](crate::a::use_it).',
    'pub struct Thing;',
    'pub const S: &str = "crate::a::use_it";',
    "pub const C: char = '\"';",
    '/* crate::a::use_it */',
    '#[cfg(test)]',
    'mod tests {',
    '    use crate::a::use_it;',
    '    use super::*;',
    '}',
  ].join('\n');
  assert.deepEqual(analyse(tree(t, { ...base, 'b.rs': b })).findings, []);
});

test('the core has no import circle and takes no logic from a parent', () => {
  assert.deepEqual(analyse(path.join(root, 'crates', 'core', 'src')).findings, []);
});

const map = (rows) => `# A\n\n## Module map\n\n| module | what |\n| --- | --- |\n${rows.join('\n')}\n\n| file | other table |\n| --- | --- |\n| \`x.mjs\` | not a module |\n`;

test('the module map: a module missing from it, or a stale row, fails', () => {
  const files = ['lib.rs', 'a.rs', 'b.rs', 'p/mod.rs', 'p/c.rs', 'p/d.rs'];
  const full = mapRows(map(['| `a.rs`, `b.rs` | two |', '| `p/` | `c.rs` and `d.rs` |']));
  assert.deepEqual(checkMap(files, full), []);
  assert.deepEqual(checkMap([...files, 'p/e.rs'], full), ['p/e.rs: not named in the map (add it to the row of `p/`)']);
  assert.deepEqual(checkMap([...files, 'q/mod.rs'], full), ['q/: the folder has no row of its own']);
  assert.deepEqual(checkMap(files.filter((f) => f !== 'b.rs'), full), ['b.rs: named in the map, not in the tree']);
});

test('docs/architecture.md names every module of the core', () => {
  const rows = mapRows(fs.readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8'));
  const src = path.join(root, 'crates', 'core', 'src');
  const files = fs.readdirSync(src, { recursive: true }).filter((f) => f.endsWith('.rs')).map((f) => f.split(path.sep).join('/'));
  assert.deepEqual(checkMap(files, rows), []);
});
