// slimClaudeSession against the real Claude Code CLI (2.1.328), run offline
// against the fake Messages API (npm run test:claude). One session bloats the
// way real ones do, through the CLI's own tools: it reads two large text
// files and a large PNG (Read), prints a long output (Bash), delegates to a
// subagent (Agent), after a /compact. Then, slimmed in place, `claude
// --resume <id> -p` sends the same conversation (the same prompts and
// answers in order, every tool_use with its tool_result) in far fewer bytes
// than the same resume of an unslimmed copy; discovery's totals do not move;
// restore gives the original back byte for byte; a fork resumes under its own
// id and title; a subagent's own transcript is not re-sent on resume (so a
// slim leaves it alone); the CLI's own `--resume` picker lists a slimmed session under
// its title and a fork under its own; a session whose CLI is running is
// refused.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import crypto from 'node:crypto';
import { addon, tempDir } from './support/helpers.mjs';
import { startFakeAnthropic } from './support/fake-anthropic.mjs';
import { claudeBinary, claudeInTerminal, claudeScratch, gitRepo, hasTmux, print, runClaude, startClaude } from './support/claude-cli.mjs';

const FLAGS = ['--tools', 'Read,Bash,Agent', '--system-prompt', 'You are a test agent.'];

/** A valid PNG of `w`×`h` random RGB pixels (does not compress). */
function noisePng(w, h) {
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const rows = [];
  for (let y = 0; y < h; y++) rows.push(Buffer.from([0]), crypto.randomBytes(w * 3));
  const idat = zlib.deflateSync(Buffer.concat(rows));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** ~`bytes` of numbered text lines. */
const textFile = (name, bytes) => Array.from({ length: Math.ceil(bytes / 100) }, (_, i) => `${name} line ${String(i).padStart(5, '0')}: ${'lorem ipsum dolor sit amet '.repeat(3)}`.slice(0, 99)).join('\n');

let box;
let api;
let repo;
let sessionId;
const prompts = ['Hello there', '/compact', 'read: the first notes file', 'read2: the second notes file', 'image: look at the screenshot', 'bash: print many numbers', 'fg: count the files with a helper'];

function responder(held) {
  return (req) => {
    const prompt = req.lastUserText;
    if (prompt.includes('Respond with TEXT ONLY')) return { text: '<analysis>Short chat.</analysis>\n<summary>The user said hello; nothing else happened.</summary>' };
    if (req.agentId) return { text: `Subagent report: ${prompt.slice(0, 40)}` };
    if (req.toolResults.length) return { text: `Done with the tool for: ${prompt.slice(0, 40)}` };
    const read = (file) => ({ toolCalls: [{ name: 'Read', input: { file_path: path.join(repo, file) } }] });
    if (prompt.startsWith('read:')) return read('notes-a.txt');
    if (prompt.startsWith('read2:')) return read('notes-b.txt');
    if (prompt.startsWith('image:')) return read('screenshot.png');
    if (prompt.startsWith('bash:')) return { toolCalls: [{ name: 'Bash', input: { command: 'seq 1 40000', description: 'Print many numbers' } }] };
    if (prompt.startsWith('fg:')) return { toolCalls: [{ name: 'Agent', input: { description: 'Count files', prompt: 'Count the files in the repository.', subagent_type: 'general-purpose', model: 'haiku', run_in_background: false } }] };
    if (prompt.startsWith('slow:')) return { text: 'Slow answer.', hold: held };
    return { text: `Answer to: ${prompt.slice(0, 60)}` };
  };
}

/** The conversation of a request: prompts, answers, tool calls and results, in order. */
function conversation(messages) {
  const out = [];
  for (const m of messages) {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const b of blocks) {
      if (b.type === 'text' && !b.text.startsWith('<system-reminder>')) out.push(`${m.role}: ${b.text.slice(0, 200)}`);
      else if (b.type === 'tool_use') out.push(`tool_use ${b.id} ${b.name}`);
      else if (b.type === 'tool_result') out.push(`tool_result ${b.tool_use_id}`);
    }
  }
  return out;
}

