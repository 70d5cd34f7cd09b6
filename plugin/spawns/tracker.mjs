// @ts-check
// The Claude Code spawns this plugin let through, from the reservation its
// pre-flight makes until the host reports their end (and, for a persistent
// one, until its session is closed): what the host reported of each, the
// Claude Code sessions of ended spawns, and the loop that learns their
// sessions. The tracker only records facts, and the state they put a spawn
// in by the host's word (`hostState`: starting, running, waiting, ended,
// failed); whether a spawn starting or running still counts as running,
// and whether it makes its repository busy, the addon decides
// (`preflightSpawn`, from the facts `facts()` hands it: its liveness record
// and its transcript's last turn), with the numbers of `SPAWN_POLICY`.
//
// Where the state lives: OpenClaw imports the plugin afresh for every
// registration (each registration mode, each config hot reload, each plugin
// reload loads its own copy of the package), so state kept in a module
// would be forgotten on every config change while its spawns still run.
// The one state of the process is therefore kept on `globalThis`, under a
// key that names its shape (`processSpawnState`): every copy of the plugin
// works on it with its own code, and a copy with another shape keeps its
// own. Tests make a state of their own (`freshSpawnState`).

/**
 * A spawn this plugin let through.
 * @typedef {object} Spawn
 * @property {string} nonce the spawn's nonce, in its origin marker
 * @property {string} agentId the requesting agent
 * @property {string | undefined} requesterSessionKey the requester's session key
 * @property {string | undefined} toolCallId the `sessions_spawn` call's id
 * @property {string | undefined} cwd absent when the spawn gave none (a guard let it pass)
 * @property {string | undefined} repoPath the repository root the pre-flight found
 * @property {'run' | 'session'} mode one-shot, or persistent
 * @property {number} startedAt when the pre-flight let it through, milliseconds since the epoch
 * @property {string | undefined} claudeSessionId its Claude Code session, once known
 * @property {string | undefined} childSessionKey OpenClaw's child session, once known
 * @property {boolean} started the host was seen starting it (a child key, or its transcript, was seen)
 * @property {boolean} ended the run ended: the host reported its end, or refused the spawn
 * @property {boolean} answered the host is delivering its answer (`subagent_delivery_target`): its run has ended, the host has not reported so yet
 * @property {boolean} closed its session is gone too
 * @property {boolean} failed the host refused the spawn, or reported it ended with an error
 * @property {{ path: string, branch: string, finished?: boolean } | undefined} worktree the git worktree the pre-flight isolated it in (`finished` once its end was handled)
 * @property {boolean} [lookupFailed] looking up its transcript failed once (and was logged)
 */
/**
 * The tracker's state: shared by every copy of the plugin in a process.
 * @typedef {object} SpawnState
 * @property {Map<string, Spawn>} spawns by nonce
 * @property {string[]} finished Claude Code sessions whose spawn ended, newest last
 * @property {{ timer?: ReturnType<typeof setInterval>, owner?: symbol, api?: unknown }} learning the loop that learns sessions, and the copy that runs it
 */
/**
 * A spawn's state by the host's word: `starting` (let through, not seen
 * starting), `running` (its child session or transcript seen), `waiting`
 * (its run ended, its answer given; a persistent one's session lives on),
 * `ended` (its session closed too) or `failed` (refused, or ended with an
 * error). Only a starting or running spawn is handed to the addon as in
 * flight.
 * @typedef {'starting' | 'running' | 'waiting' | 'ended' | 'failed'} HostState
 */
/** @typedef {import('../../index.js').SpawnPolicy} SpawnPolicy */
/** @typedef {import('../../index.js').InFlightSpawn} InFlightSpawn */
/** @typedef {import('../../index.js').ResumableSession} ResumableSession */

/** The shape of `SpawnState` and `Spawn`: change it whenever either changes. */
const STATE_SHAPE = 2;
const STATE_KEY = Symbol.for(`openclaw-session-intel.spawns.v${STATE_SHAPE}`);

/** @returns {SpawnState} */
export const freshSpawnState = () => ({ spawns: new Map(), finished: [], learning: {} });

