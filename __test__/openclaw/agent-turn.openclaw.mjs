// Claude Code spawns made by OpenClaw's own agent, in the real chain: a user
// message to the gateway (`openclaw agent --message`), OpenClaw's agent loop
// with its model on the fake Messages API (a scripted model that calls
// `sessions_spawn` through Tool Search's `tool_call`, see support/scripted-models.mjs),
// the plugin's pre-flight in `before_tool_call`, OpenClaw's ACP control
// plane, acpx 0.19.1, the Claude Agent ACP adapter 0.76.0 and its Claude
// Code binary (answered by the same fake API), and the result announced back
// to the requester's model. Unlike a spawn through POST /tools/invoke, such
// a spawn gets OpenClaw's end-of-task events. Every scenario asserts on what
// Claude Code sent to the API, on the transcripts, and on what the agent's
// model was sent; the parallel ones (two spawns into one repository, a
// spawn into a repository where Claude Code is at work, a spawn right after
// a quick one) on git too: which spawn got the main working tree, which a
// worktree under `.claude/worktrees/` and its branch, what each committed
// where, what was removed at the end, and what `claude_code_spawns` and
// `/worktrees` say of it (docs/plugin.md, "Parallel spawns on one
// repository").
//
// What OpenClaw 2026.9.6 tells plugins about a model-made ACP spawn of
// Claude Code, as the first scenario asserts it (the hook recorder logs
// every event, see support/acp-chain.mjs):
// 1. `before_tool_call` for `sessions_spawn` (the plugin's pre-flight), with
//    a `toolCallId` of the form `tool_search_code:<the model's tool-use
//    id>:sessions_spawn:<n>` when the model called it through `tool_call`.
// 2. `subagent_progress` `{ phase: "started", runId, childSessionKey,
//    requester }`, ctx `{ runId, childSessionKey, requesterSessionKey }`,
//    as the child is dispatched, before the tool returns.
// 3. `after_tool_call` for `sessions_spawn`: `params` as the hooks rewrote
//    them (the briefed task), the same `toolCallId`, `result.details`
//    `{ status: "accepted", childSessionKey, runId, mode, … }` (a blocked
//    call: `{ status: "blocked", deniedReason: "plugin-before-tool-call",
//    reason }`); then `after_tool_call` for the `tool_call` wrapper.
// 4. When Claude Code's run has ended: `subagent_delivery_target`
//    `{ childSessionKey, requesterSessionKey, childRunId, spawnMode,
//    expectsCompletionMessage }`, then the announce run in the requester's
//    session (the model gets the child's last answer).
// 5. Only once the announce was delivered: `subagent_ended`
//    `{ targetSessionKey: <child key>, targetKind: "subagent", reason:
//    "subagent-complete", outcome: "ok", runId, endedAt }` (seconds after
//    the run itself ended; `endedAt` is when it did).
// Never for a spawn that ran: `subagent_progress` `ended`, `subagent_spawned`
// (a spawn OpenClaw fails before its first turn gets `subagent_progress`
// `{ phase: "ended", outcome: "error" }`).
// The child session key (`agent:claude:acp:<uuid>`) is OpenClaw's; the
// Claude session id is the adapter's. OpenClaw ties them only while its ACP
// record lives (`acp_sessions`: `identity.acpxSessionId` is the Claude
// session id; `session_id` is OpenClaw's id of the child session, which the
// announce calls `session_id`), and drops that record within a minute of the
// end; the plugin's spawn record keeps both.
//
// One gateway serves every scenario, each from its own requester session
// and in its own repository, so that announces and busy repositories do not
// cross; the restart comes last. A scenario whose spawn OpenClaw fails
// before its first turn (`HOST_SPAWN_RACES`, or its dispatch timing out
// under load) runs again, with new repositories, sessions and words, at
// most twice.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addon } from '../support/helpers.mjs';
import { startFakeAnthropic } from '../support/fake-anthropic.mjs';
import { packedPlugin } from './support/pack.mjs';
import { announcedKeys, newText, scriptedAgent, scriptedClaude } from './support/scripted-models.mjs';
import { closeChain, gitRepo, isTitleRequest, lineText, startChain, taskMessage, transcriptsOf, until } from './support/acp-chain.mjs';

const agent = scriptedAgent();
const claude = scriptedClaude();

let api;
let chain;

before(async () => {
  api = await startFakeAnthropic({
    respond: (req) => {
      if (!agent.handles(req)) return claude.answer(req);
      if (process.env.OSI_CHAIN_DEBUG) console.error(`# agent request #${req.n}, new:\n# ${newText(req).slice(0, 1500).replace(/\n/g, '\n# ')}`);
      return agent.answer(req);
    },
    log: process.env.OSI_CHAIN_DEBUG ? (l) => console.error(`# api ${new Date().toISOString()} ${l}`) : undefined,
  });
  chain = await startChain({ api, plugin: await packedPlugin(), agentModel: true });
}, { timeout: 900_000 });

after(async () => {
  agent.releaseAll();
  claude.releaseAll();
  await closeChain(chain, api);
});

/**
 * A run OpenClaw took another way than the scenario needs, through no fault
 * of the plugin: a spawn it failed before Claude Code got its task (one of
 * `HOST_SPAWN_RACES`, or a spawn it could not dispatch in time,
 * `DISPATCH_TIMEOUT`), or an order of its events the scenario cannot prove
 * anything with. The scenario runs again.
 */
