// @ts-check
// What crosses the wire between the gateway and its paired nodes: the
// plugin's node command ids (versioned in their names), OpenClaw's own
// Claude session catalog command used as a fallback, the size bounds, and
// the addon functions the node commands answer from (as the addon declares
// them; see docs/architecture.md#several-machines-paired-nodes).

import { addon } from '../host.mjs';

/** The plugin's node commands, by what they answer. */
export const NODE_COMMANDS = /** @type {const} */ ({
  /** One page of the Claude Code sessions of a repository on that node. */
  sessions: 'sessionintel.sessions.list.v1',
  /** The project status of each folder of the repository on that node. */
  status: 'sessionintel.status.v1',
  /** The sessions of the repository running on that node now. */
  running: 'sessionintel.running.v1',
});

/** OpenClaw's bundled Claude session catalog command (the anthropic plugin), asked when a node lacks ours. */
export const CATALOG_LIST_COMMAND = 'anthropic.claude.sessions.list.v1';

/** The most JSON one node answer may hold, on the node (the addon's bound) and on the gateway. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** The most sessions one page of a node holds (the node commands' `limit`, 1 to this). */
export const MAX_PAGE_LIMIT = 200;

/** The platforms on which the gateway allows the plugin's node commands without an allowlist entry. */
export const NODE_PLATFORMS = /** @type {const} */ (['linux', 'macos', 'windows']);

/**
 * A repository's identity as it crosses the wire (the addon's
 * `RepositoryIdentity`): a remote or a root commit names the repository,
 * the path is the asking machine's folder, a hint only.
 * @typedef {{ path?: string, remote?: string | null, rootCommit?: string | null }} Identity
 */
/**
 * What a node command is asked (the addon's `HostSessionsRequest` without
 * the node's own settings).
 * @typedef {{ identity: Identity, pathHint?: string, limit?: number, cursor?: string }} HostRequest
 */
/**
 * One session as a node reports it: a `DiscoveredSession` as JSON (times as
 * milliseconds, or ISO text from the catalog fallback) with the folder it
 * lies in on that node and whether it runs.
 * @typedef {Record<string, any> & { sessionId: string, lastModified: string | number, projectPath?: string, running?: boolean }} HostSession
 */
/**
 * One node's page of sessions (the addon's `HostSessionsPage` as JSON).
 * @typedef {{ v: number, repositories: string[], sessions: HostSession[], nextCursor: string | null, truncated: boolean }} HostPage
 */
/**
 * The addon functions of paired nodes (see the addon's docs/api pages).
 * @typedef {object} NodeAddon
 * @property {(repoPath: string) => Promise<{ path: string, remote: string | null, rootCommit: string | null }>} repositoryIdentity
 * @property {(request: HostRequest & { claudeConfigDir?: string, maxBytes?: number }) => Promise<string>} hostSessionsPageJson
 * @property {(request: HostRequest & { claudeConfigDir?: string, maxBytes?: number }) => Promise<any>} hostProjectStatus
 * @property {(pageJson: string, host: { id: string, name: string, fallback?: boolean }, options?: { includeNative?: boolean }) => Promise<string>} hostPageRowsJson
 * @property {(task: string, hosts: Array<{ host: string, hostId: string, sessions: any[], fallback?: boolean }>, options?: { maxLines?: number, now?: number }) => string | null} remoteWorkBriefing
 */

/** The addon, with the functions paired nodes use. */
export const nodeAddon = () => /** @type {NodeAddon} */ (/** @type {unknown} */ (addon()));

/** Whether an identity names a repository (a remote or a root commit): a path alone matches nothing on another machine. @param {Identity | null | undefined} id */
export const namesRepository = (id) => Boolean(id && (id.remote || id.rootCommit));

/**
 * The name a repository's folder most likely has on any machine: the last
 * part of its remote (`github.com/o/shop` → `shop`), else the last part of
 * its path here.
 * @param {Identity} id
 */
export function repositoryName(id) {
  const fromRemote = id.remote?.split('/').filter(Boolean).pop();
  return fromRemote ?? lastPathPart(id.path ?? '');
}

/** The last part of a path in POSIX or Windows form. @param {string} p */
export const lastPathPart = (p) => p.split(/[\\/]+/).filter(Boolean).pop() ?? '';
