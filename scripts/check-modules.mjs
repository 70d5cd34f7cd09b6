#!/usr/bin/env node
// Fails when the modules of crates/core/src import each other in a circle, or
// when a module imports logic (an item defined there, not a re-export) from
// the `mod.rs` or `lib.rs` of a folder it lives in: a parent lists its
// children and re-exports what they define; it does not hold what they need.
//
//   node scripts/check-modules.mjs [src dir]   (default: crates/core/src)
//   node scripts/check-modules.mjs --edges     (print every edge, then check)
//
// Every `crate::…`, `super::…`, `self::…` path and every path through a child
// module is read from the code outside comments, strings and `#[cfg(test)]`
// modules, and resolved through re-exports (`pub use`) to the file that
// defines the item: an edge runs from the importing file to that one. Exit 0
// when clean, 1 with one line per finding. docs/architecture.md has the map.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Every `.rs` file below `dir`. */
function* rustFiles(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* rustFiles(p);
    else if (e.name.endsWith('.rs')) yield p;
  }
}

/** The module path (`crate::a::b`) of a file below `src`. */
export function moduleOf(src, file) {
  const parts = path.relative(src, file).split(path.sep);
  const last = parts.pop().replace(/\.rs$/, '');
  if (last !== 'mod' && last !== 'lib') parts.push(last);
  return ['crate', ...parts].join('::');
}

/**
 * The code of a Rust file with comments, string and char literals blanked
 * (newlines kept), so that what is left are tokens.
 */
export function stripRust(text) {
  let out = '';
  let i = 0;
  const n = text.length;
  const blank = (s) => s.replace(/[^\n]/g, ' ');
  while (i < n) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? n : end;
      out += blank(text.slice(i, stop));
      i = stop;
    } else if (c === '/' && next === '*') {
      let depth = 1;
      let j = i + 2;
      while (j < n && depth > 0) {
        if (text[j] === '/' && text[j + 1] === '*') { depth++; j += 2; } else if (text[j] === '*' && text[j + 1] === '/') { depth--; j += 2; } else j++;
      }
      out += blank(text.slice(i, j));
      i = j;
    } else if ((c === 'r' || (c === 'b' && next === 'r')) && /^b?r#*"/.test(text.slice(i, i + 260)) && !/[\w]/.test(text[i - 1] ?? '')) {
      const m = /^b?r(#*)"/.exec(text.slice(i));
      const close = `"${m[1]}`;
      const end = text.indexOf(close, i + m[0].length);
      const stop = end === -1 ? n : end + close.length;
      out += blank(text.slice(i, stop));
      i = stop;
    } else if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += blank(text.slice(i, j + 1));
      i = j + 1;
    } else if (c === "'") {
      const m = /^'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'/u.exec(text.slice(i, i + 16));
      if (m) {
        out += blank(m[0]);
        i += m[0].length;
      } else {
        out += c;
        i++;
      }
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The index of the `}` closing the `{` at `open`. */
function closing(code, open) {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    if (code[i] === '{') depth++;
    else if (code[i] === '}' && --depth === 0) return i;
  }
  return code.length;
}

/** `code` without its `#[cfg(test)]` items (test modules, test-only functions). */
function withoutTests(code) {
  const re = /#\[cfg\(test\)\]/g;
  let out = code;
  let m;
  while ((m = re.exec(out))) {
    const open = out.indexOf('{', m.index);
    const semi = out.indexOf(';', m.index);
    const end = semi !== -1 && (open === -1 || semi < open) ? semi : closing(out, open);
    out = out.slice(0, m.index) + out.slice(m.index, end + 1).replace(/[^\n]/g, ' ') + out.slice(end + 1);
    re.lastIndex = m.index + 1;
  }
  return out;
}

/** Expands a use tree (`a::{b, c::{d, e as f}}`) into its paths. */
export function expandUse(tree) {
  tree = tree.replace(/\s+as\s+\w+/g, '').replace(/\s+/g, '');
  const brace = tree.indexOf('{');
  if (brace === -1) return [tree];
  const prefix = tree.slice(0, brace);
  const inner = tree.slice(brace + 1, tree.lastIndexOf('}'));
  const parts = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= inner.length; i++) {
    const ch = inner[i];
    if (ch === '{') depth++;
    else if (ch === '}') depth--;
    else if ((ch === ',' || i === inner.length) && depth === 0) {
      if (i > start) parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  return parts.flatMap((p) => expandUse(p).map((x) => (x === 'self' ? prefix.replace(/::$/, '') : prefix + x)));
}

/** Reads one file: its child modules, items, re-exports and referenced paths. */
function readFile(src, file) {
  const text = fs.readFileSync(file, 'utf8');
  const code = withoutTests(stripRust(text));
  const mod = moduleOf(src, file);
  const children = new Set();
  for (const m of code.matchAll(/^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;/gm)) children.add(m[1]);
  // Inline modules (`mod name { … }`): their paths resolve from inside them.
  const inline = [];
  for (const m of code.matchAll(/\bmod\s+(\w+)\s*\{/g)) {
    const open = m.index + m[0].length - 1;
    inline.push({ name: m[1], start: open, end: closing(code, open) });
  }
  const scopeAt = (pos) => {
    const names = inline.filter((b) => b.start < pos && pos < b.end).sort((a, b) => a.start - b.start).map((b) => b.name);
    return [...mod.split('::'), ...names];
  };
  const defined = new Set();
  const itemRe = /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+|async\s+|const\s+(?=fn))*(?:fn|struct|enum|union|trait|type|const|static|macro_rules!)\s+(\w+)/gm;
  for (const m of code.matchAll(itemRe)) if (scopeAt(m.index).length === mod.split('::').length) defined.add(m[1]);
  const reexports = new Map();
  const refs = [];
  const useRe = /\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);/g;
  const useSpans = [];
  for (const m of code.matchAll(useRe)) {
    useSpans.push([m.index, m.index + m[0].length]);
    const scope = scopeAt(m.index);
    const line = code.slice(0, m.index).split('\n').length;
    for (const p of expandUse(m[2])) {
      const segs = p.split('::');
      const name = segs[segs.length - 1];
      refs.push({ segs, scope, line, isUse: true });
      if (m[1] && !m[1].includes('(') && scope.length === mod.split('::').length && name !== '*') {
        const alias = /\bas\s+(\w+)/.exec(m[2]);
        reexports.set(alias && expandUse(m[2]).length === 1 ? alias[1] : name, { segs, scope });
      }
    }
  }
  const inUse = (pos) => useSpans.some(([a, b]) => a <= pos && pos < b);
  for (const m of code.matchAll(/(?<![\w:])((?:crate|super|self)(?:::\w+)+|\w+(?:::\w+)+)/g)) {
    if (inUse(m.index)) continue;
    refs.push({ segs: m[1].split('::'), scope: scopeAt(m.index), line: code.slice(0, m.index).split('\n').length, isUse: false });
  }
  return { file, mod, children, defined, reexports, refs };
}