class HostFailedSpawn extends Error {}

/**
 * The result of a spawn OpenClaw could not hand to its ACP runtime in time
 * (seen with a load average of 30 on two cores): `{ status: "error",
 * errorCode: "dispatch_failed", error: "gateway request timeout for agent" }`.
 */
const DISPATCH_TIMEOUT = (outcome) => outcome?.status === 'error' && outcome.errorCode === 'dispatch_failed' && /gateway request timeout/.test(outcome.error ?? '');

/** The index in the fake API's log of the first request of the scenario's attempt that runs now: an attempt reads no request of an earlier one. */
let attemptFrom = 0;

/**
 * A scenario: `body(run)` with `run.repo(name)` (a new git repository),
 * `run.word(w)`, `run.task(t)` and `run.session(s)` (a scripted word, a
 * spawn's task and a requester session key of this run: a spawn of an
 * earlier attempt may still be at work), `run.attempt` and `run.last`
 * (whether no attempt follows). A run OpenClaw took another way than the scenario
 * needs (`HostFailedSpawn`) is made again, at most twice.
 */
function scenario(name, options, body) {
  test(name, options, async (t) => {
    for (let attempt = 1; ; attempt++) {
      const tag = attempt === 1 ? '' : `-${attempt}`;
      attemptFrom = api.requests.length;
      const run = {
        attempt,
        last: attempt >= 3,
        repo: (n) => gitRepo(path.join(chain.scratch, 'repos', `${n}${tag}`), { files: { 'README.md': `# ${n}\n`, 'src/index.js': '// entry\n' } }),
        word: (w) => `${w}${tag.toUpperCase()}`,
        task: (text) => (attempt === 1 ? text : `${text} (attempt ${attempt})`),
        session: (s) => `agent:main:${s}${tag}`,
      };
      try {
        return await body(run, t);
      } catch (e) {
        if (!(e instanceof HostFailedSpawn) || attempt >= 3) throw e;
        t.diagnostic(`${e.message}; running the scenario again`);
      }
    }
  });
}

/**
 * Sends the user message `message` (holding the scripted word `word`) to
 * the requester session `sessionKey` and waits for the turn to end.
 * Resolves to the reply's text and the outcomes of the turn's spawns.
 */
async function userTurn(word, message, sessionKey) {
  const turn = await chain.agentTurn(message, { sessionKey });
  assert.equal(turn.status, 'ok', JSON.stringify(turn).slice(0, 2000));
  const outcomes = agent.spawnResults(word);
  assert.ok(outcomes?.every(Boolean), `the model got every spawn's result: ${JSON.stringify(outcomes)}\n${chain.diagnostics()}`);
  const late = outcomes.find(DISPATCH_TIMEOUT);
  if (late) throw new HostFailedSpawn(`OpenClaw could not dispatch the spawn of "${late.task}" in time: ${late.error}`);
  return { reply: turn.result?.payloads?.map((p) => p.text).join('\n') ?? '', outcomes };
}

/**
 * What `work` (a promise about the spawn of child `childSessionKey`)
 * resolves to; throws `HostFailedSpawn` when OpenClaw fails that spawn
 * first (in one of its races, `HOST_SPAWN_RACES`), and says what the
 * gateway logged when `work` fails.
 */
async function unlessHostFails(work, childSessionKey, what) {
  let settled = false;
  const failed = until(`${childSessionKey} to fail ${what}`, async () => settled || chain.hostFailedSpawn(childSessionKey), 300_000, 2000)
    .catch(() => new Promise(() => {}));
  try {
    const first = await Promise.race([work, failed]);
    if (typeof first === 'string') {
      work.catch(() => {});
      throw new HostFailedSpawn(`OpenClaw failed ${childSessionKey} ${what}: ${first}`);
    }
    return first;
  } catch (e) {
    if (e instanceof HostFailedSpawn) throw e;
    assert.fail(`${e.message}\n${chain.diagnostics()}`);
  } finally {
    settled = true;
  }
}

/** The liveness records of Claude Code's processes in the chain's config dir, one a line. */
function liveRecords() {
  const dir = path.join(chain.claudeDir, 'sessions');
  return (fs.existsSync(dir) ? fs.readdirSync(dir) : []).filter((f) => f.endsWith('.json')).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n');
}

/** The child session key of each request `claudeRequest` returned. */
const childOf = new WeakMap();

/**
 * Claude Code's first request for `task` (its task message starts with it),
 * spawned as child `childSessionKey`; throws `HostFailedSpawn` when OpenClaw
 * fails that spawn before its first turn.
 */
async function claudeRequest(task, childSessionKey) {
  const from = attemptFrom;
  const sent = api.waitForRequest((r) => !agent.handles(r) && !isTitleRequest(r) && (taskMessage(r) ?? '').startsWith(task) && api.requests.indexOf(r) >= from, 300_000)
    .catch((e) => Promise.reject(new Error(`${e.message}: Claude Code never sent the task "${task}"`)));
  const req = await unlessHostFails(sent, childSessionKey, 'before its first turn');
  childOf.set(req, childSessionKey);
  return req;
}

/**
 * Waits until the Claude Code session of `req` (from `claudeRequest`) gave
 * its answer and its process is gone; throws `HostFailedSpawn` when
 * OpenClaw fails its spawn first.
 */
