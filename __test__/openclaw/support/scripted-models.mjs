// The scripted models of the chain suites, both served by the fake Messages
// API: Claude Code's (`scriptedClaude`) and, for a chain whose main agent
// has a model (`startChain({ agentModel: true })`), OpenClaw's own agent's
// (`scriptedAgent`), which spawns Claude Code as a model in use would, so
// that spawns come from OpenClaw's agent loop.
//
//   const claude = scriptedClaude();
//   const agent = scriptedAgent();
//   const api = await startFakeAnthropic({ respond: (req) => (agent.handles(req) ? agent.answer(req) : claude.answer(req)) });
//   agent.script('Ship the changelog', [{ task: 'Add a changelog', cwd }]);
//   await chain.agentTurn('Ship the changelog please');
//   agent.spawnResults('Ship the changelog')  // [{ task, status, childSessionKey, … }]
//
// What OpenClaw 2026.9.6 sends its agent's model, as `scriptedAgent` relies on it:
// - `sessions_spawn` is not among the request's tools: OpenClaw's Tool
//   Search (on by default) lists it as a deferred tool in the system prompt,
//   and the model calls it through the `tool_call` tool, `{ id:
//   "sessions_spawn", args }`. Two such calls in one answer are run at once.
// - A user message arrives as `[<date>] <text>`, followed by a user message
//   of runtime context (`<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>`); tool
//   results are followed by such a message too. The model's own earlier
//   answers are in the history with their tool-use ids stripped of `_`.
// - A spawn's result comes back in a later run of the requester's session:
//   a user message "A background task completed. …" with `session_key:
//   <child key>`, `session_id: <OpenClaw's session id of the child>`,
//   `task: …`, `status: …` and the child's last answer inside
//   `<prompt-data>`. Before it, OpenClaw may run a turn on the system event
//   "Background task ready for review", which a model answers `NO_REPLY`.

import { AGENT_MODEL, currentTask, isTitleRequest } from './acp-chain.mjs';

/** The text of a message: its text blocks (or string content), and a tool result's text. */
function textOf(message) {
  const c = message?.content;
  if (typeof c === 'string') return c;
  return (Array.isArray(c) ? c : []).map((b) => (b?.type === 'text' ? b.text : b?.type === 'tool_result' ? toolResultText(b) : '')).join('\n');
}

/** The text of a `tool_result` block (string content or text blocks). */
function toolResultText(block) {
  const c = block.content;
  if (typeof c === 'string') return c;
  return (Array.isArray(c) ? c : []).filter((b) => b?.type === 'text').map((b) => b.text).join('\n');
}

/** The messages of a request after the model's last answer: what the model has not seen yet. */
export const newMessages = (req) => req.messages.slice(req.messages.findLastIndex((m) => m.role === 'assistant') + 1);

/** The text of what is new in a request (see `newMessages`). */
export const newText = (req) => newMessages(req).map(textOf).join('\n');

/**
 * The outcome of one `sessions_spawn` as the model got it back through
 * `tool_call`: `{ status, childSessionKey?, runId?, reason?, text }`
 * (`reason` for a call a `before_tool_call` hook blocked).
 */
function spawnOutcome(text) {
  try {
    const wrapped = JSON.parse(text);
    const details = wrapped?.result?.details ?? wrapped?.details ?? {};
    return { ...details, text };
  } catch {
    return { status: 'unparsed', text };
  }
}

