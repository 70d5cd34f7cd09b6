// Deterministic generator of realistic Claude Code transcripts.
//
// Line shapes follow the real 2.1.39 files in fixtures/shared (see
// docs/formats.md): file-history snapshots, hook/bash progress lines
// (about 70 % of all lines), responses split over several assistant lines
// sharing one (message.id, requestId) with the final output count on the
// last, tool results of every size up to several MB, Task subagents written
// both to <session>/subagents/agent-<id>.jsonl and mirrored as agent_progress
// copies, manual compactions, custom titles. Used by `npm start` (a small
// sample) and `npm run bench` (hundreds of MB).

import fs from 'node:fs';
import path from 'node:path';

/** Mulberry32: small, fast, deterministic. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ('the parser handler webhook retry queue token session cache index branch commit test fixture ' +
  'error timeout config schema migration deploy build lint format render route model client server request ' +
  'response stream buffer file path module export import function return value state store lock write read').split(' ');

const PROMPTS = [
  'Fix the flaky checkout webhook test that times out on CI',
  'Add retry with backoff to the payment webhook handler',
  'Refactor the cart session store to use the new cache module',
  'Why does mix phx.server fail to start after the upgrade?',
  'Write a migration that adds an index on orders.customer_id',
  'Review the open PR for the search endpoint and fix lint errors',
  'Implement rate limiting for the public product API',
  'Split the order parser into smaller functions and add tests',
];

/** Slug rule of Claude Code (one dash per UTF-16 unit that is not [A-Za-z0-9]). */
export function slugOf(p) {
  return p.replace(/[^a-zA-Z0-9]/g, '-');
}

class Gen {
  constructor(seed) {
    this.r = rng(seed);
    this.clock = Date.UTC(2026, 9, 1, 8, 0, 0);
  }
  int(lo, hi) { return lo + Math.floor(this.r() * (hi - lo + 1)); }
  pick(a) { return a[Math.floor(this.r() * a.length)]; }
  hex(n) { let s = ''; while (s.length < n) s += Math.floor(this.r() * 0x100000000).toString(16).padStart(8, '0'); return s.slice(0, n); }
  uuid() { const h = this.hex(32); return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`; }
  words(n) { const out = []; for (let i = 0; i < n; i++) out.push(this.pick(WORDS)); return out.join(' '); }
  /**
   * Code-like text of about `bytes` characters (newlines and quotes included),
   * numbered like Claude Code's Read tool output (`    12→…`, U+2192).
   */
  text(bytes) {
    let n = this.int(1, 400);
    const line = () => `${String(n++).padStart(6)}\u2192  const ${this.pick(WORDS)}_${this.int(1, 99)} = "${this.words(this.int(2, 8))}"; // ${this.words(3)}\n`;
    let chunk = '';
    while (chunk.length < Math.min(bytes, 4096)) chunk += line();
    let s = chunk;
    while (s.length < bytes) s += chunk;
    return s.slice(0, bytes);
  }
  /**
   * Terminal-like output of about `bytes` characters that JSON escapes
   * densely: colour codes (written as `\u001b`), quotes, backslashes of
   * Windows paths, embedded JSON, tabs and newlines.
   */
  escapedText(bytes) {
    const line = () => `\u001b[32m\u2713\u001b[0m C:\\src\\${this.pick(WORDS)}\\${this.pick(WORDS)}_test.exs:${this.int(1, 999)}\t"${this.words(this.int(1, 5))}" ${JSON.stringify({ ok: this.r() < 0.9, path: `lib\\${this.pick(WORDS)}.ex`, msg: this.words(3) })}\r\n`;
    let chunk = '';
    while (chunk.length < Math.min(bytes, 4096)) chunk += line();
    let s = chunk;
    while (s.length < bytes) s += chunk;
    return s.slice(0, bytes);
  }
  tick(ms) { this.clock += ms; return new Date(this.clock).toISOString(); }
}