let release;
const held = new Promise((r) => { release = r; });

before(async () => {
  claudeBinary();
  box = claudeScratch('osi-cc-slim-');
  repo = gitRepo(path.join(box.root, 'work', 'bloat'), { 'README.md': '# bloat\n' });
  fs.writeFileSync(path.join(repo, 'notes-a.txt'), textFile('a', 80_000));
  fs.writeFileSync(path.join(repo, 'notes-b.txt'), textFile('b', 80_000));
  fs.writeFileSync(path.join(repo, 'screenshot.png'), noisePng(320, 320));
  api = await startFakeAnthropic({ respond: responder(held) });
  for (const p of prompts) {
    const r = await runClaude(box, api, print(p, ...FLAGS, ...(sessionId ? ['--resume', sessionId] : [])), { cwd: repo });
    sessionId ??= r.sessionId;
    assert.equal(r.sessionId, sessionId);
  }
}, { timeout: 600_000 });

after(() => {
  release();
  return api?.close();
});

const transcript = () => path.join(box.config, 'projects', fs.readdirSync(path.join(box.config, 'projects'))[0], `${sessionId}.jsonl`);
const discovered = async (id = sessionId) => (await addon.discoverSessions(repo, { claudeConfigDir: box.config, registryRoot: tempDir('osi-slim-state-'), persistentCache: false })).find((s) => s.sessionId === id);
const TOTALS = ['totalInputTokens', 'totalOutputTokens', 'cacheReadTokens', 'cacheCreationTokens', 'totalCostUsd', 'title', 'firstMessage', 'lastUserMessage', 'promptCount', 'responseCount', 'compactionCount', 'subagentCount'];
const pick = (s) => Object.fromEntries(TOTALS.map((k) => [k, s[k]]));

/** Resumes `id` in `config` with `prompt`; returns the main-thread request the fake API logged for it. */
async function resume(config, id, prompt) {
  await runClaude({ ...box, config }, api, print(prompt, ...FLAGS, '--resume', id), { cwd: repo });
  return api.requests.filter((r) => r.lastUserText === prompt && !r.claudeHeaders['x-claude-code-agent-id']).at(-1);
}

test('the session bloated through the CLI: an image, long files and output, a subagent, a compaction', () => {
  const text = fs.readFileSync(transcript(), 'utf8');
  assert.ok(text.includes('"type":"image"'), 'the image was read');
  assert.ok(text.includes('"compact_boundary"'), 'compacted');
  assert.ok(text.length > 500_000, `${text.length} bytes`);
  assert.ok(fs.existsSync(path.join(path.dirname(transcript()), sessionId, 'subagents')), 'a subagent ran');
});

test('discovery says what a slim would save, as a dry run of the slim measures it, and names the session worth slimming', async () => {
  const s = await discovered();
  const dry = await addon.slimClaudeSession(sessionId, { claudeConfigDir: box.config, dryRun: true });
  assert.deepEqual([s.slimSavingsBytes, s.slimSavingsTokens], [dry.sizeOriginal - dry.sizeAfter, dry.estimatedInputTokensSaved]);
  assert.ok(s.slimSavingsBytes > s.fileSizeBytes / 2, `${s.slimSavingsBytes} of ${s.fileSizeBytes}`);
  assert.deepEqual(addon.sessionListToolPayload([s]).worthSlimming, [sessionId]);
});

