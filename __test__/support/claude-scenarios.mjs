// The Claude Code sessions the real-CLI suite proves discovery on, and the
// fixtures under fixtures/claude-code-2.1 were recorded from: real git
// repositories, the real CLI run offline against the fake Messages API with
// scripted answers (tool calls, a foreground and a background subagent, a
// forced automatic compaction, a slow answer), and for every session what
// the API billed under its id and what the CLI itself reported.

import fs from 'node:fs';
import path from 'node:path';
import { claudeBinary, git, gitRepo, print, runClaude, startClaude } from './claude-cli.mjs';

/**
 * Flags of every run: the two tools the scenarios script (a subagent is an
 * `Agent` call, growing the context a `Bash` call) and a one-line system
 * prompt, which keeps each transcript near 40 KB instead of 150 KB (the CLI
 * records the request's shape, tools and system prompt included).
 */
export const RUN_FLAGS = ['--tools', 'Agent,Bash', '--system-prompt', 'You are a test agent.'];

/** Context tokens a `grow:` prompt reports, far past the `--autocompact 100000` window. */
const BIG_CONTEXT = 190_000;

/**
 * The scripted answers: keyed on what the request is (a compaction, a
 * subagent's call, a tool result, a background agent's notification) and
 * on the prompt's leading word (`fg:`, `bg:`, `grow:`, `slow:`). `slow`
 * holds `slow:` answers until the promise it returns for a session resolves.
 */
export function scenarioResponder({ slow = () => undefined } = {}) {
  const calledTools = new Set();
  return (req) => {
    const last = JSON.stringify(req.messages.at(-1) ?? {});
    const prompt = req.lastUserText;
    if (prompt.includes('Respond with TEXT ONLY')) return { text: '<analysis>Short chat.</analysis>\n<summary>The user asked for small things; all done.</summary>' };
    if (req.agentId) return { text: `Subagent report: ${prompt.slice(0, 40)}` };
    if (last.includes('<task-notification>')) return { text: 'The background agent has reported.' };
    if (req.toolResults.length) return prompt.startsWith('grow:') ? { text: 'Grown.', usage: { cacheReadTokens: BIG_CONTEXT + 5000 } } : { text: 'Done with the tool.' };
    // A prompt gets its tool call once per session: never loop on a repeat.
    const once = (answer) => {
      const key = `${req.sessionId}\u0000${prompt}`;
      if (calledTools.has(key)) return { text: 'Already done.' };
      calledTools.add(key);
      return answer;
    };
    if (prompt.startsWith('fg:')) return once({ toolCalls: [{ name: 'Agent', input: { description: 'Count files', prompt: 'Count the files in the repository.', subagent_type: 'general-purpose', model: 'haiku', run_in_background: false } }] });
    if (prompt.startsWith('bg:')) return once({ text: 'Starting a background agent.', toolCalls: [{ name: 'Agent', input: { description: 'Survey repo', prompt: 'Survey the repository layout.', subagent_type: 'general-purpose', model: 'sonnet', run_in_background: true } }] });
    if (prompt.startsWith('grow:')) return once({ toolCalls: [{ name: 'Bash', input: { command: 'echo grown', description: 'Print a word' } }], usage: { cacheReadTokens: BIG_CONTEXT } });
    if (prompt.startsWith('slow:')) return { text: 'Slow answer.', thinking: 'Taking my time.', hold: slow(req) };
    return { text: `Answer to: ${prompt.slice(0, 40)}` };
  };
}

/** A path over 200 characters (so Claude Code's folder name for it carries a hash). */
const LONG_TAIL = Array.from({ length: 6 }, (_, i) => `segment-${i}-with-a-rather-long-folder-name`).join('/');

/**
 * Makes the repositories under `root` with the git CLI: `alpha` (with
 * `src/`, a worktree `alpha-feature` beside it, a worktree under
 * `alpha/.claude/worktrees/gone`), `beta`, and one at a path over 200
 * characters. Returns their paths.
 */
export function makeRepos(root) {
  const alpha = gitRepo(path.join(root, 'alpha'), { 'README.md': '# alpha\n', 'src/main.js': 'console.log(1);\n', '.gitignore': '.claude/\n' });
  const feature = path.join(root, 'alpha-feature');
  git(alpha, 'worktree', 'add', '-q', '-b', 'feature', feature);
  const gone = path.join(alpha, '.claude', 'worktrees', 'gone');
  git(alpha, 'worktree', 'add', '-q', '-b', 'gone', gone);
  const beta = gitRepo(path.join(root, 'beta'), { 'README.md': '# beta\n' });
  const long = gitRepo(path.join(root, LONG_TAIL), { 'README.md': '# long\n' });
  return { alpha, alphaSrc: path.join(alpha, 'src'), feature: fs.realpathSync(feature), gone: fs.realpathSync(gone), beta, long };
}