const finished = (req) => unlessHostFails(chain.finished(req.sessionId), childOf.get(req), 'before its session finished');

/** The agent's request that announces the result of child `childSessionKey`. */
const announcement = (childSessionKey) => api.waitForRequest((r) => agent.handles(r) && announcedKeys(r).includes(childSessionKey), 300_000)
  .catch((e) => assert.fail(`${e.message}: the result of ${childSessionKey} was never announced to the requester's model\n${chain.diagnostics()}`));

/** The recorded hook events about child `childSessionKey`. */
const eventsOf = (childSessionKey) => chain.hookEvents().filter(({ event, ctx }) => [event?.childSessionKey, event?.targetSessionKey,
  event?.result?.details?.childSessionKey, ctx?.childSessionKey].includes(childSessionKey));

/** Waits for OpenClaw's `subagent_ended` of child `childSessionKey`. */
const subagentEnded = (childSessionKey) => until(`subagent_ended of ${childSessionKey}`,
  () => eventsOf(childSessionKey).find((e) => e.hook === 'subagent_ended'), 300_000, 500);

/** OpenClaw's ACP record of child `childSessionKey` (see `chain.acpRecords`), or undefined. */
const acpRecord = async (childSessionKey) => (await chain.acpRecords()).find((r) => r.key === childSessionKey);

/** The Claude Code sessions whose transcripts lie in `cwd`'s project folder. */
const sessionsIn = (cwd) => transcriptsOf(chain.claudeDir, cwd).map((t) => t.sessionId).sort();

/** Waits until the plugin's record of the spawn Claude Code received `sent` for has every field `fields` names. */
const recorded = (sent, ...fields) => until(`the plugin to record ${fields.join(', ')} of the spawn`, async () => {
  const r = await chain.spawnRecordOf(sent);
  return fields.every((f) => r?.[f]) && r;
}, 120_000, 1000);

scenario('a model-made spawn: briefed by the pre-flight, run by Claude Code in the repository, its result announced to the requester\'s model; OpenClaw\'s events for it', { timeout: 900_000 }, async (run) => {
  const alpha = run.repo('alpha');
  const session = run.session('one-spawn');
  const word = run.word('SHIP-ALPHA');
  const task = run.task('Add a changelog entry for the alpha release');
  agent.script(word, [{ task, cwd: alpha.dir, label: 'alpha-changelog' }]);
  // Claude Code's answer waits until OpenClaw's ACP record of the running child has been read.
  const release = claude.hold(task);
  const { reply, outcomes: [spawned] } = await userTurn(word, `Please ${word}: have Claude Code add the changelog entry.`, session);
  assert.equal(spawned.status, 'accepted', spawned.text);
  assert.match(spawned.childSessionKey, /^agent:claude:acp:[0-9a-f-]{36}$/);
  assert.equal(reply, `Spawn results: ${task}: accepted`, 'the turn ended with the model\'s reply to the spawn result');
  // The model was offered sessions_spawn behind Tool Search, and called it through tool_call.
  const asked = api.requests.find((r) => r.n === agent.scriptedIn(word));
  assert.ok(asked.toolNames.includes('tool_call') && !asked.toolNames.includes('sessions_spawn'), asked.toolNames.join(' '));
  assert.match(asked.systemText, /^- sessions_spawn \(core\): /m, 'listed as a deferred tool');
  const req = await claudeRequest(task, spawned.childSessionKey);
  // While the child runs, OpenClaw's ACP record ties its key to the Claude session id.
  const acp = await acpRecord(spawned.childSessionKey);
  release();
  assert.equal(acp?.identity.acpxSessionId, req.sessionId, `OpenClaw's ACP record names the Claude session: ${JSON.stringify(acp)}`);

  // The pre-flight briefed it: the task unchanged and first, the marker, the briefing on alpha.
  const sent = taskMessage(req);
  assert.ok(sent.startsWith(`${task}\n\n---\n[openclaw:agent=main,spawn=`), sent);
  assert.ok(sent.includes(`Repository: ${alpha.dir}, branch main`), sent);
  assert.match(chain.log(), new RegExp(`spawn pre-flight brief ${addon.parseOriginMarker(sent).spawn} in \\d+ ms`));

  // Claude Code ran in the repository and answered.
  await finished(req);
  const lines = chain.transcript(req.sessionId);
  const first = lines.find((l) => l.type === 'user');
  assert.deepEqual([first.cwd, first.entrypoint], [alpha.dir, 'sdk-ts']);
  assert.ok(lines.some((l) => l.type === 'assistant' && lineText(l) === `Done: ${task}`));
  assert.deepEqual(sessionsIn(alpha.dir), [req.sessionId]);

  // Its answer reached the requester's model, which replied to it.
  const announced = await announcement(spawned.childSessionKey);
  const text = newText(announced);
  assert.ok(text.includes(`Done: ${task}`), `the child's answer is announced:\n${text}`);
  assert.match(text, /status: completed/);
  assert.ok(text.includes(`session_id: ${acp.sessionId}`), 'the announce names OpenClaw\'s session id of the child');
  assert.notEqual(acp.sessionId, req.sessionId, 'which is not the Claude session id');
  assert.equal(announced.answer?.text, `Claude Code reported: Done: ${task}`);

  // OpenClaw's events (see the header), in order.
  const ended = await subagentEnded(spawned.childSessionKey);
  const events = eventsOf(spawned.childSessionKey);
  const progress = events.find((e) => e.hook === 'subagent_progress');
  assert.deepEqual([progress.event.phase, progress.event.runId, progress.ctx.requesterSessionKey], ['started', spawned.runId, session]);
  const afterSpawn = events.find((e) => e.hook === 'after_tool_call' && e.event.toolName === 'sessions_spawn');
  assert.equal(afterSpawn.event.params.task, sent, 'after_tool_call carries the params as the pre-flight rewrote them');
  assert.deepEqual([afterSpawn.event.result.details.status, afterSpawn.event.result.details.runId], ['accepted', spawned.runId]);
  const toolUse = asked.answer.toolCalls[0].id;
  assert.equal(afterSpawn.event.toolCallId, `tool_search_code:${toolUse}:sessions_spawn:1`, 'the inner call\'s id names the model\'s tool_call');
  assert.ok(chain.hookEvents().some((e) => e.hook === 'after_tool_call' && e.event.toolName === 'tool_call' && e.event.toolCallId === toolUse), 'then the wrapper\'s');
  const target = events.find((e) => e.hook === 'subagent_delivery_target');
  assert.deepEqual([target.event.requesterSessionKey, target.event.childRunId, target.event.spawnMode, target.event.expectsCompletionMessage], [session, spawned.runId, 'run', true]);
  assert.deepEqual([ended.event.targetKind, ended.event.reason, ended.event.outcome, ended.event.runId], ['subagent', 'subagent-complete', 'ok', spawned.runId]);
  assert.ok(ended.event.endedAt <= ended.at && ended.event.endedAt >= Date.parse(first.timestamp), 'endedAt is when the run ended');
  // Neither subagent_progress ended nor subagent_spawned among them.
  const order = events.map((e) => e.hook).filter((h) => h !== 'after_tool_call');
  assert.deepEqual(order, ['subagent_progress', 'subagent_delivery_target', 'subagent_ended'], JSON.stringify(events.map((e) => [e.hook, e.event.phase])));
  assert.ok(progress.at <= afterSpawn.at && afterSpawn.at <= target.at, 'started, then the tool\'s result, then the delivery');

  // The plugin's record ties the nonce, the child key and the Claude session, with OpenClaw's end.
  const record = await recorded(sent, 'claudeSessionId', 'outcome');
  assert.deepEqual(
    [record.claudeSessionId, record.childSessionKey, record.requesterSessionKey, record.label, record.cwd, record.decision, record.outcome],
    [req.sessionId, spawned.childSessionKey, session, 'alpha-changelog', alpha.dir, 'brief', 'ok'],
  );
  assert.equal(Date.parse(record.endedAt), ended.event.endedAt);
});