/** Writes one session (and its subagents); returns facts about what it wrote. */
function writeSession(g, { projectDir, repo, sessionId, targetBytes, branch, agentId, title, heavy }) {
  const file = path.join(projectDir, `${sessionId}.jsonl`);
  const fd = fs.openSync(file, 'w');
  let bytes = 0;
  const emit = (obj) => { const s = JSON.stringify(obj) + '\n'; fs.writeSync(fd, s); bytes += Buffer.byteLength(s); };
  let parent = null;
  const env = (extra) => {
    const uuid = g.uuid();
    const o = { parentUuid: parent, isSidechain: false, userType: 'external', cwd: repo, sessionId, version: '2.1.39', gitBranch: branch, slug: 'lexical-painting-whisper', ...extra, uuid, timestamp: g.tick(g.int(50, 4000)) };
    parent = uuid;
    return o;
  };
  const progress = (data, toolUseID) => emit(env({ type: 'progress', data, toolUseID, parentToolUseID: toolUseID }));
  const model = g.pick(['claude-opus-4-6', 'claude-sonnet-4-5-20250929']);
  let cacheRead = 17000;
  let subagents = 0;
  let turn = 0;
  const response = (blocks, sidechain, write, extraEnv = {}) => {
    const id = `msg_01${g.hex(22)}`;
    const requestId = `req_011C${g.hex(20)}`;
    const input = g.int(1, 12);
    const cacheCreation = g.int(200, 9000);
    cacheRead += g.int(500, 4000);
    const finalOut = g.int(40, 2500);
    blocks.forEach((block, i) => {
      const last = i === blocks.length - 1;
      write({
        ...extraEnv,
        message: { model, id, type: 'message', role: 'assistant', content: [block], stop_reason: null, stop_sequence: null,
          usage: { input_tokens: input, cache_creation_input_tokens: cacheCreation, cache_read_input_tokens: cacheRead,
            cache_creation: { ephemeral_5m_input_tokens: cacheCreation, ephemeral_1h_input_tokens: 0 },
            output_tokens: last && !sidechain ? finalOut : g.int(3, 30), service_tier: 'standard' } },
        requestId, type: 'assistant',
      });
    });
  };

  emit({ type: 'file-history-snapshot', messageId: g.uuid(), snapshot: { messageId: g.uuid(), trackedFileBackups: {}, timestamp: g.tick(0) }, isSnapshotUpdate: false });
  while (bytes < targetBytes) {
    turn++;
    if (turn > 1 && turn % 40 === 0) {
      emit({ ...env({ type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', isMeta: false, level: 'info', compactMetadata: { trigger: g.pick(['auto', 'manual']), preTokens: g.int(120000, 170000) } }), parentUuid: null });
      emit(env({ type: 'user', message: { role: 'user', content: `This session is being continued from a previous conversation that ran out of context.\n\n${g.text(3000)}` }, isVisibleInTranscriptOnly: true, isCompactSummary: true }));
      cacheRead = 17000;
    }
    emit({ type: 'file-history-snapshot', messageId: g.uuid(), snapshot: { messageId: g.uuid(), trackedFileBackups: { 'lib/app.ex': { backupFileName: `${g.hex(16)}@v${turn}`, version: turn, backupTime: g.tick(0) } }, timestamp: g.tick(0) }, isSnapshotUpdate: false });
    for (let h = 0; h < 2; h++) progress({ type: 'hook_progress', hookEvent: 'UserPromptSubmit', hookName: 'UserPromptSubmit', command: 'bd prime' }, g.uuid());
    const task = turn === 1 ? g.pick(PROMPTS) : `${g.pick(['Now', 'Also', 'Next,', 'Then'])} ${g.words(g.int(5, 30))}`;
    const prompt = turn === 1 && agentId ? `[openclaw:agent=${agentId}] ${task}` : task;
    emit(env({ type: 'user', message: { role: 'user', content: prompt }, thinkingMetadata: { maxThinkingTokens: 31999 }, todos: [], permissionMode: 'bypassPermissions' }));
    const tools = g.int(1, 6);
    for (let t = 0; t < tools && bytes < targetBytes; t++) {
      const toolId = `toolu_01${g.hex(22)}`;
      const task = g.r() < (heavy ? 0.03 : 0.08);
      const blocks = [{ type: 'thinking', thinking: g.words(g.int(10, 80)), signature: g.hex(64) }, { type: 'text', text: g.words(g.int(5, 30)) },
        task ? { type: 'tool_use', id: toolId, name: 'Task', input: { description: g.words(4), prompt: g.words(30), subagent_type: 'general-purpose' } }
          : { type: 'tool_use', id: toolId, name: 'Bash', input: { command: `mix test test/${g.pick(WORDS)}_test.exs`, description: g.words(5) } }];
      response(blocks.slice(g.int(0, 1)), false, (o) => emit(env(o)));
      if (task) {
        subagents++;
        const agent = `a${g.hex(6)}`;
        const dir = path.join(projectDir, sessionId, 'subagents');
        fs.mkdirSync(dir, { recursive: true });
        const subFd = fs.openSync(path.join(dir, `agent-${agent}.jsonl`), 'w');
        let subParent = null;
        const subWrite = (o) => {
          const uuid = g.uuid();
          const line = { parentUuid: subParent, isSidechain: true, userType: 'external', cwd: repo, sessionId, version: '2.1.39', gitBranch: branch, agentId: agent, slug: 'lexical-painting-whisper', ...o, uuid, timestamp: g.tick(g.int(50, 2000)) };
          subParent = uuid;
          const s = JSON.stringify(line) + '\n';
          fs.writeSync(subFd, s);
          bytes += Buffer.byteLength(s);
          // The parent mirrors every subagent line as an agent_progress copy.
          const { parentUuid, isSidechain, userType, cwd, sessionId: _s, version, gitBranch, agentId: _a, slug, ...copy } = line;
          progress({ message: copy, normalizedMessages: [], type: 'agent_progress', prompt: 'sub task', agentId: agent }, toolId);
        };
        subWrite({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: g.words(30) }] } });
        const steps = g.int(3, 12);
        for (let s = 0; s < steps; s++) {
          response([{ type: 'text', text: g.words(10) }, { type: 'tool_use', id: `toolu_01${g.hex(22)}`, name: 'Grep', input: { pattern: g.pick(WORDS) } }], true, subWrite);
          subWrite({ type: 'user', message: { role: 'user', content: [{ tool_use_id: toolId, type: 'tool_result', content: g.text(g.int(100, 2500)) }] } });
        }
        fs.closeSync(subFd);
      }
      const chatter = heavy ? g.int(0, 2) : g.int(4, 12);
      for (let p = 0; p < chatter; p++) {
        progress({ type: 'bash_progress', output: g.text(g.int(40, 300)), fullOutput: g.text(g.int(40, 600)), elapsedTimeSeconds: p, totalLines: p * 10, timeoutMs: 120000 }, toolId);
      }
      // Most results are short; a few are long; a rare one is several MB.
      // The heavy shape's are larger, and half of them are escape-dense.
      const roll = g.r();
      const big = heavy
        ? (roll < 0.005 ? g.int(1_500_000, 4_000_000) : roll < 0.2 ? g.int(50_000, 300_000) : g.int(2_000, 30_000))
        : (roll < 0.003 ? g.int(1_500_000, 4_000_000) : roll < 0.06 ? g.int(8_000, 40_000) : g.int(100, 2_500));
      const result = heavy && g.r() < 0.5 ? g.escapedText(big) : g.text(big);
      emit(env({ type: 'user', message: { role: 'user', content: [{ tool_use_id: toolId, type: 'tool_result', content: result, is_error: false }] },
        toolUseResult: { stdout: result.slice(0, 1000), stderr: '', interrupted: false, isImage: false }, sourceToolAssistantUUID: parent }));
    }
    response([{ type: 'text', text: g.words(g.int(20, 120)) }], false, (o) => emit(env(o)));
    emit(env({ type: 'system', subtype: 'stop_hook_summary', hookCount: 1, hookInfos: [{ command: 'bd sync' }], hookErrors: [], preventedContinuation: false, stopReason: '', hasOutput: false, level: 'suggestion' }));
    emit(env({ type: 'system', subtype: 'turn_duration', durationMs: g.int(2000, 400000), isMeta: false }));
  }
  if (title) emit({ type: 'custom-title', customTitle: title, sessionId });
  fs.closeSync(fd);
  return { sessionId, file, bytes, subagents };
}

/**
 * Generates `sessions` sessions for `repo` under `<dir>/claude/projects/<slug>`,
 * about `totalBytes` in all (sizes vary 0.2x-3x around the mean), and an
 * OpenClaw registry at `<dir>/openclaw` naming `registered` of them.
 * `shape: 'heavy'` makes fewer, larger files: few subagents and progress
 * lines, tool results of tens to hundreds of KB, half of them escape-dense.
 */
export function generateCorpus({ dir, repo = '/home/dev/projects/webshop', sessions = 150, totalBytes = 300 * 2 ** 20, seed = 42, registered = 3, shape = 'bench' }) {
  const g = new Gen(seed);
  const claudeDir = path.join(dir, 'claude');
  const projectDir = path.join(claudeDir, 'projects', slugOf(repo));
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(projectDir, { recursive: true });
  const weights = Array.from({ length: sessions }, () => 0.2 + g.r() * 2.8);
  const sum = weights.reduce((a, b) => a + b, 0);
  const written = [];
  const titles = ['Checkout webhook retries', 'Fix flaky cart test', 'Upgrade Phoenix to 1.8'];
  for (let i = 0; i < sessions; i++) {
    const sessionId = g.uuid();
    written.push(writeSession(g, {
      projectDir, repo, sessionId,
      targetBytes: Math.round((totalBytes * weights[i]) / sum),
      branch: g.pick(['main', 'main', 'feature/checkout', 'fix/cart-test']),
      agentId: i < registered ? 'main' : undefined,
      title: i % 5 === 4 ? titles[i % titles.length] : undefined,
      heavy: shape === 'heavy',
    }));
  }
  // Spread modification times over the last two weeks, newest last.
  const now = Date.now();
  written.forEach((s, i) => {
    const t = new Date(now - (sessions - i) * 2.2 * 3600_000);
    fs.utimesSync(s.file, t, t);
  });
  const stateDir = path.join(dir, 'openclaw');
  const registry = { sessions: {} };
  written.slice(0, registered).forEach((s, i) => {
    const at = new Date(now - (sessions - i) * 2.2 * 3600_000).toISOString();
    registry.sessions[i === 0 ? repo : `${repo}::lane-${i}`] = {
      sessionId: s.sessionId, createdAt: at, lastResumedAt: at, totalCostUsd: 0.5 * (i + 1), totalTurns: 3 * (i + 1),
      triggeredBy: { channel: 'discord' }, taskHistory: [{ at, task: `task ${i + 1}`, costUsd: 0.5 }], ...(i ? { label: `lane-${i}` } : {}),
    };
  });
  fs.mkdirSync(path.join(stateDir, 'agents', 'main'), { recursive: true });
  fs.writeFileSync(path.join(stateDir, 'agents', 'main', 'claude-code-sessions.json'), JSON.stringify(registry, null, 2));
  return { claudeDir, stateDir, repo, projectDir, sessions: written, bytes: written.reduce((a, s) => a + s.bytes, 0) };
}

/**
 * An OpenClaw v3 transcript of about `totalBytes`: turns of a user prompt,
 * one to four tool calls (exec, read, web_search) with results from a few
 * hundred bytes to 200 KB, thinking, and a text reply.
 */
export function generateOpenclawTranscript({ file, totalBytes = 50 * 2 ** 20, seed = 7 }) {
  const g = new Gen(seed);
  const fd = fs.openSync(file, 'w');
  let bytes = 0;
  const write = (o) => {
    const s = `${JSON.stringify(o)}\n`;
    fs.writeSync(fd, s);
    bytes += Buffer.byteLength(s);
  };
  write({ type: 'session', version: 3, id: g.uuid(), timestamp: g.tick(0), cwd: '/home/dev/webshop' });
  let parent = null;
  const entry = (o) => {
    const id = g.hex(8);
    write({ ...o, id, parentId: parent, timestamp: g.tick(g.int(100, 5000)) });
    parent = id;
  };
  entry({ type: 'model_change', provider: 'anthropic', modelId: 'claude-opus-4-6' });
  let turn = 0;
  while (bytes < totalBytes) {
    entry({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: g.pick(PROMPTS) }], timestamp: g.clock } });
    for (let c = 0; c < g.int(1, 4); c++) {
      const id = `toolu_${g.hex(24)}`;
      const name = g.pick(['exec', 'read', 'web_search']);
      entry({ type: 'message', message: { role: 'assistant', content: [{ type: 'thinking', thinking: g.words(40), thinkingSignature: g.hex(64) }, { type: 'toolCall', id, name, arguments: { command: `cat src/${g.pick(WORDS)}.ts`, path: `src/${g.pick(WORDS)}.ts` } }], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-opus-4-6', usage: { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 120 }, stopReason: 'toolUse', timestamp: g.clock } });
      const size = g.r() < 0.05 ? g.int(50_000, 200_000) : g.int(300, 8_000);
      entry({ type: 'message', message: { role: 'toolResult', toolCallId: id, toolName: name, content: [{ type: 'text', text: g.text(size) }], isError: false, timestamp: g.clock } });
    }
    entry({ type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: g.words(60) }], stopReason: 'stop', timestamp: g.clock } });
    turn++;
  }
  fs.closeSync(fd);
  return { bytes, turns: turn };
}
