// Run with Node 24: node tree-scenarios.mjs <openclaw package dir> <out.json>
// Feeds transcripts of every shape the tree rules distinguish to OpenClaw's
// own tree scan (the navigation its projection rebuild and model-context
// reader use) and to its SessionManager, and writes the active path each
// builds. The committed fixtures/openclaw-tree-scenarios.json is this
// script's output; the addon's tree is tested against it.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [oc, out] = process.argv.slice(2);
const dist = path.join(oc, 'dist');
const chunk = fs.readdirSync(dist).find((f) => /^transcript-tree-.*\.m?js$/.test(f));
const tree = await import(pathToFileURL(path.join(dist, chunk)).href);
const fn = (name) => Object.values(tree).find((f) => typeof f === 'function' && f.name === name);
const scan = fn('scanSessionTranscriptTree');
const pathNodes = fn('selectSessionTranscriptTreePathNodes');
const { SessionManager } = await import(pathToFileURL(path.join(dist, 'plugin-sdk', 'agent-sessions.js')).href);

let clock = 0;
const ts = () => new Date(Date.UTC(2026, 0, 1, 0, 0, clock++)).toISOString();
const H = () => ({ type: 'session', version: 3, id: 'sess', timestamp: ts(), cwd: '/tmp' });
const u = (id, p) => ({ type: 'message', id, parentId: p, timestamp: ts(), message: { role: 'user', content: id, timestamp: 1 } });
const a = (id, p) => ({ type: 'message', id, parentId: p, timestamp: ts(), message: { role: 'assistant', content: [{ type: 'text', text: id }], provider: 'x', model: 'y', timestamp: 1 } });
const comp = (id, p, fk) => ({ type: 'compaction', id, parentId: p, timestamp: ts(), summary: 'S', firstKeptEntryId: fk, tokensBefore: 10 });
const reset = (id, p, fk) => ({ type: 'reset', id, parentId: p, timestamp: ts(), reason: 'reset', ...(fk ? { firstKeptEntryId: fk } : {}) });
const leaf = (id, p, target, extra = {}) => ({ type: 'leaf', id, parentId: p, timestamp: ts(), targetId: target, ...extra });
const side = (e) => ({ ...e, appendMode: 'side' });
const custom = (id, p) => ({ type: 'custom', customType: 'x', id, parentId: p, timestamp: ts(), data: {} });
const noParent = (e) => { const c = { ...e }; delete c.parentId; return c; };