scenario('two spawns in one turn on two repositories: both run, each briefed on its own repository, each announced; the plugin ties each child to its Claude session', { timeout: 900_000 }, async (run) => {
  const repos = { beta: run.repo('beta'), gamma: run.repo('gamma') };
  const tasks = { beta: run.task('Add a license file to beta'), gamma: run.task('Add a contributing guide to gamma') };
  const word = run.word('SPLIT-WORK');
  agent.script(word, [{ task: tasks.beta, cwd: repos.beta.dir }, { task: tasks.gamma, cwd: repos.gamma.dir }]);
  const { outcomes } = await userTurn(word, `Please ${word} between beta and gamma.`, run.session('two-repos'));
  assert.deepEqual(outcomes.map((o) => o.status), ['accepted', 'accepted'], JSON.stringify(outcomes));
  const requests = [await claudeRequest(tasks.beta, outcomes[0].childSessionKey), await claudeRequest(tasks.gamma, outcomes[1].childSessionKey)];
  for (const [i, name] of ['beta', 'gamma'].entries()) {
    const req = requests[i];
    const sent = taskMessage(req);
    assert.ok(sent.includes(`Repository: ${repos[name].dir}, branch main`), `briefed on ${name}:\n${sent}`);
    await finished(req);
    assert.deepEqual(sessionsIn(repos[name].dir), [req.sessionId], `one session in ${name}`);
    assert.ok(newText(await announcement(outcomes[i].childSessionKey)).includes(`Done: ${tasks[name]}`), `${name}'s answer is announced`);
    const record = await recorded(sent, 'claudeSessionId', 'childSessionKey');
    assert.deepEqual([record.claudeSessionId, record.childSessionKey, record.cwd], [req.sessionId, outcomes[i].childSessionKey, repos[name].dir], `${name}'s record`);
  }
});

/** `sh` command that writes `file` with `text` and commits it as Claude Code would, in the folder it runs in. */
const commitFile = (file, text, subject) => ({
  name: 'Bash',
  input: { command: `printf '${text}\\n' > ${file} && git add ${file} && git -c user.name=claude -c user.email=claude@example.invalid commit -qm "${subject}"`, description: `Commit ${file}` },
});

/** Whether `dir` lies in a worktree of `repo` (under `<repo>/.claude/worktrees/`). */
const inWorktreeOf = (repo, dir) => typeof dir === 'string' && dir.startsWith(path.join(repo, '.claude', 'worktrees') + path.sep);

/**
 * A chat command in requester session `sessionKey` (`chat.send`, as an
 * operator types it), resolved to the command's reply.
 */