test('slimmed in place: discovery unchanged, restore byte for byte, and the resume sends the same conversation in ≥ 60 % fewer bytes', async (t) => {
  const original = fs.readFileSync(transcript());
  // An unslimmed copy of the whole config, resumed from the same folder.
  const copy = path.join(box.root, 'config-unslimmed');
  fs.cpSync(box.config, copy, { recursive: true });
  const before = pick(await discovered());

  const r = await addon.slimClaudeSession(sessionId, { claudeConfigDir: box.config });
  assert.equal(r.changed, true);
  assert.ok(r.stats.imagesRemoved >= 1 && r.stats.toolResultsCut >= 2, JSON.stringify(r.stats));

  await t.test("discovery's totals are unchanged", async () => {
    assert.deepEqual(pick(await discovered()), before);
  });

  await t.test('restore gives the original back byte for byte, and slimming again gives the same file', async () => {
    const slimmed = fs.readFileSync(transcript());
    await addon.restoreClaudeSession(sessionId, { claudeConfigDir: box.config });
    assert.ok(fs.readFileSync(transcript()).equals(original));
    await addon.slimClaudeSession(sessionId, { claudeConfigDir: box.config });
    assert.ok(fs.readFileSync(transcript()).equals(slimmed));
  });

  const next = 'What did we do so far?';
  const full = await resume(copy, sessionId, next);
  const slim = await resume(box.config, sessionId, next);
  assert.ok(full && slim, 'both resumes reached the API');

  await t.test('the same conversation: prompts, answers, tool calls and results in order', () => {
    const a = conversation(full.messages);
    const b = conversation(slim.messages);
    assert.deepEqual(b.filter((l) => !l.startsWith('user: ')), a.filter((l) => !l.startsWith('user: ')));
    // Typed prompts as they were (a cut tool output is not a prompt).
    const typed = (c) => c.filter((l) => prompts.some((p) => l === `user: ${p}`) || l === `user: ${next}`);
    assert.deepEqual(typed(b), typed(a));
    assert.ok(typed(b).length >= 5, typed(b).join('\n'));
    const uses = b.filter((l) => l.startsWith('tool_use ')).map((l) => l.split(' ')[1]);
    const results = b.filter((l) => l.startsWith('tool_result ')).map((l) => l.split(' ')[1]);
    assert.deepEqual(results, uses, 'every tool_use has its tool_result');
    const names = b.filter((l) => l.startsWith('tool_use ')).map((l) => l.split(' ')[2]);
    for (const tool of ['Read', 'Bash', 'Agent']) assert.ok(names.includes(tool), names.join(' '));
  });

  await t.test('at least 60 % fewer input bytes', () => {
    const bytes = (req) => JSON.stringify(req.messages).length;
    const saved = 1 - bytes(slim) / bytes(full);
    t.diagnostic(`messages: ${bytes(full)} → ${bytes(slim)} bytes (${Math.round(saved * 100)} % fewer)`);
    assert.ok(saved >= 0.6, `${bytes(full)} → ${bytes(slim)}`);
    assert.ok(!JSON.stringify(slim.messages).includes('"type":"image"'), 'no image re-sent');
    assert.ok(JSON.stringify(full.messages).includes('"type":"image"'), 'the unslimmed copy re-sends the image');
  });
});