/** Reads every module of `src` and resolves the edges between them. */
export function analyse(src) {
  const files = [...rustFiles(src)].map((f) => readFile(src, f));
  const byMod = new Map(files.map((f) => [f.mod, f]));
  /** The file module and item a path names, following re-exports. */
  const resolve = (segs, scope, seen = 0) => {
    let cur;
    let i = 0;
    if (segs[0] === 'crate') { cur = ['crate']; i = 1; } else if (segs[0] === 'self') { cur = [...scope]; i = 1; } else if (segs[0] === 'super') {
      cur = [...scope];
      while (segs[i] === 'super') { cur.pop(); i++; }
    } else {
      // A path that starts at a child module of the scope (2018 paths).
      const head = [...scope, segs[0]].join('::');
      if (!byMod.has(head) && !fileOwning(scope)?.children.has(segs[0])) return null;
      cur = [...scope];
    }
    // Inline modules are part of their file.
    while (!byMod.has(cur.join('::')) && cur.length > 1) cur.pop();
    for (; i < segs.length; i++) {
      const next = [...cur, segs[i]].join('::');
      if (byMod.has(next)) { cur = next.split('::'); continue; }
      break;
    }
    const module = cur.join('::');
    const item = segs[i];
    const file = byMod.get(module);
    if (!file || item === undefined || item === '*') return { module, item: item ?? null };
    const re = file.reexports.get(item);
    if (re && !file.defined.has(item) && seen < 16) {
      const target = resolve(re.segs, re.scope, seen + 1);
      if (target) return target;
    }
    return { module, item };
  };
  const fileOwning = (scope) => {
    const s = [...scope];
    while (s.length && !byMod.has(s.join('::'))) s.pop();
    return byMod.get(s.join('::'));
  };
  const edges = new Map();
  const findings = [];
  for (const f of files) {
    const out = new Set();
    for (const r of f.refs) {
      const target = resolve(r.segs, r.scope);
      if (!target || target.module === f.mod || !byMod.has(target.module)) continue;
      const to = byMod.get(target.module);
      const isAncestor = f.mod.startsWith(`${target.module}::`);
      if (isAncestor) {
        // What a parent only lists or re-exports is no logic of its own.
        if (target.item !== '*' && !to.defined.has(target.item)) continue;
        findings.push(`${path.relative(root, f.file)}:${r.line}: imports ${target.item ?? 'the module'} from its parent ${path.relative(root, to.file)}: move it into a module of its own`);
        continue;
      }
      // A parent naming its own child (`mod x;`, `pub use x::…`) is an edge like any other.
      out.add(target.module);
    }
    edges.set(f.mod, out);
  }
  const loops = circles(edges).map((c) => `import circle: ${cycleThrough(edges, c).join(' -> ')}`);
  return { files, edges, findings: [...findings, ...loops] };
}

/** One circle through the first module of `component` and back, as a path of modules. */
function cycleThrough(edges, component) {
  const inside = new Set(component);
  const start = component[0];
  const from = new Map();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const w of [...(edges.get(v) ?? [])].sort()) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const pathBack = [start];
        for (let u = v; u !== start; u = from.get(u)) pathBack.splice(1, 0, u);
        return [...pathBack, start];
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return [...component, start];
}

/** Every circle of the graph: the strongly connected components of more than one module (Tarjan). */
export function circles(edges) {
  let index = 0;
  const stack = [];
  const on = new Set();
  const idx = new Map();
  const low = new Map();
  const found = [];
  const strong = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const comp = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) found.push(comp.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!idx.has(v)) strong(v);
  return found;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const print = args.includes('--edges');
  const src = path.resolve(args.find((a) => !a.startsWith('--')) ?? path.join(root, 'crates', 'core', 'src'));
  const { edges, findings } = analyse(src);
  if (print) for (const [from, to] of [...edges].sort()) for (const t of [...to].sort()) console.log(`${from} -> ${t}`);
  for (const f of findings) console.error(f);
  if (findings.length) {
    console.error(`\n${findings.length} finding(s): the modules of ${path.relative(root, src)} must import each other without circles, and a child must not take logic from its parent's mod.rs (docs/architecture.md).`);
    process.exit(1);
  }
  console.log(`check-modules: ${edges.size} modules of ${path.relative(root, src)}, no import circle, no logic taken from a parent`);
}