async function chatCommand(sessionKey, message) {
  chain.call('chat.send', { sessionKey, message, idempotencyKey: `cmd-${Date.now()}-${Math.random()}` });
  return until(`the reply to ${message}`, () => {
    const { messages } = chain.call('chat.history', { sessionKey, limit: 10 });
    const at = messages.findLastIndex((m) => m.role === 'user' && (typeof m.content === 'string' ? m.content : m.content?.[0]?.text) === message);
    const reply = at >= 0 && messages.slice(at + 1).find((m) => m.role === 'assistant');
    return reply && reply.content.map((b) => b.text ?? '').join('');
  }, 60_000, 500);
}

/**
 * What the fake API billed Claude Code session `sessionId` for its turns:
 * `{ inputTokens, outputTokens, cacheReadTokens, cacheCreationTokens }`
 * (its title requests left out: they are not in its transcript).
 */
function billed(sessionId) {
  const total = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };
  for (const r of api.requests.filter((x) => x.sessionId === sessionId && x.completed && x.usage && !isTitleRequest(x))) {
    total.inputTokens += r.usage.input_tokens;
    total.outputTokens += r.usage.output_tokens;
    total.cacheReadTokens += r.usage.cache_read_input_tokens;
    total.cacheCreationTokens += r.usage.cache_creation_input_tokens;
  }
  return total;
}

/**
 * Anthropic's list prices of the models Claude Code asks the fake API for, in
 * US dollars per million tokens: input, 5-minute cache writes, cache reads,
 * output (https://platform.claude.com/docs/en/about-claude/pricing).
 */
const LIST_PRICES = {
  'claude-opus-5': [5, 6.25, 0.5, 25], 'claude-opus-4-6': [5, 6.25, 0.5, 25], 'claude-sonnet-4-5': [3, 3.75, 0.3, 15],
};

/**
 * What the tokens the fake API billed session `sessionId` cost at its
 * model's list prices (the one model its requests asked for).
 */
function listPriced(sessionId) {
  const models = [...new Set(api.requests.filter((x) => x.sessionId === sessionId && x.completed && x.usage && !isTitleRequest(x)).map((x) => x.model))];
  assert.equal(models.length, 1, `one model: ${models}`);
  const prices = LIST_PRICES[models[0].replace(/-\d{8}$/, '')];
  assert.ok(prices, `a list price for ${models[0]}`);
  const t = billed(sessionId);
  return (t.inputTokens * prices[0] + t.cacheCreationTokens * prices[1] + t.cacheReadTokens * prices[2] + t.outputTokens * prices[3]) / 1e6;
}

/** The tokens of a spawn's outcome, as `billed` sums them. */
const tokensOf = (o) => ({ inputTokens: o.inputTokens, outputTokens: o.outputTokens, cacheReadTokens: o.cacheReadTokens, cacheCreationTokens: o.cacheCreationTokens });

/** The outcomes `claude_code_spawns` returns for `args`, through POST /tools/invoke. */
async function spawnOutcomes(args) {
  const res = await chain.invoke('claude_code_spawns', args);
  const spawns = res.body?.result?.details?.spawns;
  assert.ok(Array.isArray(spawns), JSON.stringify(res.body).slice(0, 2000));
  return spawns;
}

