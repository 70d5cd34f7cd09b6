// Compile-only check (`tsc --noEmit -p __test__`): code written against the
// reference TypeScript (openclaw PR #23423 @ 645e0c6c, src/agents/claude-code)
// must type-check against our generated index.d.ts unchanged. The `Ref*`
// declarations restate the reference's types; each export of ours is assigned
// to the reference's signature, so any narrowing of an argument or widening
// of a result breaks the build. Every function that takes a session or a
// briefing back is also called with values of the reference's types, with
// object literals of exactly its fields, and with our own results: a field
// that becomes required on the way in breaks the build.

import * as addon from '../index.js';
import type {
  ClaudeCodeSessionEntry, ClaudeCodeTaskHistoryEntry, ContextPressure, DiscoveredSession, JsonlHeader, ProjectStatus,
  ProjectStatusToolPayload, ScoreFactors, SessionListToolPayload, SessionScore, SessionSelection, TaskRelevanceResult,
} from '../index.js';

type RefClaudeCodeTaskHistoryEntry = { at: string; task: string; costUsd: number };
type RefClaudeCodeSessionEntry = {
  sessionId: string;
  createdAt: string;
  lastResumedAt: string;
  totalCostUsd: number;
  totalTurns: number;
  triggeredBy?: { userId?: string; channel?: string };
  taskHistory: RefClaudeCodeTaskHistoryEntry[];
  label?: string;
};
type RefJsonlHeader = {
  gitBranch?: string;
  firstUserMessage?: string;
  slug?: string;
  version?: string;
  lineCount: number;
  originMarker?: string;
  totalInputTokens: number;
  totalOutputTokens: number;
  compactionCount: number;
};
type RefDiscoveredSession = {
  sessionId: string;
  source: 'openclaw' | 'native-only';
  agentId?: string;
  repoPath: string;
  branch: string;
  firstMessage: string;
  lastModified: Date;
  messageCount: number;
  fileSizeBytes: number;
  totalCostUsd?: number;
  totalTurns?: number;
  lastTask?: string;
  label?: string;
  slug?: string;
  isRunning: boolean;
  originMarker?: string;
  totalInputTokens: number;
  totalOutputTokens: number;
  compactionCount: number;
  budgetUsedPct?: number;
};

// project-status.ts
type RefProjectStatus = {
  repo: { path: string; name: string; isGitRepo: boolean };
  git: {
    currentBranch: string;
    headCommitSha: string;
    headCommitMessage: string;
    uncommittedChanges: string[];
    stagedChanges: string[];
    stashCount: number;
    recentCommits: Array<{ sha: string; message: string; author: string; date: string }>;
  };
  github?: {
    openPrs: Array<{ number: number; title: string; branch: string; state: string }>;
    failingChecks: Array<{ name: string; status: string }>;
  };
  sessions: { active: RefDiscoveredSession[]; recent: RefDiscoveredSession[]; ownRecent: RefDiscoveredSession[] };
  docs: { hasClaudeMd: boolean; hasSpecs: boolean; specFiles: string[]; hasTodo: boolean; hasReadme: boolean };
  timestamp: string;
};
const gatherProjectStatus: (repoPath: string, agentId?: string) => Promise<RefProjectStatus> = addon.gatherProjectStatus;
const status: RefProjectStatus = {} as ProjectStatus;

// session-selection.ts
type RefSessionSelectionConfig = { relevanceModel: string; relevanceMaxTokens: number; relevanceTimeoutMs: number; resumeThreshold: number; enabled: boolean };
type RefTaskRelevanceResult = { sessionId: string; relevance: number; reasoning: string };
type RefScoreFactors = { branchMatch: number; recency: number; taskRelevance: number; sessionHealth: number; contextCapacity: number };
type RefSessionScore = { sessionId: string; score: number; factors: RefScoreFactors; recommendation: 'resume' | 'fresh'; reason: string };
type RefSessionSelection = { action: 'resume' | 'fresh' | 'queue'; sessionId?: string; reason: string; scores?: RefSessionScore[] };
const defaults: RefSessionSelectionConfig = addon.DEFAULT_SESSION_SELECTION_CONFIG;
const selectSession: (
  task: string,
  repoPath: string,
  agentId: string,
  projectStatus: RefProjectStatus,
  label?: string,
  maxBudgetUsd?: number,
  config?: Partial<RefSessionSelectionConfig>,
) => Promise<RefSessionSelection> = addon.selectSession;
const assessTaskRelevance: (task: string, sessions: RefDiscoveredSession[], config?: RefSessionSelectionConfig) => Promise<RefTaskRelevanceResult[]> =
  addon.assessTaskRelevance;
