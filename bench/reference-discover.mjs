#!/usr/bin/env node
// A faithful port of the reference `discoverSessions` (openclaw PR #23423,
// sessions.ts @ 645e0c6c), for measuring against: registry entries of every
// agent, then every `*.jsonl` of the `/`-replaced slug folder, each streamed
// with readline and JSON.parse'd line by line. Roots are arguments instead of
// the hard-coded home directory.
//   node bench/reference-discover.mjs <repo> <claudeDir> <stateDir>

import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

const [repoArg, claudeDir, stateDir] = process.argv.slice(2);
const projects = path.join(claudeDir, 'projects');
const slug = (p) => p.replace(/\//g, '-');

function listAllSessions() {
  const out = [];
  const agents = path.join(stateDir, 'agents');
  if (!fs.existsSync(agents)) return out;
  for (const d of fs.readdirSync(agents, { withFileTypes: true })) {
    if (!d.isDirectory()) continue;
    let reg = { sessions: {} };
    try { reg = JSON.parse(fs.readFileSync(path.join(agents, d.name, 'claude-code-sessions.json'), 'utf8')); } catch {}
    for (const [key, entry] of Object.entries(reg.sessions ?? {})) {
      out.push({ ...entry, agentId: d.name, repoPath: key.includes('::') ? key.slice(0, key.indexOf('::')) : key });
    }
  }
  return out;
}

function findSessionJsonlPath(repo, id) {
  const primary = path.join(projects, slug(repo), `${id}.jsonl`);
  if (fs.existsSync(primary)) return primary;
  for (const d of fs.readdirSync(projects, { withFileTypes: true })) {
    const p = path.join(projects, d.name, `${id}.jsonl`);
    if (d.isDirectory() && fs.existsSync(p)) return p;
  }
  return undefined;
}

async function parseJsonlHeader(file) {
  const r = { lineCount: 0, totalInputTokens: 0, totalOutputTokens: 0, compactionCount: 0 };
  const rl = readline.createInterface({ input: fs.createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    r.lineCount++;
    try {
      const msg = JSON.parse(line);
      if (r.lineCount <= 10) {
        if (!r.gitBranch && msg.gitBranch) r.gitBranch = msg.gitBranch;
        if (!r.slug && msg.slug) r.slug = msg.slug;
        if (!r.version && msg.version) r.version = msg.version;
      }
      if (!r.firstUserMessage && msg.type === 'user' && msg.message?.content) {
        const c = msg.message.content;
        const text = typeof c === 'string' ? c : Array.isArray(c) ? c.find((b) => b.type === 'text')?.text : undefined;
        if (text) {
          r.firstUserMessage = text.slice(0, 200);
          const m = text.match(/\[openclaw:agent=([^\]]+)\]/);
          if (m) r.originMarker = m[1];
        }
      }
      if (msg.message?.usage) {
        r.totalInputTokens += msg.message.usage.input_tokens ?? 0;
        r.totalOutputTokens += msg.message.usage.output_tokens ?? 0;
      }
      if (msg.type === 'system' && msg.message?.content) {
        const t = typeof msg.message.content === 'string' ? msg.message.content : JSON.stringify(msg.message.content);
        if (t.includes('compress') || t.includes('compact') || t.includes('summary')) r.compactionCount++;
      }
    } catch {}
  }
  return r;
}

const resolved = path.resolve(repoArg);
const results = [];
const seen = new Set();
for (const entry of listAllSessions()) {
  if (path.resolve(entry.repoPath) !== resolved) continue;
  seen.add(entry.sessionId);
  const p = findSessionJsonlPath(resolved, entry.sessionId);
  let header;
  let stat;
  if (p) { try { header = await parseJsonlHeader(p); stat = fs.statSync(p); } catch {} }
  results.push({ sessionId: entry.sessionId, source: 'openclaw', agentId: entry.agentId, lastModified: new Date(entry.lastResumedAt), messageCount: header?.lineCount ?? 0, fileSizeBytes: stat?.size ?? 0, isRunning: false, ...header });
}
const dir = path.join(projects, slug(resolved));
if (fs.existsSync(dir)) {
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) {
    const id = path.basename(f, '.jsonl');
    if (seen.has(id)) continue;
    try {
      const stat = fs.statSync(path.join(dir, f));
      const header = await parseJsonlHeader(path.join(dir, f));
      results.push({ sessionId: id, source: 'native-only', lastModified: stat.mtime, messageCount: header.lineCount, fileSizeBytes: stat.size, isRunning: false, ...header });
    } catch {}
  }
}
results.sort((a, b) => (a.isRunning !== b.isRunning ? (a.isRunning ? -1 : 1) : b.lastModified - a.lastModified));
console.log(JSON.stringify({ count: results.length }));