/** The process's one spawn state (see the top of this file). @returns {SpawnState} */
export function processSpawnState() {
  const g = /** @type {Record<symbol, SpawnState | undefined>} */ (/** @type {unknown} */ (globalThis));
  return (g[STATE_KEY] ??= freshSpawnState());
}

export class SpawnTracker {
  /** @type {SpawnPolicy | (() => SpawnPolicy)} */
  #policy;

  /**
   * @param {object} options
   * @param {SpawnPolicy | (() => SpawnPolicy)} options.policy the addon's `SPAWN_POLICY`, or how to get it when first needed
   * @param {SpawnState} [options.state] default: a fresh state
   * @param {() => number} [options.now] the clock, milliseconds since the epoch
   */
  constructor({ policy, state = freshSpawnState(), now = Date.now }) {
    this.#policy = policy;
    /** What is tracked. */
    this.state = state;
    /** The clock. */
    this.now = now;
  }

  /** The numbers spawns are tracked by. @returns {SpawnPolicy} */
  get policy() {
    if (typeof this.#policy === 'function') this.#policy = this.#policy();
    return this.#policy;
  }

  /**
   * Starts tracking a spawn: `fields` over one the host has not been seen
   * starting yet.
   * @param {Pick<Spawn, 'nonce' | 'agentId' | 'cwd' | 'mode' | 'startedAt'> & Partial<Spawn>} fields
   * @returns {Spawn}
   */
  track(fields) {
    /** @type {Spawn} */
    const spawn = {
      requesterSessionKey: undefined,
      toolCallId: undefined,
      repoPath: undefined,
      claudeSessionId: undefined,
      childSessionKey: undefined,
      started: false,
      ended: false,
      closed: false,
      answered: false,
      failed: false,
      worktree: undefined,
      ...fields,
    };
    this.state.spawns.set(spawn.nonce, spawn);
    return spawn;
  }

  /** Whether the spawn of `nonce` is tracked. @param {string} nonce */
  has(nonce) {
    return this.state.spawns.has(nonce);
  }

  /** The tracked spawn of `nonce`. @param {string} nonce */
  get(nonce) {
    return this.state.spawns.get(nonce);
  }

  /**
   * Stops tracking the spawn of `nonce` at once: its pre-flight refused
   * it, or it never got past its reservation.
   * @param {string} nonce
   */
  forget(nonce) {
    this.state.spawns.delete(nonce);
  }

  /** The spawn `sessions_spawn` call `toolCallId` made. @param {string | undefined} toolCallId */
  byToolCall(toolCallId) {
    return toolCallId ? this.#find((s) => s.toolCallId === toolCallId) : undefined;
  }

  /** The spawn whose child session is `key`. @param {string | undefined} key */
  byChild(key) {
    return key ? this.#find((s) => s.childSessionKey === key) : undefined;
  }

  /**
   * The host reports a child session started without saying which spawn
   * it is: it is the oldest spawn of the requester still waiting for its
   * child, among those let through within the start grace (one the host
   * refused fires no hook and never gets a child). That spawn is started
   * with it and returned.
   * @param {string} key the child session
   * @param {string | undefined} requester the requester's session key, when the host says
   */
  claimChild(key, requester) {
    const now = this.now();
    const s = this.#find((x) => !x.childSessionKey && !x.ended && now - x.startedAt < this.policy.startGraceMs
      && (!requester || !x.requesterSessionKey || x.requesterSessionKey === requester));
    if (s) this.childStarted(s, key);
    return s;
  }

  /** The host started the spawn's child session `key`. @param {Spawn} s @param {string} key */
  childStarted(s, key) {
    s.childSessionKey = key;
    s.started = true;
  }

  /** The host reported the spawn's run ended. @param {Spawn} s */
  end(s) {
    s.ended = true;
    if (s.claudeSessionId) this.#finished(s.claudeSessionId);
  }

  /**
   * The host is delivering the spawn's answer: it waits, no longer at work,
   * and is still tracked until the host reports its end.
   * @param {Spawn} s
   */
  answer(s) {
    s.answered = true;
    if (s.claudeSessionId) this.#finished(s.claudeSessionId);
  }