/** The child session keys a request announces (OpenClaw's completion events in it). */
export function announcedKeys(req) {
  const text = newText(req);
  if (!/A background task completed|\[Internal task completion event\]/.test(text)) return [];
  return [...new Set([...text.matchAll(/session_key: (agent:[^\s"\\]+)/g)].map((m) => m[1]))];
}

/**
 * A scripted agent model. Per request (`answer`), by what is new in it:
 * - the results of its spawn calls: it records them (`spawnResults`) and
 *   answers with a one-line summary, so the turn ends with a reply;
 * - a user message holding a scripted word (`script`), the first time:
 *   one `tool_call` of `sessions_spawn` per scripted spawn, all in one answer;
 * - a spawn's announced result: "Claude Code reported: …" with the
 *   announced text;
 * - anything else (a system event, a heartbeat): `NO_REPLY`;
 * each after any hold on its conversation (`holdConversation`).
 */
export function scriptedAgent() {
  /** @type {Map<string, { spawns: object[], answeredIn?: number }>} */
  const scripts = new Map();
  /** Spawn outcomes by the task the model wrote. */
  const outcomes = new Map();
  /** Holds on the answers in a conversation, by the scripted word that started it. */
  const holds = holdsByWord();

  /** Records the spawn outcomes in `req`'s new tool results; returns them. */
  function recordOutcomes(req) {
    const calls = new Map(req.messages.flatMap((m) => (m.role === 'assistant' && Array.isArray(m.content) ? m.content : []))
      .filter((b) => b?.type === 'tool_use' && b.name === 'tool_call' && b.input?.id === 'sessions_spawn')
      .map((b) => [b.id, b.input.args ?? {}]));
    const found = [];
    for (const m of newMessages(req)) {
      for (const b of Array.isArray(m.content) ? m.content : []) {
        if (b?.type !== 'tool_result' || !calls.has(b.tool_use_id)) continue;
        const args = calls.get(b.tool_use_id);
        const outcome = { task: args.task, cwd: args.cwd, ...spawnOutcome(toolResultText(b)) };
        outcomes.set(args.task, outcome);
        found.push(outcome);
      }
    }
    return found;
  }

  return {
    /** Whether `req` is a request of OpenClaw's agent (the configured model id; Claude Code sends its own). */
    handles: (req) => req.model === AGENT_MODEL,
    /**
     * Scripts a turn: the first user message holding `word` is answered
     * with these spawns (`sessions_spawn` arguments; `runtime: "acp"`,
     * `agentId: "claude"` and `mode: "run"` unless given).
     */
    script(word, spawns) {
      scripts.set(word, { spawns: spawns.map((s) => ({ runtime: 'acp', agentId: 'claude', mode: 'run', ...s })) });
    },
    /** The outcomes of the spawns scripted for `word`, in the scripted order (undefined for one not answered yet). */
    spawnResults(word) {
      return scripts.get(word)?.spawns.map((s) => outcomes.get(s.task));
    },
    /** The number of the request the model answered with the spawns scripted for `word` (undefined before). */
    scriptedIn: (word) => scripts.get(word)?.answeredIn,
    /**
     * Holds every later answer in the conversation whose user sent `word`
     * (its system events, the announce of its spawns' results; not the
     * answer to those spawns' own tool results, which ends the turn) until
     * the returned function is called. OpenClaw reports a spawn ended
     * (`subagent_ended`) only once its result was delivered to the
     * requester, so this keeps that report back.
     */
    holdConversation: holds.hold,
    /** Lets every held answer go. */
    releaseAll: holds.releaseAll,
    /** The answer to one of the agent's requests (see above). */
    answer(req) {
      const results = recordOutcomes(req);
      if (results.length) return { text: `Spawn results: ${results.map((r) => `${r.task}: ${r.status}`).join('; ')}` };
      const text = newText(req);
      const turn = [...scripts].find(([word, s]) => s.answeredIn === undefined && text.includes(word));
      if (turn) {
        turn[1].answeredIn = req.n;
        return { toolCalls: turn[1].spawns.map((args) => ({ name: 'tool_call', input: { id: 'sessions_spawn', args } })) };
      }
      const held = holds.find((word) => scripts.get(word)?.answeredIn < req.n
        && req.messages.some((m) => m.role === 'user' && textOf(m).includes(word)));
      const hold = held ? { hold: held } : {};
      if (announcedKeys(req).length) {
        const answers = [...new Set(text.match(/Done: [^\n"\\]*/g))];
        return { text: `Claude Code reported: ${answers.join('; ') || 'no answer'}`, ...hold };
      }
      // OpenClaw asks again, without tools, for a reply to a turn that had none.
      if (!req.toolNames.length && /did not produce a user-visible answer/.test(text)) return { text: 'Nothing more to add.', ...hold };
      return { text: 'NO_REPLY', ...hold };
    },
  };
}

/**
 * Answers held back by a word until a test releases them: `hold(word)`
 * returns the function that releases it, `find(match)` the promise of the
 * first hold whose word `match(word)` accepts (undefined for none).
 */
function holdsByWord() {
  const holds = new Map();
  return {
    hold(word) {
      let release;
      holds.set(word, { promise: new Promise((ok) => (release = ok)), release });
      return () => release();
    },
    releaseAll() {
      for (const h of holds.values()) h.release();
    },
    find: (match) => [...holds].find(([word]) => match(word))?.[1].promise,
  };
}

/**
 * Claude Code's scripted model: a title request is answered with the first
 * line of the session it is asked about (as a model titles a session by what
 * it was asked first); a task gets its scripted tool calls first, if any
 * (`script`), and is then answered "Done: <its first line>", after any hold
 * on a word of it (`hold`).
 */
export function scriptedClaude() {
  /** Tool calls by a word of the task. */
  const scripts = new Map();
  const holds = holdsByWord();
  return {
    /** Claude Code's first answer to a task holding `word`: these tool calls (`{ name, input }` each). */
    script(word, toolCalls) {
      scripts.set(word, toolCalls);
    },
    /** Holds the answer to a task holding `word` until the returned function is called. */
    hold: holds.hold,
    /** Lets every held answer go. */
    releaseAll: holds.releaseAll,
    /** The answer to one of Claude Code's requests (see above). */
    answer(req) {
      if (isTitleRequest(req)) return { text: req.lastUserText.split('\n')[1] ?? 'Untitled' };
      const task = currentTask(req) ?? '';
      const calls = [...scripts].find(([word]) => task.includes(word));
      if (calls && !req.messages.some((m) => m.role === 'assistant')) return { toolCalls: calls[1] };
      const held = holds.find((word) => task.includes(word));
      return { text: `Done: ${task.split('\n')[0]}`, ...(held ? { hold: held } : {}) };
    },
  };
}