scenario('two spawns in one turn on the same repository: one runs in its main working tree, the other in a worktree under .claude/worktrees/ on a new branch, which keeps its commit; its outcome and /worktrees say so', { timeout: 900_000 }, async (run) => {
  const delta = run.repo('delta');
  const tasks = [run.task('Write the delta install guide'), run.task('Write the delta usage guide')];
  const subjects = ['Add the install guide', 'Add the usage guide'];
  const files = ['INSTALL.md', 'USAGE.md'];
  for (const [i, task] of tasks.entries()) claude.script(task, [commitFile(files[i], `# ${files[i]}`, subjects[i])]);
  const word = run.word('DELTA-DOCS');
  agent.script(word, tasks.map((task) => ({ task, cwd: delta.dir })));
  const statusBefore = delta.git('status', '--porcelain=v1', '--untracked-files=all');
  const session = run.session('same-repo');
  const { outcomes } = await userTurn(word, `Please ${word} in two parallel Claude Code sessions.`, session);
  assert.deepEqual(outcomes.map((o) => o.status), ['accepted', 'accepted'], `never refused: ${JSON.stringify(outcomes)}`);
  const runs = [];
  for (const [i, task] of tasks.entries()) {
    const req = await claudeRequest(task, outcomes[i].childSessionKey);
    await finished(req);
    const first = chain.transcript(req.sessionId).find((l) => l.type === 'user');
    runs.push({ i, task, outcome: outcomes[i], req, sessionId: req.sessionId, sent: taskMessage(req), cwd: first.cwd, gitBranch: first.gitBranch });
  }
  const main = runs.filter((r) => r.cwd === delta.dir);
  const isolated = runs.filter((r) => inWorktreeOf(delta.dir, r.cwd));
  assert.equal(main.length, 1, `exactly one in the main tree: ${JSON.stringify(runs.map((r) => r.cwd))}`);
  assert.equal(isolated.length, 1, 'exactly one isolated');
  const [m, iso] = [main[0], isolated[0]];
  // The isolated one: on a branch of its own, told so, and Claude Code tells its model where it works.
  assert.notEqual(iso.gitBranch, 'main', 'on its own branch');
  assert.ok(iso.sent.includes(iso.gitBranch) && /worktree/i.test(iso.sent), `its briefing names the worktree and branch:\n${iso.sent}`);
  const isoRequests = api.requests.filter((r) => r.sessionId === iso.sessionId && !isTitleRequest(r));
  assert.ok(isoRequests.length && isoRequests.every((r) => r.systemText.includes(iso.cwd)), 'every request of the isolated Claude Code names its worktree');
  assert.ok(isoRequests.every((r) => taskMessage(r).includes(iso.gitBranch)), 'and its branch');
  // Git: each commit on its own branch; the main tree's status as it was.
  assert.equal(delta.git('log', '-1', '--format=%s', 'main'), subjects[m.i], 'the main-tree spawn committed on main');
  const isoCommit = delta.git('rev-parse', iso.gitBranch);
  assert.equal(delta.git('log', '-1', '--format=%s', iso.gitBranch), subjects[iso.i]);
  assert.throws(() => delta.git('merge-base', '--is-ancestor', isoCommit, 'main'), 'the isolated commit is not on main');
  assert.equal(delta.git('ls-files', files[iso.i]), '', `${files[iso.i]} is not in the main tree`);
  assert.equal(delta.git('status', '--porcelain=v1', '--untracked-files=all'), statusBefore, 'the main tree\'s status is untouched by the isolated one');

  // Its outcome, once OpenClaw reported its end: the commit, the file, the answer, the bill; the worktree kept.
  await subagentEnded(iso.outcome.childSessionKey);
  await subagentEnded(m.outcome.childSessionKey);
  const spawns = await spawnOutcomes({ repoPath: delta.dir });
  const o = spawns.find((s) => s.sessionId === iso.sessionId);
  assert.ok(o, JSON.stringify(spawns).slice(0, 2000));
  assert.deepEqual([o.task, o.childSessionKey, o.state], [iso.task, iso.outcome.childSessionKey, 'ended']);
  assert.equal(o.finalMessage, `Done: ${iso.task}`, 'the final message is what the API answered');
  assert.deepEqual(o.commits, [{ hash: isoCommit, subject: subjects[iso.i] }]);
  assert.deepEqual(o.filesChanged, [files[iso.i]]);
  assert.deepEqual(tokensOf(o), billed(iso.sessionId), 'the tokens the API billed for the spawn');
  assert.ok(o.outputTokens > 0 && !o.sessionTotals);
  // Its cost: Claude Code run by the ACP adapter writes no accounting of its own (no cost-state),
  // so discovery, which reports only the CLI's figure, has none for the session, and the outcome
  // prices the billed tokens at the model's list prices.
  const listed = (await addon.discoverSessions(delta.dir, { claudeConfigDir: chain.claudeDir })).find((d) => d.sessionId === iso.sessionId);
  assert.ok(listed, 'discovery lists the worktree\'s session as the repository\'s');
  assert.equal(listed.branch, iso.gitBranch, 'with the worktree\'s branch');
  assert.equal(listed.totalCostUsd, undefined, 'no cost-state: no figure of the CLI\'s');
  assert.equal(o.costBasis, 'prices');
  const cost = listPriced(iso.sessionId);
  assert.ok(cost > 0 && Math.abs(o.costUsd - cost) < 1e-9, `the cost of the billed tokens at list prices: ${o.costUsd} vs ${cost}`);
  assert.deepEqual([o.worktree?.branch, o.worktree?.commitsAhead, o.worktree?.dirty, o.worktree?.removed], [iso.gitBranch, 1, false, false], JSON.stringify(o.worktree));
  assert.ok(iso.cwd.startsWith(o.worktree.path), `${iso.cwd} in ${o.worktree.path}`);
  assert.ok(fs.existsSync(o.worktree.path), 'kept: it holds a commit');
  // The main-tree spawn: its commit on main, no worktree.
  const om = spawns.find((s) => s.sessionId === m.sessionId);
  assert.deepEqual([om?.commits.map((c) => c.subject), om?.filesChanged, om?.worktree ?? null], [[subjects[m.i]], [files[m.i]], null]);
  // One spawn by its child key, another by its nonce.
  assert.deepEqual((await spawnOutcomes({ childSessionKey: iso.outcome.childSessionKey })).map((s) => s.sessionId), [iso.sessionId]);
  assert.deepEqual((await spawnOutcomes({ nonce: addon.parseOriginMarker(m.sent).spawn })).map((s) => s.sessionId), [m.sessionId]);
  // /worktrees lists the kept one; prune leaves its unmerged commit alone.
  const list = await chatCommand(session, `/worktrees ${delta.dir}`);
  assert.ok(list.includes(`${o.worktree.path}: branch ${iso.gitBranch}, 1 commit(s) beyond`), list);
  const prune = await chatCommand(session, `/worktrees prune ${delta.dir}`);
  assert.match(prune, /0 removed, 1 kept/);
  assert.ok(fs.existsSync(o.worktree.path) && delta.git('rev-parse', iso.gitBranch) === isoCommit, 'unmerged work is never pruned without --force');
});