/**
 * Runs every scenario in `box` against `api` (it sets the API's responder
 * to `scenarioResponder`), independent ones in parallel. `watch` is
 * called while the `slow:` session's CLI waits for its answer, with
 * `{ sessionId, pid, repo }`; the answer is released when it returns.
 * Resolves to the manifest: `{ repos, sessions: { <name>: SessionRecord } }`
 * where a SessionRecord is `{ sessionId, repo, cwd, prompts (as typed, in
 * order), runs: [{ args, totalCostUsd, modelUsage }], forkOf?,
 * costAtFork? }`.
 */
export async function runScenarios(box, api, repos, { watch = async () => {} } = {}) {
  claudeBinary();
  let release;
  const held = new Promise((r) => { release = r; });
  api.respond = scenarioResponder({ slow: () => held });
  const sessions = {};
  const run = async (name, cwd, prompt, extra = []) => {
    const rec = sessions[name];
    const args = print(prompt, ...RUN_FLAGS, ...extra);
    const r = await runClaude(box, api, args, { cwd });
    const entry = { args: [prompt, ...extra], sessionId: r.sessionId, totalCostUsd: r.result.total_cost_usd, modelUsage: r.result.modelUsage };
    if (rec) {
      if (r.sessionId !== rec.sessionId) throw new Error(`${name}: ${extra.join(' ')} ran session ${r.sessionId}, not ${rec.sessionId}`);
      rec.prompts.push(prompt);
      rec.runs.push(entry);
    } else {
      sessions[name] = { sessionId: r.sessionId, repo: null, cwd, prompts: [prompt], runs: [entry] };
    }
    return r;
  };
  const repoOf = (cwd) => Object.entries({ alpha: repos.alpha, beta: repos.beta, long: repos.long })
    .find(([, p]) => cwd === p || cwd.startsWith(p + path.sep))?.[0] ?? (cwd === repos.feature ? 'alpha' : null);

  // One chain in alpha first: `--continue` takes the folder's latest session.
  const main = await run('main', repos.alpha, 'Add a greeting to the README');
  await run('main', repos.alpha, 'Now make it shorter', ['--resume', main.sessionId]);
  await run('main', repos.alpha, 'And add a date', ['--continue']);

  const chains = [
    (async () => {
      const costAtFork = sessions.main.runs.at(-1).totalCostUsd;
      const fork = await run('fork', repos.alpha, 'Try another wording', ['--resume', main.sessionId, '--fork-session']);
      Object.assign(sessions.fork, { forkOf: 'main', costAtFork, inheritedPrompts: [...sessions.main.prompts] });
      if (fork.sessionId === main.sessionId) throw new Error('--fork-session kept the session id');
      await run('main', repos.alpha, '/compact', ['--resume', main.sessionId]);
      await run('main', repos.alpha, 'After compacting, list the files', ['--resume', main.sessionId]);
    })(),
    (async () => {
      const grow = await run('autocompact', repos.alpha, 'grow: fill the context', ['--autocompact', '100000']);
      await run('autocompact', repos.alpha, 'Carry on after the squeeze', ['--resume', grow.sessionId, '--autocompact', '100000']);
    })(),
    (async () => {
      const fg = await run('subagents', repos.alpha, 'fg: count the files with a helper');
      await run('subagents', repos.alpha, 'bg: survey the repository in the background', ['--resume', fg.sessionId]);
    })(),
    run('named', repos.alpha, 'List the release steps', ['--name', 'Release checklist']),
    run('subfolder', repos.alphaSrc, 'Explain main.js'),
    run('worktree', repos.feature, 'Work on the feature branch'),
    run('goneWorktree', repos.gone, 'Work in a throwaway worktree'),
    (async () => {
      const s = await run('models', repos.beta, 'Answer with sonnet', ['--model', 'sonnet']);
      await run('models', repos.beta, 'Now answer with opus', ['--resume', s.sessionId, '--model', 'opus']);
    })(),
    run('longPath', repos.long, 'Hello from a deep folder'),
    (async () => {
      const prompt = 'slow: think it over';
      const child = startClaude(box, api, print(prompt, ...RUN_FLAGS), { cwd: repos.beta });
      const seen = await api.waitForRequest((r) => r.lastUserText === prompt, 60_000);
      try {
        await watch({ sessionId: seen.sessionId, pid: child.pid, repo: repos.beta });
      } finally {
        release();
      }
      const r = await child.done;
      if (r.code !== 0) throw new Error(`slow run exited ${r.code}: ${r.stderr.slice(-2000)}`);
      sessions.watched = { sessionId: r.sessionId, repo: null, cwd: repos.beta, prompts: [prompt], runs: [{ args: [prompt], sessionId: r.sessionId, totalCostUsd: r.result.total_cost_usd, modelUsage: r.result.modelUsage }] };
    })(),
  ];
  await Promise.all(chains);
  // The `gone` worktree is removed after its session, as a person does.
  git(repos.alpha, 'worktree', 'remove', '--force', repos.gone);
  for (const rec of Object.values(sessions)) rec.repo = repoOf(rec.cwd);
  return { repos, sessions };
}