test("a subagent's own transcript is not re-sent on resume, so a slim leaves it alone", async () => {
  const subDir = path.join(path.dirname(transcript()), sessionId, 'subagents');
  const sub = path.join(subDir, fs.readdirSync(subDir).find((f) => f.endsWith('.jsonl')));
  const lines = fs.readFileSync(sub, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const last = lines.at(-1);
  // Bloated with a text only the subagent's transcript holds.
  lines.push({ ...last, uuid: crypto.randomUUID(), parentUuid: last.uuid, type: 'user', message: { role: 'user', content: [{ type: 'text', text: `SUBAGENT-ONLY ${'z'.repeat(300_000)}` }] } });
  fs.writeFileSync(sub, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  const bytes = fs.readFileSync(sub);
  const req = await resume(box.config, sessionId, 'Anything from the helper?');
  assert.ok(req, 'the resume reached the API');
  assert.ok(!JSON.stringify(req.messages).includes('SUBAGENT-ONLY'), 'the subagent transcript was not sent');
  assert.ok(JSON.stringify(req.messages).length < 100_000, `${JSON.stringify(req.messages).length} bytes`);
  await addon.slimClaudeSession(sessionId, { claudeConfigDir: box.config });
  assert.ok(fs.readFileSync(sub).equals(bytes), 'the subagent transcript is as it was');
});

test('a fork resumes under its own id and title; the original is untouched', async () => {
  const original = fs.readFileSync(transcript());
  const r = await addon.slimClaudeSession(sessionId, { claudeConfigDir: box.config, fork: true });
  assert.ok(fs.readFileSync(transcript()).equals(original));
  const listed = await discovered(r.forkSessionId);
  assert.equal(listed?.title, r.forkTitle);
  assert.match(r.forkTitle, /\(slimmed\)$/);
  const req = await resume(box.config, r.forkSessionId, 'Continue in the fork');
  assert.equal(req.sessionId, r.forkSessionId, 'the CLI resumed the fork under its id');
  assert.ok(conversation(req.messages).includes('user: read: the first notes file'), 'the history after the compaction was sent');
  assert.ok(fs.readFileSync(transcript()).equals(original), 'resuming the fork leaves the original alone');
});

test("the CLI's --resume picker lists a slimmed session under its title, and a fork under its own", { skip: !hasTmux && 'tmux is not installed' }, async () => {
  // A session made in a terminal, as a person makes one (the picker leaves
  // out the sessions of -p runs): it reads the screenshot.
  const prompt = 'image: look at the screenshot again';
  const made = claudeInTerminal(box, api, [prompt], { cwd: repo });
  const dir = path.dirname(transcript());
  const mine = () => fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')).map((f) => path.join(dir, f))
    .find((f) => { const text = fs.readFileSync(f, 'utf8'); return text.includes('"entrypoint":"cli"') && text.includes('Done with the tool for: image: look'); });
  try {
    await made.waitFor(/Done with the tool for/);
    for (let i = 0; i < 100 && !mine(); i++) await new Promise((r) => setTimeout(r, 50));
  } finally {
    await made.close();
  }
  const id = path.basename(mine(), '.jsonl');
  const slimmed = await addon.slimClaudeSession(id, { claudeConfigDir: box.config });
  assert.equal(slimmed.stats.imagesRemoved, 1, JSON.stringify(slimmed.stats));
  const fork = await addon.slimClaudeSession(id, { claudeConfigDir: box.config, fork: true, forkTitle: 'Screenshot look, lighter' });
  const title = (await discovered(id)).title;
  assert.equal(title, prompt);
  const picker = claudeInTerminal(box, api, ['--resume'], { cwd: repo });
  try {
    const screen = await picker.waitFor(/Screenshot look, lighter/);
    const labels = screen.split('\n').map((l) => l.replace(/^[\s❯]+/, '').trim());
    assert.ok(labels.includes(title), screen);
    assert.ok(labels.includes(fork.forkTitle), screen);
  } finally {
    await picker.close();
  }
});

test('a session whose CLI is running is refused, and left as it was', async () => {
  // A session with a transcript, resumed by a CLI that waits for its answer.
  const first = await runClaude(box, api, print('A short session', ...FLAGS), { cwd: repo });
  const child = startClaude(box, api, print('slow: think it over', ...FLAGS, '--resume', first.sessionId), { cwd: repo });
  const seen = await api.waitForRequest((r) => r.lastUserText === 'slow: think it over', 60_000);
  // The CLI's liveness record of that process (written soon after it starts; later on a loaded machine).
  const sessions = path.join(box.config, 'sessions');
  const record = () => fs.existsSync(sessions) && fs.readdirSync(sessions).some((f) => f.endsWith('.json') && fs.readFileSync(path.join(sessions, f), 'utf8').includes(String(child.pid)));
  for (let i = 0; i < 600 && !record(); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(record(), 'the CLI wrote its liveness record');
  const file = path.join(path.dirname(transcript()), `${seen.sessionId}.jsonl`);
  const bytes = fs.readFileSync(file);
  await assert.rejects(addon.slimClaudeSession(seen.sessionId, { claudeConfigDir: box.config, keepImages: true, toolResultMaxBytes: 10, keepHeadBytes: 1, keepTailBytes: 1 }), (e) => e.code === 'E_SESSION_BUSY' && e.message.includes(seen.sessionId) && e.message.includes(String(child.pid)));
  assert.ok(fs.readFileSync(file).equals(bytes));
  release();
  const done = await child.done;
  assert.equal(done.code, 0, done.stderr);
});