const keywordFallback: (task: string, session: RefDiscoveredSession) => RefTaskRelevanceResult = addon.keywordFallback;
const scoreSession: (session: RefDiscoveredSession, _task: string, currentBranch: string, relevance: RefTaskRelevanceResult, _maxBudgetUsd?: number) => RefSessionScore =
  addon.scoreSession;
const selectionTypes: [RefTaskRelevanceResult, RefScoreFactors, RefSessionScore, RefSessionSelection] = [
  {} as TaskRelevanceResult, {} as ScoreFactors, {} as SessionScore, {} as SessionSelection,
];

// sessions.ts
const registryKey: (repoPath: string, label?: string) => string = addon.registryKey;
const repoPathToSlug: (repoPath: string) => string = addon.repoPathToSlug;
const resolveSession: (agentId: string, repoPath: string, label?: string) => string | undefined = addon.resolveSession;
const saveSession: (
  agentId: string,
  repoPath: string,
  sessionId: string,
  meta?: { userId?: string; channel?: string; task?: string; costUsd?: number; label?: string },
) => void = addon.saveSession;
const updateSessionStats: (agentId: string, repoPath: string, stats: { turns?: number; costUsd?: number }, label?: string) => void =
  addon.updateSessionStats;
const deleteSession: (agentId: string, repoPath: string, label?: string) => boolean = addon.deleteSession;
const listSessions: (agentId: string) => Record<string, RefClaudeCodeSessionEntry> = addon.listSessions;
const listAllSessions: () => Array<RefClaudeCodeSessionEntry & { agentId: string; repoPath: string }> = addon.listAllSessions;
const peekSessionHistory: (repoPath: string, sessionId: string, opts?: { maxMessages?: number; maxChars?: number }) => string =
  addon.peekSessionHistory;
const parseJsonlHeader: (filePath: string) => Promise<RefJsonlHeader> = addon.parseJsonlHeader;
const discoverSessions: (repoPath: string) => Promise<RefDiscoveredSession[]> = addon.discoverSessions;

// The reference's type names are exported too, and are supersets of its shapes.
const header: RefJsonlHeader = {} as JsonlHeader;
const discovered: RefDiscoveredSession = {} as DiscoveredSession;
const entry: RefClaudeCodeSessionEntry = {} as ClaudeCodeSessionEntry;
const task: RefClaudeCodeTaskHistoryEntry = {} as ClaudeCodeTaskHistoryEntry;

// Sessions and briefings typed by the reference go back in: as values, as
// object literals of exactly the reference's fields (no field of ours), and
// with every field the reference leaves optional absent.
const sessionListToolPayload: (sessions: RefDiscoveredSession[]) => SessionListToolPayload = addon.sessionListToolPayload;
const projectStatusToolPayload: (status: RefProjectStatus) => ProjectStatusToolPayload = addon.projectStatusToolPayload;
function referenceInputs(session: RefDiscoveredSession, refStatus: RefProjectStatus): unknown[] {
  const literal = {
    sessionId: 's1', source: 'openclaw', agentId: 'main', repoPath: '/r', branch: 'main', firstMessage: 'x', lastModified: new Date(),
    messageCount: 1, fileSizeBytes: 1, totalCostUsd: 0, totalTurns: 0, lastTask: 'x', label: 'l', slug: 's', isRunning: false,
    originMarker: 'main', totalInputTokens: 0, totalOutputTokens: 0, compactionCount: 0, budgetUsedPct: 0,
  } as const;
  const bare = {
    sessionId: 's1', source: 'native-only', repoPath: '/r', branch: 'main', firstMessage: 'x', lastModified: new Date(),
    messageCount: 1, fileSizeBytes: 1, isRunning: false, totalInputTokens: 0, totalOutputTokens: 0, compactionCount: 0,
  } as const;
  const relevance = { sessionId: 's1', relevance: 1, reasoning: 'r' };
  const { github: _github, ...withoutGithub } = refStatus;
  return [
    addon.sessionListToolPayload([session, literal, bare], { includeNative: false }),
    addon.projectStatusToolPayload(refStatus),
    addon.projectStatusToolPayload(withoutGithub),
    addon.projectStatusToolPayload({ ...refStatus, sessions: { active: [literal], recent: [bare], ownRecent: [] } }),
    addon.keywordFallback('t', literal),
    addon.keywordFallback('t', bare),
    addon.scoreSession(literal, 't', 'main', relevance),
    addon.scoreSession(bare, 't', 'main', relevance, 10),
    addon.assessTaskRelevance('t', [session, literal, bare]),
    addon.selectSession('t', '/r', 'main', refStatus),
    addon.selectSession('t', '/r', 'main', { ...refStatus, sessions: { active: [], recent: [literal, bare], ownRecent: [] } }),
  ];
}