const scenarios = {
  linear: () => [H(), u('u1', null), a('a1', 'u1'), u('u2', 'a1'), a('a2', 'u2')],
  compaction: () => [H(), u('u1', null), a('a1', 'u1'), u('u2', 'a1'), a('a2', 'u2'), comp('c1', 'a2', 'u2'), u('u3', 'c1'), a('a3', 'u3')],
  reset_then_more: () => [H(), u('u1', null), a('a1', 'u1'), reset('r1', 'a1'), u('u2', 'r1'), a('a2', 'u2')],
  reset_at_end: () => [H(), u('u1', null), a('a1', 'u1'), reset('r1', 'a1')],
  two_resets: () => [H(), u('u1', null), a('a1', 'u1'), reset('r1', 'a1'), u('u2', 'r1'), a('a2', 'u2'), reset('r2', 'a2'), u('u3', 'r2')],
  stale_parent: () => [H(), u('u1', null), a('a1', 'u1'), u('u2', 'GHOST'), a('a2', 'u2')],
  stale_parent_first: () => [H(), u('u1', 'GHOST'), a('a1', 'u1')],
  self_parent: () => [H(), u('u1', null), a('a1', 'a1'), u('u2', 'a1')],
  forward_parent: () => [H(), u('u1', null), a('a1', 'u2'), u('u2', 'u1')],
  null_parent_midway: () => [H(), u('u1', null), a('a1', 'u1'), u('u2', null), a('a2', 'u2')],
  branch_by_parent: () => [H(), u('u1', null), a('a1', 'u1'), u('u2', 'a1'), a('a2', 'u2'), u('u2b', 'a1'), a('a2b', 'u2b')],
  leaf_back: () => [H(), u('u1', null), a('a1', 'u1'), u('u2', 'a1'), a('a2', 'u2'), leaf('L1', 'a2', 'a1')],
  leaf_back_then_append: () => [H(), u('u1', null), a('a1', 'u1'), u('u2', 'a1'), a('a2', 'u2'), leaf('L1', 'a2', 'a1'), u('u3', 'a1')],
  leaf_unknown_target: () => [H(), u('u1', null), a('a1', 'u1'), leaf('L1', 'a1', 'NOPE')],
  leaf_null: () => [H(), u('u1', null), a('a1', 'u1'), leaf('L1', 'a1', null)],
  leaf_null_then_append: () => [H(), u('u1', null), a('a1', 'u1'), leaf('L1', 'a1', null), u('u2', null)],
  leaf_bad_mode: () => [H(), u('u1', null), a('a1', 'u1'), u('u2', 'a1'), leaf('L1', 'u2', 'u1', { appendMode: 'weird' })],
  leaf_append_parent: () => [H(), u('u1', null), a('a1', 'u1'), side(custom('k1', 'a1')), leaf('L1', 'k1', 'a1', { appendParentId: 'k1' }), u('u2', 'k1')],
  leaf_unknown_append_parent: () => [H(), u('u1', null), a('a1', 'u1'), u('u2', 'a1'), leaf('L1', 'u2', 'u1', { appendParentId: 'NOPE' })],
  leaf_to_invalid_leaf: () => [H(), u('u1', null), a('a1', 'u1'), leaf('L1', 'a1', 'NOPE'), leaf('L2', 'L1', 'L1')],
  after_reset_parent_before: () => [H(), u('u1', null), a('a1', 'u1'), reset('r1', 'a1'), u('u2', 'r1'), u('u3', 'a1')],
  after_reset_null_parent: () => [H(), u('u1', null), a('a1', 'u1'), reset('r1', 'a1'), u('u2', 'r1'), u('u3', null)],
  after_reset_leaf_back: () => [H(), u('u1', null), a('a1', 'u1'), reset('r1', 'a1'), u('u2', 'r1'), leaf('L1', 'u2', 'a1')],
  after_reset_leaf_null: () => [H(), u('u1', null), a('a1', 'u1'), reset('r1', 'a1'), u('u2', 'r1'), leaf('L1', 'u2', null)],
  side_append: () => [H(), u('u1', null), a('a1', 'u1'), side(u('s1', 'a1')), u('u2', 'a1')],
  side_then_chain: () => [H(), u('u1', null), a('a1', 'u1'), side(custom('s1', 'a1')), u('u2', 's1')],
  side_last: () => [H(), u('u1', null), a('a1', 'u1'), side(custom('s1', 'a1'))],
  no_parent_property: () => [H(), u('u1', null), a('a1', 'u1'), noParent(u('u2', null))],
  unknown_type_link: () => [H(), u('u1', null), a('a1', 'u1'), { type: 'weird', id: 'w1', parentId: 'a1' }, u('u2', 'w1')],
  unknown_type_last: () => [H(), u('u1', null), a('a1', 'u1'), { type: 'weird', id: 'w1', parentId: 'a1' }],
  numeric_parent: () => [H(), u('u1', null), a('a1', 'u1'), { ...u('u2', 'a1'), parentId: 7 }],
  blank_id: () => [H(), u('u1', null), a('a1', 'u1'), { ...u('u2', 'a1'), id: '  ' }],
  cycle: () => [H(), u('a', 'b'), { type: 'weird', id: 'b', parentId: 'a' }, leaf('L', 'b', 'a')],
  header_only: () => [H()],
};

const result = { openclaw: JSON.parse(fs.readFileSync(path.join(oc, 'package.json'), 'utf8')).version, scenarios: {} };
for (const [name, make] of Object.entries(scenarios)) {
  clock = 0;
  const entries = make();
  const rows = entries.map((e, seq) => ({ ...structuredClone(e), seq }));
  const scanned = scan(rows);
  let manager;
  try {
    manager = SessionManager.fromEntries(structuredClone(entries)).getBranch().map((e) => e.id);
  } catch (e) {
    manager = `error: ${e.message}`;
  }
  result.scenarios[name] = { entries, path: pathNodes(scanned, scanned.leafId).map((n) => n.id), sessionManager: manager };
}
fs.writeFileSync(out, `${JSON.stringify(result, null, 1)}\n`);
