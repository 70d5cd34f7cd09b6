#!/usr/bin/env node
// The binding (src/) converts and nothing else, so what it states about the
// core must be the core's:
// - a default it applies comes from the core: no `unwrap_or(<literal>)`,
//   `map_or(<literal>, …)` or `Duration::from_*(<number>)` in src/;
// - a field of a binding type that mirrors a core type (a `From` / `TryFrom`
//   between them in src/) has the core field's doc comment, word for word;
//   `index.d.ts` shows the binding's to JavaScript;
// - a field of an input type (`XInput`) starts with the doc of the same field
//   of its result type `X`, and may go on to say what leaving it out means.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rel = (file) => path.relative(root, file);

function* rustFiles(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* rustFiles(p);
    else if (e.name.endsWith('.rs')) yield p;
  }
}

/** Every `pub struct` of a file: its name, and each field's doc comment as one line. */
function structs(file) {
  const found = [];
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const head = lines[i].match(/^(\s*)pub struct (\w+)(?:<[^>]*>)?\s*\{\s*$/);
    if (!head) continue;
    const fields = new Map();
    let doc = [];
    let attribute = 0;
    for (i++; i < lines.length && lines[i] !== `${head[1]}}`; i++) {
      const line = lines[i].trim();
      if (attribute > 0 || line.startsWith('#[')) {
        attribute += (line.match(/\[/g) ?? []).length - (line.match(/\]/g) ?? []).length;
      } else if (line.startsWith('///')) {
        doc.push(line.slice(3).trim());
      } else if (!line.startsWith('//')) {
        const field = line.match(/^pub (\w+):/);
        if (field) fields.set(field[1], doc.join(' ').trim());
        if (line) doc = [];
      }
    }
    found.push({ name: head[2], file, fields });
  }
  return found;
}

const byName = (files) => {
  const map = new Map();
  for (const file of files) for (const s of structs(file)) map.set(s.name, s);
  return map;
};
const bindingFiles = [...rustFiles(path.join(root, 'src'))];
const binding = byName(bindingFiles);
const core = byName(rustFiles(path.join(root, 'crates', 'core', 'src')));
const problems = [];

for (const file of bindingFiles) {
  const code = fs.readFileSync(file, 'utf8').replace(/^\s*\/\/.*$/gm, '');
  const literalDefault = /\.(?:unwrap_or|map_or)\(\s*(?:-?\d|"|'|true\b|false\b)|unwrap_or_else\(\s*\|\|\s*(?:-?\d|"|true\b|false\b)|Duration::from_(?:secs|millis|micros|nanos)\(\s*\d/g;
  for (const m of code.matchAll(literalDefault)) {
    const line = code.slice(0, m.index).split('\n').length;
    problems.push(`${rel(file)}:${line}: a default written in the binding (\`${m[0]}…\`): take it from the core (a constant or a \`Default\` there)`);
  }
}

/** Core names the binding imports under another name (`use …::{SpawnRecord as CoreRecord}`). */
const aliases = new Map();
for (const file of bindingFiles) {
  for (const [, original, alias] of fs.readFileSync(file, 'utf8').matchAll(/\b(\w+) as (\w+)\b/g)) {
    if (original !== 'self') aliases.set(alias, original);
  }
}
const coreType = (name) => {
  const last = name.split('::').pop();
  return core.get(aliases.get(last) ?? last);
};

const pairs = new Map();
for (const file of bindingFiles) {
  for (const [, from, to] of fs.readFileSync(file, 'utf8').matchAll(/impl(?:<[^>]*>)?\s+(?:Try)?From<&?([\w:]+)>\s+for\s+([\w:]+)/g)) {
    const [ours, theirs] = binding.has(from) && !from.includes('::') ? [from, to] : [to, from];
    const b = binding.get(ours);
    const c = coreType(theirs);
    if (b && c) pairs.set(`${b.name} ${c.name}`, [b, c]);
  }
}
for (const [b, c] of pairs.values()) {
  for (const [field, doc] of b.fields) {
    if (!c.fields.has(field) || c.fields.get(field) === doc) continue;
    problems.push(
      `${b.name}.${field} (${rel(b.file)}) mirrors ${c.name}.${field} (${rel(c.file)}), but their docs differ (make them say the same):\n` +
        `    binding: ${doc}\n    core:    ${c.fields.get(field)}`,
    );
  }
}
for (const input of binding.values()) {
  const result = input.name.endsWith('Input') && binding.get(input.name.slice(0, -'Input'.length));
  if (!result) continue;
  for (const [field, doc] of input.fields) {
    const base = result.fields.get(field);
    if (base === undefined || doc === base || doc.startsWith(`${base} `)) continue;
    problems.push(
      `${input.name}.${field} (${rel(input.file)}) does not start with the doc of ${result.name}.${field} (it may only add what leaving it out means):\n` +
        `    input:  ${doc}\n    result: ${base}`,
    );
  }
}

if (problems.length > 0) {
  console.error(`check-binding: ${problems.length} problem(s); a binding doc is what index.d.ts shows:\n`);
  for (const p of problems) console.error(`- ${p}`);
  process.exit(1);
}
console.log(`check-binding: ${pairs.size} mirrored types, no default written in the binding, no doc that differs from the core's`);