scenario('a quick spawn followed at once by another on the same repository: the second runs in the main working tree, neither refused nor isolated', { timeout: 900_000 }, async (run, t) => {
  const epsilon = run.repo('epsilon');
  const first = run.task('Fix the epsilon README typo');
  const second = run.task('Add an epsilon README badge');
  const [quickFix, rightAfter] = [run.word('QUICK-FIX'), run.word('RIGHT-AFTER')];
  agent.script(quickFix, [{ task: first, cwd: epsilon.dir }]);
  agent.script(rightAfter, [{ task: second, cwd: epsilon.dir }]);
  // OpenClaw reports a spawn ended (subagent_ended) only once its result was
  // delivered: the first conversation's model answers nothing more until the
  // second spawn was decided, so the second comes while the first has
  // answered and its process is gone, but OpenClaw has not reported it ended.
  const releaseFirst = agent.holdConversation(quickFix);
  let quick;
  try {
    const a = await userTurn(quickFix, `Please ${quickFix} in epsilon.`, run.session('quick-a'));
    const req = await claudeRequest(first, a.outcomes[0].childSessionKey);
    await finished(req);
    const answeredAt = Date.now();
    // At once, from another conversation: the same repository.
    const b = await userTurn(rightAfter, `Please do it ${rightAfter} in epsilon.`, run.session('quick-b'));
    const startedAt = Date.parse((await chain.spawnRecordOf(taskMessage(req))).startedAt);
    quick = { first: { ...a.outcomes[0], sessionId: req.sessionId }, second: b.outcomes[0], afterMs: Date.now() - answeredAt, sinceFirstStartMs: Date.now() - startedAt };
    // OpenClaw's run registry reports a run ended either after its result was
    // delivered or, on another of its completion paths, at once (seen under
    // load). After the latter this run proves nothing about a spawn OpenClaw
    // has not reported ended.
    if (eventsOf(a.outcomes[0].childSessionKey).some((e) => e.hook === 'subagent_ended')) {
      if (!run.last) throw new HostFailedSpawn('OpenClaw reported the first spawn ended before its result was delivered');
      t.diagnostic('OpenClaw reported the first spawn ended before its result was delivered, in every attempt: this run proves less');
    }
  } finally {
    releaseFirst();
  }
  t.diagnostic(`the second spawn was decided ${quick.afterMs} ms after the first answered, ${quick.sinceFirstStartMs} ms after the first started: ${quick.second.status} ${quick.second.reason ?? ''}`);
  // Past the first minute a spawn whose session shows no work counts as ended anyway.
  if (quick.sinceFirstStartMs >= 60_000) t.diagnostic('the second spawn came after the first spawn\'s first minute: this run proves less');
  assert.equal(quick.second.status, 'accepted', JSON.stringify(quick.second));
  const req = await claudeRequest(second, quick.second.childSessionKey);
  await finished(req);
  assert.equal(chain.transcript(req.sessionId).find((l) => l.type === 'user').cwd, epsilon.dir, `in the main tree; its briefing:\n${taskMessage(req)}\nClaude Code's liveness records:\n${liveRecords()}\n${chain.diagnostics()}`);
  assert.doesNotMatch(taskMessage(req), /worktree/i, 'not isolated');
  await subagentEnded(quick.first.childSessionKey);
});

scenario('a spawn into a repository where Claude Code is at work runs in a worktree of its own; having changed nothing, its worktree and branch are removed when it ends', { timeout: 900_000 }, async (run) => {
  const eta = run.repo('eta');
  const working = run.task('Refactor the eta entry point');
  const looking = run.task('Review the eta README wording');
  const [busyWord, lookWord] = [run.word('ETA-BUSY'), run.word('ETA-LOOK')];
  agent.script(busyWord, [{ task: working, cwd: eta.dir }]);
  agent.script(lookWord, [{ task: looking, cwd: path.join(eta.dir, 'src') }]);
  // The first Claude Code's answer waits until the second spawn is decided: it is at work in the main tree.
  const releaseWorking = claude.hold(working);
  let busyReq;
  try {
    const a = await userTurn(busyWord, `Please ${busyWord}.`, run.session('eta-a'));
    busyReq = await claudeRequest(working, a.outcomes[0].childSessionKey);
    const b = await userTurn(lookWord, `Please ${lookWord}.`, run.session('eta-b'));
    // Decided while the first was at work: the first may answer now.
    releaseWorking();
    assert.equal(b.outcomes[0].status, 'accepted', JSON.stringify(b.outcomes[0]));
    const req = await claudeRequest(looking, b.outcomes[0].childSessionKey);
    await finished(req);
    const first = chain.transcript(req.sessionId).find((l) => l.type === 'user');
    assert.ok(inWorktreeOf(eta.dir, first.cwd), `isolated: ${first.cwd}`);
    assert.equal(path.basename(first.cwd), 'src', 'in the subfolder the spawn named');
    assert.notEqual(first.gitBranch, 'main');
    const sent = taskMessage(req);
    assert.ok(sent.includes(busyReq.sessionId) || sent.includes(a.outcomes[0].childSessionKey), `the briefing names the session at work in the main tree:\n${sent}`);
    const record = await recorded(taskMessage(req), 'worktreePath', 'worktreeBranch', 'baseCommit');
    assert.deepEqual([record.worktreeBranch, record.baseCommit, record.cwd], [first.gitBranch, eta.head(), first.cwd]);
    // It ends with nothing changed: worktree, branch and git's entry for it are gone.
    await subagentEnded(b.outcomes[0].childSessionKey);
    await until('the empty worktree removed', async () => (await chain.spawnRecordOf(taskMessage(req)))?.worktreeRemoved === true, 60_000, 500);
    assert.equal(fs.existsSync(record.worktreePath), false, 'no folder');
    assert.equal(eta.git('branch', '--list', record.worktreeBranch), '', 'no branch');
    assert.ok(!eta.git('worktree', 'list', '--porcelain').includes(record.worktreePath), 'no worktree entry');
    assert.equal(eta.git('status', '--porcelain=v1', '--untracked-files=all'), '', 'the main tree as it was');
    const [o] = await spawnOutcomes({ sessionId: req.sessionId });
    assert.deepEqual([o?.state, o?.commits, o?.filesChanged, o?.worktree?.removed], ['ended', [], [], true], JSON.stringify(o));
  } finally {
    releaseWorking();
  }
  if (busyReq) await finished(busyReq);
});

