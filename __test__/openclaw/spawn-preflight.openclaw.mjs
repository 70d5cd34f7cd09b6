// The spawn pre-flight in the real chain: the model's `sessions_spawn` of
// Claude Code through ACP (here through the Gateway's POST /tools/invoke,
// which runs the same before_tool_call hooks), OpenClaw 2026.9.6, acpx
// 0.19.1, the Claude Agent ACP adapter 0.76.0 and its Claude Code binary,
// against a fake Messages API (see acp-chain.mjs). Every scenario asserts
// on what Claude Code sent to the API and on the transcripts it wrote.
// One gateway serves every scenario; they use different repositories
// where they would otherwise meet.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { addon } from '../support/helpers.mjs';
import { startFakeAnthropic } from '../support/fake-anthropic.mjs';
import { PLUGIN_ID, packedPlugin } from './support/pack.mjs';
import { closeChain, gitRepo, isTitleRequest, lineText, sleep, startChain, taskMessage, transcriptsOf, until, userTexts } from './support/acp-chain.mjs';
import { scriptedClaude } from './support/scripted-models.mjs';

/** Claude Code's scripted model (tool calls and holds by a word of the task). */
const claude = scriptedClaude();

let api;
let chain;
/**
 * Repositories: alpha (briefing, attribution), beta (busy), epsilon (the
 * other repository), gamma and delta (continuation), eta (resuming a
 * persistent spawn), zeta (the plugin failing).
 */
const repos = {};

before(async () => {
  api = await startFakeAnthropic({ respond: (req) => claude.answer(req), log: process.env.OSI_CHAIN_DEBUG ? (l) => console.error(`# api ${l}`) : undefined });
  chain = await startChain({ api, plugin: await packedPlugin() });
  const base = path.join(chain.scratch, 'repos');
  repos.alpha = gitRepo(path.join(base, 'alpha'), { branch: 'feature/cart', files: { 'README.md': '# shop\n', 'src/cart.js': 'export const total = (items) => items.length;\n' }, message: 'Add the cart' });
  fs.writeFileSync(path.join(repos.alpha.dir, 'src', 'cart.js'), 'export const total = (items) => items.reduce((s, i) => s + i.price, 0);\n');
  fs.writeFileSync(path.join(repos.alpha.dir, 'NOTES.md'), 'totals in cents\n');
  for (const name of ['beta', 'gamma', 'delta', 'epsilon', 'eta', 'zeta']) repos[name] = gitRepo(path.join(base, name), { files: { 'README.md': `# ${name}\n`, 'src/index.js': '// entry\n' } });
}, { timeout: 900_000 });

after(async () => {
  claude.releaseAll();
  await closeChain(chain, api);
});

/** A transcript by session id, anywhere under the scratch Claude config dir. */
const transcript = (sessionId) => chain.transcript(sessionId);
/** Whether a Claude Code process of `sessionId` still runs. */
const claudeRunning = (sessionId) => chain.claudeRunning(sessionId);
/** Waits until Claude Code answered in `sessionId` and its process is gone. */
const ended = (sessionId) => chain.finished(sessionId);

/** The result of a sessions_spawn call that OpenClaw accepted. */
function accepted(res) {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const details = res.body?.result?.details;
  assert.equal(details?.status, 'accepted', JSON.stringify(res.body));
  return details;
}

/** The reason a sessions_spawn call was blocked with. */
function blocked(res) {
  assert.equal(res.body?.ok, false, `expected a block, got ${JSON.stringify(res.body)}`);
  assert.equal(res.body.error?.type, 'tool_call_blocked', JSON.stringify(res.body));
  return res.body.error.message;
}

/**
 * Spawns Claude Code with `args` (from the conversation `origin`, see
 * `chain.invoke`) and waits for its first request to the API (and, unless
 * `wait` is false, for its end). Returns OpenClaw's child key, Claude
 * Code's session id and the task message it sent.
 */