// Our own results go back in too, and a `ContextPressure` from before it had
// `contextWindow` (its first shape) is still a wake message's pressure.
async function ownResults(repo: string): Promise<unknown[]> {
  const status: ProjectStatus = await addon.gatherProjectStatus(repo, 'main');
  const sessions: DiscoveredSession[] = await addon.discoverSessions(repo);
  const pressure: ContextPressure = await addon.contextPressure({ transcriptPath: '/t.jsonl' });
  const firstShape: { percent: number; tokens: number; level: 'OK' | 'WARNING' | 'CRITICAL'; line: string } = pressure;
  const wake = { agentId: 'a', tmuxSessionName: 't', trigger: 'response_complete', paneText: '' };
  return [
    addon.projectStatusToolPayload(status),
    addon.sessionListToolPayload(sessions),
    await addon.selectSession('t', repo, 'main', status),
    addon.scoreSession(sessions[0], 't', 'main', addon.keywordFallback('t', sessions[0])),
    addon.buildWakeMessage({ ...wake, contextPressure: pressure }),
    addon.buildWakeMessage({ ...wake, contextPressure: firstShape }),
  ];
}

// Typical caller code from runner.ts compiles as written there.
async function runnerPreflight(agentId: string, repo: string, label?: string): Promise<string | undefined> {
  const existing = resolveSession(agentId, repo, label);
  const sessions = await discoverSessions(repo);
  const active = sessions.filter((s) => s.isRunning);
  if (active.length > 0) return undefined;
  saveSession(agentId, repo, existing ?? sessions[0]?.sessionId ?? 'new', { task: 'x', costUsd: 0.1, label });
  updateSessionStats(agentId, repo, { turns: 1, costUsd: 0.1 }, label);
  return existing;
}

// The original handoff design's SessionState, as a hook written against that
// design declares it:
// our results are one, and one renders the context block.
interface SeedPatternNote {
  id: string;
  type: 'blocker' | 'decision' | 'insight' | 'accomplishment' | 'scope_creep' | 'task_created';
  content: string;
  timestamp: string;
  confidence: number;
  sourceMessageIndex: number;
  resolved?: boolean;
}
interface SeedSessionState {
  agentId: string;
  sessionKey: string;
  previousSessionId: string | null;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
  project: string;
  mode: 'work' | 'chat' | 'deep';
  patterns: SeedPatternNote[];
  summary: { lastTopic: string; inProgress: string[]; blockers: string[]; decisions: string[]; nextStep: string };
  lastMessageIndex: number;
  transcriptHash: string;
  resumeAvailable: boolean;
  resumeOfferedAt: string | null;
}
async function bootstrapHook(agentId: string): Promise<string | null> {
  await addon.captureHandoff({ agentId, trigger: 'reset', summarize: async (r) => ({ nextStep: r.fallback.nextStep }) });
  const state: SeedSessionState | null = await addon.checkForHandoff({ agentId });
  return state ? addon.renderHandoffContext(state) : null;
}

export const used = [
  bootstrapHook, referenceInputs, ownResults, sessionListToolPayload, projectStatusToolPayload,
  registryKey, repoPathToSlug, resolveSession, saveSession, updateSessionStats, deleteSession, listSessions, listAllSessions,
  peekSessionHistory, parseJsonlHeader, discoverSessions, header, discovered, entry, task, runnerPreflight,
  gatherProjectStatus, status,
  defaults, selectSession, assessTaskRelevance, keywordFallback, scoreSession, selectionTypes,
];