/** The spawn recorded before the gateway restart (the next two tests read it). */
let restarted;

scenario('a gateway restart with a spawn recorded: its record, child key and Claude session are still read, and discovery lists it as OpenClaw\'s', { timeout: 900_000 }, async (run) => {
  const zeta = run.repo('zeta');
  const task = run.task('Write the zeta release notes and commit them');
  const word = run.word('ZETA-NOTES');
  claude.script('zeta release notes', [
    { name: 'Write', input: { file_path: path.join(zeta.dir, 'NOTES.md'), content: '# Release notes\n\n- first release\n' } },
    { name: 'Bash', input: { command: 'git add NOTES.md && git -c user.name=claude -c user.email=claude@example.invalid commit -qm "Add the release notes"', description: 'Commit the notes' } },
  ]);
  agent.script(word, [{ task, cwd: zeta.dir, label: 'zeta-notes' }]);
  const { outcomes: [spawned] } = await userTurn(word, `Please ${word}.`, run.session('restart'));
  assert.equal(spawned.status, 'accepted', spawned.text);
  const req = await claudeRequest(task, spawned.childSessionKey);
  await finished(req);
  assert.equal(zeta.git('log', '-1', '--format=%s'), 'Add the release notes', 'Claude Code committed');
  const commit = zeta.head();
  await subagentEnded(spawned.childSessionKey);
  const before = await recorded(taskMessage(req), 'claudeSessionId', 'outcome');

  assert.deepEqual(await chain.restart(), [], 'nothing left running by the stopped gateway');
  const after = await chain.spawnRecordOf(taskMessage(req));
  assert.deepEqual(after, before, 'the record is read back unchanged');
  assert.deepEqual([after.claudeSessionId, after.childSessionKey, after.outcome, after.label], [req.sessionId, spawned.childSessionKey, 'ok', 'zeta-notes']);
  // The new gateway's plugin reads it: the session is OpenClaw's, with its label and task.
  const tool = await chain.invoke('claude_code_sessions', { repoPath: zeta.dir });
  const listed = tool.body?.result?.details?.sessions?.find((s) => s.sessionId === req.sessionId);
  assert.equal(listed?.source, 'openclaw', JSON.stringify(tool.body).slice(0, 2000));
  restarted = { repo: zeta.dir, task, requester: run.session('restart'), sessionId: req.sessionId, childSessionKey: spawned.childSessionKey, nonce: after.nonce, commit, usage: billed(req.sessionId) };
});

test('a spawn\'s outcome read after a gateway restart: state, final message, the commit and file it made, tokens billed', { timeout: 120_000 }, async () => {
  assert.ok(restarted, 'the spawn ran and the gateway restarted');
  const spawns = await spawnOutcomes({ repoPath: restarted.repo });
  const spawn = spawns.find((s) => s.sessionId === restarted.sessionId);
  assert.ok(spawn, JSON.stringify(spawns).slice(0, 2000));
  assert.deepEqual([spawn.nonce, spawn.childSessionKey, spawn.state, spawn.task, spawn.cwd], [restarted.nonce, restarted.childSessionKey, 'ended', restarted.task, restarted.repo]);
  assert.equal(spawn.finalMessage, `Done: ${restarted.task}`);
  assert.deepEqual(spawn.commits, [{ hash: restarted.commit, subject: 'Add the release notes' }]);
  assert.deepEqual(spawn.filesChanged, ['NOTES.md']);
  assert.deepEqual(tokensOf(spawn), restarted.usage, 'the tokens the API billed for the spawn');
  assert.ok(spawn.durationMs > 0 && Date.parse(spawn.endedAt) > Date.parse(spawn.startedAt), JSON.stringify(spawn));
  assert.equal(spawn.worktree ?? null, null, 'it ran in the main tree');
  // The same spawn by its requester, as the model asks for its own.
  assert.ok((await spawnOutcomes({ requesterSessionKey: restarted.requester })).some((s) => s.nonce === restarted.nonce));
});

test('the gateway stays healthy and, stopped, leaves nothing running', { timeout: 300_000 }, async () => {
  assert.equal(chain.call('health').ok, true);
  assert.deepEqual(await chain.stop(), [], 'nothing left running after the gateway stopped');
  assert.doesNotMatch(chain.log(), /before_tool_call hook failed|panicked/);
  assert.equal(api.requests.filter((r) => r.path.startsWith('/v1/messages') && !r.completed).length, 0, 'every answer was delivered');
});