async function spawnClaude(args, { wait = true, origin } = {}) {
  for (let attempt = 1; ; attempt++) {
    const { childSessionKey } = accepted(await chain.spawnClaude(args, { origin }));
    const sent = api.waitForRequest((r) => !isTitleRequest(r) && (taskMessage(r) ?? '').includes(args.task), 300_000)
      .catch((e) => assert.fail(`${e.message}: Claude Code never sent the task of ${childSessionKey}\n${chain.diagnostics()}`));
    let settled = false;
    // OpenClaw may fail it before its first turn (HOST_SPAWN_RACES): only such a spawn is made again.
    const raced = until(`${childSessionKey} to fail before its first turn`,
      async () => settled || Boolean(await chain.hostFailedSpawn(childSessionKey)), 300_000, 5000).catch(() => new Promise(() => {}));
    const req = await Promise.race([sent, raced]);
    settled = true;
    if (req === true) {
      sent.catch(() => {});
      assert.ok(attempt < 3, `OpenClaw failed ${attempt} spawns of "${args.task}" before their first turn`);
      console.error(`# OpenClaw failed ${childSessionKey} before its first turn (${await chain.hostFailedSpawn(childSessionKey)}); spawning it again`);
      continue;
    }
    if (wait) await ended(req.sessionId);
    return { childSessionKey, sessionId: req.sessionId, sent: taskMessage(req) };
  }
}

/**
 * A Claude Code session started in a terminal (`claude -p`, the same
 * binary, the same config dir), not through OpenClaw. Run asynchronously:
 * the fake API answers from this process.
 */
