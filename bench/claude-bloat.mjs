// A bloated Claude Code transcript of about `totalBytes`, written as a stream
// (a 1 GB one never sits in memory): turn after turn a prompt, a Read call
// whose result is a long file (and the CLI's toolUseResult copy of it), a
// screenshot read as base64 every fourth turn, hook progress lines, an
// answer, and a cost-state line, chained by parentUuid as the CLI writes them.
// `shape: 'mixed'` is another mix the slim was not tuned on: screenshots
// pasted into prompts every third turn, Bash outputs as one escape-dense
// string (quotes, tabs, non-ASCII) with the CLI's stdout copy, results of
// several text blocks, and subagent progress copies that carry usage.
// `shape: 'chatty'` is mostly small lines, as a long agentic session of edits
// writes them: a thinking block and an Edit call per turn, hook progress
// lines, small results with the CLI's patch copy (its strings now and then
// over the copy's threshold), `/rewind` snapshots, and every 40th turn a
// build log of a few hundred KB.

import fs from 'node:fs';
import crypto from 'node:crypto';

export function generateBloatedClaudeTranscript({ file, totalBytes, sessionId = '0b1a7ed0-0000-4000-8000-000000000001', shape = 'bench' }) {
  const fd = fs.openSync(file, 'w');
  const env = { isSidechain: false, userType: 'external', cwd: '/home/u/project', sessionId, version: '2.1.328', gitBranch: 'main' };
  const png = crypto.randomBytes(384 * 1024).toString('base64');
  const text = Array.from({ length: 1600 }, (_, i) => `line ${i}: ${'const value = compute(input, options);'.padEnd(90, ' ')}`).join('\n');
  let written = 0;
  let parent = null;
  let n = 0;
  const uuid = () => crypto.randomUUID();
  const put = (line) => {
    const s = `${JSON.stringify(line)}\n`;
    fs.writeSync(fd, s);
    written += Buffer.byteLength(s);
    if (line.uuid) parent = line.uuid;
  };
  const dense = Array.from({ length: 900 }, (_, i) => `${i}\t"ok"\tcafé → ${'x'.repeat(i % 40)}\\path\\to\\file`).join('\n');
  while (written < totalBytes && shape === 'mixed') {
    n++;
    const time = new Date(Date.UTC(2026, 10, 1, 0, 0, n)).toISOString();
    const prompt = n % 3 === 0 ? [{ type: 'text', text: `Turn ${n}: what is wrong here?` }, { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: png.slice(0, 200_000) } }] : `Turn ${n}: run the tests`;
    put({ parentUuid: parent, ...env, type: 'user', message: { role: 'user', content: prompt }, uuid: uuid(), timestamp: time });
    const id = `toolu_mixed_${n}`;
    const usage = { input_tokens: 10, cache_read_input_tokens: 1000 * n, cache_creation_input_tokens: 200, output_tokens: 40 };
    put({ parentUuid: parent, ...env, type: 'assistant', requestId: `req_${n}`, message: { id: `msg_mixed_${n}`, role: 'assistant', model: 'claude-opus-5-5', content: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'npm test' } }], stop_reason: 'tool_use', usage }, uuid: uuid(), timestamp: time });
    if (n % 2 === 0) put({ parentUuid: parent, ...env, type: 'progress', data: { type: 'agent_progress', message: { type: 'assistant', message: { id: `msg_sub_${n}`, model: 'claude-haiku-5-5', content: [{ type: 'text', text: dense.slice(0, 30_000) }], usage } } }, uuid: uuid(), timestamp: time });
    const content = n % 2 === 0 ? dense : [{ type: 'text', text: dense.slice(0, 20_000) }, { type: 'text', text: 'exit 0' }, { type: 'text', text: dense }];
    put({ parentUuid: parent, ...env, type: 'user', message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content }] }, uuid: uuid(), timestamp: time, toolUseResult: { stdout: dense, stderr: dense.slice(0, 5_000), interrupted: false } });
    put({ parentUuid: parent, ...env, type: 'assistant', requestId: `req_${n}b`, message: { id: `msg_mixed_${n}b`, role: 'assistant', model: 'claude-opus-5-5', content: [{ type: 'text', text: `Tests ran (${n}).` }], stop_reason: 'end_turn', usage }, uuid: uuid(), timestamp: time });
  }
  while (written < totalBytes && shape === 'chatty') {
    n++;
    const time = new Date(Date.UTC(2026, 10, 1, 0, 0, n)).toISOString();
    put({ parentUuid: parent, ...env, type: 'user', message: { role: 'user', content: `Turn ${n}: fix the next failing test` }, uuid: uuid(), timestamp: time });
    const id = `toolu_chatty_${n}`;
    const usage = { input_tokens: 10, cache_read_input_tokens: 1000 * n, cache_creation_input_tokens: 200, output_tokens: 40 };
    const before = text.slice((n * 97) % 100_000, (n * 97) % 100_000 + 200 + (n % 7) * 300);
    const after = before.replace(/compute/g, 'computeAll');
    const thinking = `The test fails because the input is not normalised before it is compared (turn ${n}). `.repeat(8 + (n % 12));
    put({ parentUuid: parent, ...env, type: 'assistant', requestId: `req_${n}`, message: { id: `msg_chatty_${n}`, role: 'assistant', model: 'claude-opus-5-5', content: [{ type: 'thinking', thinking, signature: 'sig'.repeat(40) }, { type: 'tool_use', id, name: 'Edit', input: { file_path: `/home/u/project/src/f${n % 50}.ts`, old_string: before, new_string: after } }], stop_reason: 'tool_use', usage }, uuid: uuid(), timestamp: time });
    put({ parentUuid: parent, ...env, type: 'progress', data: { type: 'hook_progress', hookEvent: 'PreToolUse', hookName: 'PreToolUse:Edit' }, uuid: uuid(), timestamp: time });
    put({ parentUuid: parent, ...env, type: 'progress', data: { type: 'hook_progress', hookEvent: 'PostToolUse', hookName: 'PostToolUse:Edit' }, uuid: uuid(), timestamp: time });
    const log = n % 40 === 0 ? dense.repeat(5) : `The file /home/u/project/src/f${n % 50}.ts has been updated. Here's the result of running \`cat -n\` on a snippet:\n${after}`;
    put({ parentUuid: parent, ...env, type: 'user', message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content: log }] }, uuid: uuid(), timestamp: time, toolUseResult: { filePath: `/home/u/project/src/f${n % 50}.ts`, oldString: before, newString: after, originalFile: n % 3 === 0 ? text.slice(0, 6_000) : null, structuredPatch: [{ oldStart: n, oldLines: 3, newStart: n, newLines: 3, lines: before.split('\n').slice(0, 6) }], userModified: false } });
    put({ parentUuid: parent, ...env, type: 'assistant', requestId: `req_${n}b`, message: { id: `msg_chatty_${n}b`, role: 'assistant', model: 'claude-opus-5-5', content: [{ type: 'text', text: `Fixed the comparison in f${n % 50}.ts; the test passes now.` }], stop_reason: 'end_turn', usage }, uuid: uuid(), timestamp: time });
    if (n % 5 === 0) put({ type: 'file-history-snapshot', messageId: uuid(), snapshot: { messageId: uuid(), trackedFileBackups: { [`src/f${n % 50}.ts`]: { backupFileName: `${uuid()}@v${n}`, version: n, backupTime: time } }, timestamp: time }, isSnapshotUpdate: false });
  }
  while (written < totalBytes) {
    n++;
    const time = new Date(Date.UTC(2026, 10, 1, 0, 0, n)).toISOString();
    put({ parentUuid: parent, ...env, type: 'user', message: { role: 'user', content: `Turn ${n}: read the next file` }, uuid: uuid(), timestamp: time });
    const id = `toolu_bench_${n}`;
    const msg = `msg_bench_${n}`;
    const usage = { input_tokens: 10, cache_read_input_tokens: 1000 * n, cache_creation_input_tokens: 200, output_tokens: 40 };
    put({ parentUuid: parent, ...env, type: 'assistant', requestId: `req_${n}`, message: { id: msg, role: 'assistant', model: 'claude-opus-5-5', content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: `/home/u/project/f${n}` } }], stop_reason: 'tool_use', usage }, uuid: uuid(), timestamp: time });
    put({ parentUuid: parent, ...env, type: 'progress', data: { type: 'hook_progress', hookEvent: 'PostToolUse', hookName: 'PostToolUse:Read' }, uuid: uuid(), timestamp: time });
    const image = n % 4 === 0;
    const content = image ? [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }] : [{ type: 'text', text }];
    const copy = image ? { type: 'image', file: { base64: png, type: 'image/png', originalSize: png.length } } : { type: 'text', file: { filePath: `/home/u/project/f${n}`, content: text, numLines: 1600 } };
    put({ parentUuid: parent, ...env, type: 'user', message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content }] }, uuid: uuid(), timestamp: time, toolUseResult: copy });
    put({ parentUuid: parent, ...env, type: 'assistant', requestId: `req_${n}b`, message: { id: `${msg}b`, role: 'assistant', model: 'claude-opus-5-5', content: [{ type: 'text', text: `Read file ${n}.` }], stop_reason: 'end_turn', usage }, uuid: uuid(), timestamp: time });
    put({ type: 'cost-state', sessionId, totalCostUSD: n * 0.01, modelUsage: {} });
  }
  fs.closeSync(fd);
  return written;
}