  /** The spawn is over with its session: refused, or closed by the host. @param {Spawn} s */
  close(s) {
    this.end(s);
    s.closed = true;
  }

  /** The host refused the spawn, or reported it ended with an error. @param {Spawn} s */
  fail(s) {
    this.close(s);
    s.failed = true;
  }

  /** The spawn's state by the host's word (see `HostState`). @param {Spawn} s @returns {HostState} */
  hostState(s) {
    if (s.failed) return 'failed';
    if (s.closed) return 'ended';
    if (s.ended || s.answered) return 'waiting';
    return s.started ? 'running' : 'starting';
  }

  /** The spawn's Claude Code session was found: it is `id`. @param {Spawn} s @param {string} id */
  learned(s, id) {
    s.claudeSessionId = id;
    s.started = true;
    if (s.ended || s.answered) this.#finished(id);
  }

  /** The spawns whose Claude Code session is still looked for. */
  toLearn() {
    const now = this.now();
    return [...this.state.spawns.values()].filter((s) => !s.claudeSessionId && s.cwd && now - s.startedAt <= this.policy.learnForMs);
  }

  /** Forgets spawns that are over and whose session is known or no longer looked for, and any past the policy's age. */
  prune() {
    const now = this.now();
    for (const [nonce, s] of this.state.spawns) {
      const age = now - s.startedAt;
      const over = s.ended && (s.mode !== 'session' || s.closed);
      if ((over && (s.claudeSessionId || age > this.policy.learnForMs)) || age > this.policy.forgetAfterMs) this.state.spawns.delete(nonce);
    }
  }

  /**
   * What the host knows, for the pre-flight of a spawn of `requester`: the
   * spawns in flight (starting or running by the host's word, and those
   * whose run ended before their session was learned, marked `runEnded`:
   * the addon finds their session by its nonce, and their last writes are
   * no sign of work), the sessions the host still holds for the requester,
   * and the sessions of ended spawns. The spawn
   * `self` names (the one being decided, reserved before its pre-flight)
   * is left out.
   * @param {string | undefined} requester
   * @param {string} [self] the nonce of the spawn the facts are for
   * @returns {{ inFlight: InFlightSpawn[], resumable: ResumableSession[], finishedSessionIds: string[] }}
   */
  facts(requester, self) {
    const located = [...this.state.spawns.values()].filter((s) => s.cwd && s.nonce !== self);
    return {
      inFlight: located.filter((s) => this.#inFlight(s) || (!s.claudeSessionId && !s.failed)).map((s) => ({
        nonce: s.nonce,
        repoPath: s.repoPath,
        cwd: /** @type {string} */ (s.cwd),
        claudeSessionId: s.claudeSessionId,
        childSessionKey: s.childSessionKey,
        startedAtMs: s.startedAt,
        started: s.started,
        runEnded: !this.#inFlight(s),
      })),
      // A persistent spawn's session stays with the host between its tasks
      // (OpenClaw reports no end of a task started through tools.invoke);
      // the pre-flight resumes it only while its transcript shows it idle.
      resumable: located
        .filter((s) => s.mode === 'session' && !s.closed && s.claudeSessionId && s.requesterSessionKey === requester)
        .map((s) => ({ claudeSessionId: /** @type {string} */ (s.claudeSessionId), cwd: /** @type {string} */ (s.repoPath ?? s.cwd), childSessionKey: s.childSessionKey })),
      finishedSessionIds: [...this.state.finished],
    };
  }

  /** Whether the spawn is starting or running by the host's word. @param {Spawn} s */
  #inFlight(s) {
    return ['starting', 'running'].includes(this.hostState(s));
  }

  /** @param {(s: Spawn) => boolean} test */
  #find(test) {
    for (const s of this.state.spawns.values()) if (test(s)) return s;
    return undefined;
  }

  /** @param {string} id */
  #finished(id) {
    const finished = this.state.finished;
    if (finished.includes(id)) return;
    finished.push(id);
    if (finished.length > this.policy.finishedKept) finished.shift();
  }
}