async function terminalClaude(cwd, prompt) {
  const child = spawn(chain.packages.claude, ['-p', prompt, '--dangerously-skip-permissions'], { cwd, env: chain.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
  const code = await new Promise((ok) => child.on('exit', ok));
  clearTimeout(timer);
  assert.equal(code, 0, `claude -p ${prompt}: ${out}`);
  const req = api.requests.findLast((r) => !isTitleRequest(r) && (taskMessage(r) ?? '').startsWith(prompt));
  return req.sessionId;
}

/** discoverSessions as a user calls it on the gateway's state. */
const discover = (repo) => addon.discoverSessions(repo, { claudeConfigDir: chain.claudeDir, registryRoot: chain.state, persistentCache: false });

const CART_TASK = 'Refactor the cart totals to use integer cents';
let cart;

test('a spawn with cwd on a git repository runs Claude Code there: the API sees the task, the transcript is in the config dir', { timeout: 600_000 }, async () => {
  cart = await spawnClaude({ task: CART_TASK, cwd: repos.alpha.dir, label: 'cart-cents' });
  assert.match(cart.childSessionKey, /^agent:claude:acp:/);
  assert.ok(cart.sent.includes(CART_TASK), cart.sent);
  const lines = transcript(cart.sessionId);
  assert.ok(lines, `no transcript of ${cart.sessionId} under ${chain.claudeDir}`);
  const user = lines.find((l) => l.type === 'user');
  assert.equal(user.cwd, repos.alpha.dir);
  assert.equal(user.entrypoint, 'sdk-ts');
  assert.equal(user.gitBranch, 'feature/cart');
  assert.ok(lines.some((l) => l.type === 'assistant' && lineText(l) === `Done: ${CART_TASK}`));
  assert.deepEqual(transcriptsOf(chain.claudeDir, repos.alpha.dir).map((t) => t.sessionId), [cart.sessionId], 'one session, in the repository\'s project folder');
});

test('the briefing: the unchanged task first, then the real branch, head commit and changed files; titled by its task', { timeout: 300_000 }, async () => {
  assert.ok(cart, 'the first spawn ran');
  const sent = cart.sent;
  assert.ok(sent.startsWith(`${CART_TASK}\n\n`), `the task comes first, unchanged:\n${sent}`);
  const briefing = sent.slice(CART_TASK.length);
  const head = repos.alpha.git('rev-parse', '--short', 'HEAD');
  assert.match(briefing, /branch feature\/cart/, briefing);
  assert.ok(briefing.includes(head), `head commit ${head} in:\n${briefing}`);
  assert.match(briefing, /Add the cart/, 'the head commit\'s message');
  assert.match(briefing, /src\/cart\.js/, 'the modified file');
  assert.match(briefing, /NOTES\.md/, 'the untracked file');
  assert.match(briefing, /1 modified, 1 untracked/);
  assert.ok(briefing.length <= 1500 + 2, `bounded (${briefing.length} characters)`);
  assert.equal(addon.parseOriginMarker(briefing)?.agent, 'main', 'the origin marker names the requesting agent');
  // The first user line Claude Code wrote starts with the task.
  const user = transcript(cart.sessionId).find((l) => l.type === 'user');
  assert.ok(lineText(user).startsWith(`${CART_TASK}\n`), lineText(user));
  // Discovery titles the session by its task, the marker as its source.
  const session = (await discover(repos.alpha.dir)).find((s) => s.sessionId === cart.sessionId);
  assert.ok(session, 'discovered');
  assert.equal(session.title, CART_TASK);
  assert.equal(session.firstMessage, CART_TASK);
  assert.equal(session.originMarker, 'main', 'the marker is reported as the source: the requesting agent');
  assert.doesNotMatch(`${session.title}\n${session.firstMessage}`, /\[openclaw:|Briefing from OpenClaw/);
  // Claude Code's own title request saw the task first.
  const titleReq = api.requests.find((r) => r.sessionId === cart.sessionId && r.lastUserText.startsWith('<session>'));
  if (titleReq) assert.equal(titleReq.lastUserText.split('\n')[1], CART_TASK);
});

test('the guards: no cwd, a missing cwd and a resume of a gone transcript are blocked with their reason, before Claude Code starts', { timeout: 300_000 }, async () => {
  const before = api.requests.length;
  const noCwd = blocked(await chain.spawnClaude({ task: 'Fix the login redirect' }));
  assert.match(noCwd, /`cwd`/);
  assert.match(noCwd, /workspace/i);
  const nowhere = path.join(chain.scratch, 'repos', 'does-not-exist');
  const missing = blocked(await chain.spawnClaude({ task: 'Fix the login redirect', cwd: nowhere }));
  assert.ok(missing.includes(nowhere), missing);
  assert.match(missing, /does not exist/);
  // A resume of a session whose transcript is gone: our reason, not OpenClaw's resume_forbidden.
  const gone = randomUUID();
  const noTranscript = blocked(await chain.spawnClaude({ task: 'Fix the login redirect', cwd: repos.epsilon.dir, resumeSessionId: gone }));
  assert.ok(noTranscript.includes(gone), noTranscript);
  assert.match(noTranscript, /transcript is gone.*Omit resumeSessionId/s);
  await sleep(3000);
  assert.equal(api.requests.slice(before).filter((r) => (taskMessage(r) ?? '').includes('login redirect')).length, 0, 'Claude Code never ran');
});

test('the busy guard: a repository where a spawned Claude Code is working is blocked, naming it, across a config reload; another repository is not', { timeout: 600_000 }, async () => {
  const release = claude.hold('Slowly rename');
  try {
    await busyScenario(release);
  } finally {
    release();
  }
});

/** The busy guard's steps; `release` lets the first spawn's held answer go. */
async function busyScenario(release) {
  const first = await spawnClaude({ task: 'Slowly rename the entry module', cwd: repos.beta.dir }, { wait: false });
  assert.ok(claudeRunning(first.sessionId), 'Claude Code is in flight');
  // The plugin learns the Claude session id of its spawn from the transcript.
  await sleep(6000);
  // A config change reloads the plugin, a fresh copy of it: the spawn in
  // flight is still tracked (blocked as this gateway's spawn, naming its
  // child, not only by Claude Code's liveness record).
  // Isolation off: the busy guard decides (with isolation, the default, the
  // spawn would run in a worktree instead; agent-turn.openclaw.mjs proves that).
  await reconfigure({ spawnPreflight: { busyWindowSeconds: 11, isolation: 'off' } });
  const reason = blocked(await chain.spawnClaude({ task: 'Add a changelog', cwd: repos.beta.dir }));
  assert.ok(reason.includes(first.sessionId), `names the Claude session: ${reason}`);
  assert.ok(reason.includes(first.childSessionKey), `names OpenClaw's child: ${reason}`);
  assert.match(reason, /spawned through OpenClaw and not finished/);
  assert.ok(reason.includes(repos.beta.dir), reason);
  // The same moment, another repository: not blocked, runs to its end.
  const other = await spawnClaude({ task: 'Add a changelog to epsilon', cwd: repos.epsilon.dir });
  assert.ok(transcript(other.sessionId));
  assert.ok(claudeRunning(first.sessionId), 'the first still works');
  release();
  await ended(first.sessionId);
  // Once it has finished, the repository takes spawns again.
  await until('beta to take spawns again', async () => {
    const res = await chain.spawnClaude({ task: 'Add a changelog to beta', cwd: repos.beta.dir });
    if (res.body?.ok === false) return false;
    accepted(res);
    return true;
  }, 120_000, 3000);
  const again = await api.waitForRequest((r) => (taskMessage(r) ?? '').startsWith('Add a changelog to beta'), 300_000);
  await ended(again.sessionId);
  await reconfigure({});
}

test('continuation: a related task carries the earlier session\'s context; an unrelated one does not; neither resumes it', { timeout: 900_000 }, async () => {
  // An earlier session in each repository, from a terminal: it writes src/webhooks.js.
  const earlierTask = 'Add a webhook handler for payments in src/webhooks.js';
  const earlier = {};
  for (const name of ['gamma', 'delta']) {
    claude.script('payments in src/webhooks.js', [{ name: 'Write', input: { file_path: path.join(repos[name].dir, 'src', 'webhooks.js'), content: 'export function onPayment() {}\n' } }]);
    earlier[name] = await terminalClaude(repos[name].dir, earlierTask);
    assert.ok(fs.existsSync(path.join(repos[name].dir, 'src', 'webhooks.js')), 'the earlier session wrote its file');
  }
  const sizes = Object.fromEntries(Object.entries(earlier).map(([k, id]) => [k, transcript(id).length]));
  await sleep(12_000); // past the window in which a just-written transcript counts as running

  const related = await spawnClaude({ task: 'Add retries to the payments webhook handler', cwd: repos.gamma.dir });
  assert.notEqual(related.sessionId, earlier.gamma, 'a fresh session');
  assert.ok(related.sent.startsWith('Add retries to the payments webhook handler\n\n'), related.sent);
  assert.match(related.sent, new RegExp(`Earlier session on this work: ${earlier.gamma}`), related.sent);
  assert.ok(related.sent.includes(`It was asked: "${earlierTask}"`), related.sent);
  assert.match(related.sent, /Files it touched: [^\n]*src\/webhooks\.js/, related.sent);

  const unrelated = await spawnClaude({ task: 'Translate the README into French', cwd: repos.delta.dir });
  assert.notEqual(unrelated.sessionId, earlier.delta);
  assert.doesNotMatch(unrelated.sent, /Earlier session on this work/, unrelated.sent);
  assert.deepEqual(Object.fromEntries(Object.entries(earlier).map(([k, id]) => [k, transcript(id).length])), sizes, 'neither earlier session was resumed');
});

/** OpenClaw's ACP records (see `chain.acpRecords`). */
const acpRecords = () => chain.acpRecords();

test('attribution outlives OpenClaw\'s ACP record: the spawned session is source openclaw with label and task; a terminal session stays native', { timeout: 600_000 }, async () => {
  assert.ok(cart, 'the first spawn ran');
  await until(`OpenClaw to drop its ACP record of ${cart.childSessionKey}`, async () => !(await acpRecords()).some((r) => r.key === cart.childSessionKey), 300_000, 5000);
  // A session started in a terminal in the same repository.
  const terminalId = await terminalClaude(repos.alpha.dir, 'Explain the cart module');
  const sessions = await discover(repos.alpha.dir);
  const spawned = sessions.find((s) => s.sessionId === cart.sessionId);
  assert.equal(spawned?.source, 'openclaw', JSON.stringify(spawned));
  assert.equal(spawned.label, 'cart-cents');
  assert.equal(spawned.agentId, 'main');
  assert.equal(spawned.lastTask ?? spawned.firstMessage, CART_TASK);
  const terminal = sessions.find((s) => s.sessionId === terminalId);
  assert.equal(terminal?.firstMessage, 'Explain the cart module', JSON.stringify(sessions.map((s) => [s.sessionId, s.firstMessage])));
  assert.equal(terminal.source, 'native-only');
  // The same through the plugin's tool in the gateway.
  const tool = await chain.invoke('claude_code_sessions', { repoPath: repos.alpha.dir });
  const listed = tool.body?.result?.details?.sessions ?? [];
  const viaTool = listed.find((s) => s.sessionId === cart.sessionId);
  assert.equal(viaTool?.source, 'openclaw', JSON.stringify(tool.body).slice(0, 2000));
});

/** Sets the plugin's config and waits until the gateway has applied it (no restart). */
async function reconfigure(config) {
  const logBefore = chain.log().length;
  chain.setPluginConfig(config);
  await until('the gateway to apply the plugin config', () => new RegExp(`config hot reload applied \\([^)]*${PLUGIN_ID}`).test(chain.log().slice(logBefore)), 300_000, 500);
}

/** The plugin's record of the spawn whose marker Claude Code received in `sent`. */
const spawnRecordOf = (sent) => chain.spawnRecordOf(sent);

/**
 * The conversation a persistent spawn is bound to: OpenClaw's own chat
 * (`webchat`) binds a spawn to the current conversation through OpenClaw's
 * generic conversation bindings, which `mode: "session"` requires
 * (`thread: true`). Its replies cannot be delivered to a chat channel here,
 * so such a spawn streams to its requester (`streamTo: "parent"`).
 */
const WEBCHAT_THREAD = { channel: 'webchat', threadId: 'osi-chain-thread-1' };

test('continuation by resuming: a related task resumes the requester\'s idle persistent spawn, which OpenClaw still holds, and the same transcript grows; an unrelated one starts afresh beside it', { timeout: 600_000 }, async () => {
  const firstTask = 'Add a webhook handler for refunds in src/refunds.js';
  const first = await spawnClaude({ task: firstTask, cwd: repos.eta.dir, mode: 'session', thread: true, streamTo: 'parent' }, { wait: false, origin: WEBCHAT_THREAD });
  await until(`Claude Code to answer in ${first.sessionId}`, () => transcript(first.sessionId)?.some((l) => l.type === 'assistant' && lineText(l) === `Done: ${firstTask}`), 300_000);
  // Its task is over, its Claude Code process idles; OpenClaw still records the session for the requester.
  const record = (await acpRecords()).find((r) => r.key === first.childSessionKey);
  assert.ok(record, `OpenClaw keeps its ACP record of ${first.childSessionKey}`);
  assert.equal(record.identity.acpxSessionId, first.sessionId);
  await until('the plugin to learn the persistent spawn\'s session', async () => (await spawnRecordOf(first.sent))?.claudeSessionId === first.sessionId, 120_000, 1000);
  const before = transcript(first.sessionId).length;

  // A related task, without resumeSessionId: the pre-flight resumes the idle session.
  const logBefore = chain.log().length;
  const task = 'Add retries to the refunds webhook handler';
  const { childSessionKey } = accepted(await chain.spawnClaude({ task, cwd: repos.eta.dir }));
  assert.notEqual(childSessionKey, first.childSessionKey, 'a new OpenClaw child');
  const req = await api.waitForRequest((r) => !isTitleRequest(r) && r.lastUserText.startsWith(task), 300_000);
  assert.equal(req.sessionId, first.sessionId, 'Claude Code continued the same session');
  assert.ok(userTexts(req).some((t) => t.startsWith(firstTask)), 'the request carries the first task in its history');
  assert.match(chain.log().slice(logBefore), new RegExp(`spawn pre-flight resume [0-9a-f]+ in \\d+ ms: resuming Claude Code session ${first.sessionId}`));
  await until(`Claude Code to answer the resumed task in ${first.sessionId}`, () => transcript(first.sessionId).some((l) => l.type === 'assistant' && lineText(l).startsWith(`Done: ${task}`)), 300_000);
  assert.ok(transcript(first.sessionId).length > before, 'the same transcript grew');
  assert.deepEqual(transcriptsOf(chain.claudeDir, repos.eta.dir).map((t) => t.sessionId), [first.sessionId], 'no other session in the repository');

  // An unrelated task: a fresh session, not held up by the idle one.
  const other = await spawnClaude({ task: 'Translate the eta README to German', cwd: repos.eta.dir });
  assert.notEqual(other.sessionId, first.sessionId);
});

test('the plugin failing (its Claude config dir is a file) never stops a spawn: Claude Code gets the task and the origin marker, and the spawn is recorded', { timeout: 600_000 }, async () => {
  const file = path.join(chain.scratch, 'not-a-folder');
  fs.writeFileSync(file, 'x');
  const logBefore = chain.log().length;
  await reconfigure({ claudeConfigDir: file });
  const task = 'Document the zeta entry module';
  const run = await spawnClaude({ task, cwd: repos.zeta.dir, label: 'zeta-docs' });
  assert.ok(run.sent.startsWith(`${task}\n\n---\n[openclaw:agent=main,spawn=`), run.sent);
  assert.doesNotMatch(run.sent, /Briefing from OpenClaw/, 'no briefing: the pre-flight failed');
  assert.ok(transcript(run.sessionId).some((l) => l.type === 'assistant'), 'Claude Code ran');
  assert.match(chain.log().slice(logBefore), /spawn pre-flight failed, the spawn proceeds with its task and origin marker only/);
  const rec = await spawnRecordOf(run.sent);
  assert.deepEqual([rec?.task, rec?.label, rec?.cwd, rec?.decision], [task, 'zeta-docs', repos.zeta.dir, 'failed']);
  // The plugin cannot read its transcripts, so it never learns the session:
  // discovery still finds it OpenClaw's, by the nonce its first prompt carries.
  assert.equal(rec.claudeSessionId, undefined);
  const listed = (await discover(repos.zeta.dir)).find((s) => s.sessionId === run.sessionId);
  assert.deepEqual([listed?.source, listed?.label, listed?.agentId, listed?.title], ['openclaw', 'zeta-docs', 'main', task]);
});

test('a pre-flight out of time never delays a spawn: Claude Code gets the task and the origin marker, and the session is recorded as OpenClaw\'s', { timeout: 600_000 }, async () => {
  const logBefore = chain.log().length;
  await reconfigure({ spawnPreflight: { budgetMs: 1 } });
  const task = 'Add a zeta changelog entry';
  const run = await spawnClaude({ task, cwd: repos.zeta.dir, label: 'zeta-log' });
  assert.ok(run.sent.startsWith(`${task}\n\n---\n[openclaw:agent=main,spawn=`), run.sent);
  assert.doesNotMatch(run.sent, /Briefing from OpenClaw/);
  assert.match(chain.log().slice(logBefore), /spawn pre-flight took longer than 1 ms, the spawn proceeds with its task and origin marker only/);
  await until('the plugin to learn the session of the overrun spawn', async () => (await spawnRecordOf(run.sent))?.claudeSessionId === run.sessionId, 120_000, 1000);
  assert.equal((await spawnRecordOf(run.sent)).decision, 'overrun');
  const listed = (await discover(repos.zeta.dir)).find((s) => s.sessionId === run.sessionId);
  assert.deepEqual([listed?.source, listed?.label, listed?.title], ['openclaw', 'zeta-log', task]);
  await reconfigure({});
});

test('the gateway stays healthy and, stopped, leaves nothing running', { timeout: 300_000 }, async () => {
  assert.equal(chain.call('health').ok, true);
  const left = await chain.stop();
  assert.deepEqual(left, [], 'nothing left running after the gateway stopped');
  assert.doesNotMatch(chain.log(), /before_tool_call hook failed|panicked/);
  assert.equal(api.requests.filter((r) => r.path.startsWith('/v1/messages') && !r.completed).length, 0, 'every answer was delivered');
});
