// @ts-check
// A node without the plugin's commands still contributes the sessions of a
// repository through OpenClaw's bundled Claude session catalog
// (`anthropic.claude.sessions.list.v1`, answered by the anthropic plugin
// on every node where its session catalog is enabled). Its rows carry no
// repository identity: a row belongs to the repository when the last part
// of its working folder is the repository's name (the remote's last part,
// else the asking folder's name), which the catalog's `searchTerm`
// narrows first. Its sessions are marked `fallback` and never `running`
// (the catalog does not say).

import { CATALOG_LIST_COMMAND, lastPathPart, repositoryName } from './protocol.mjs';

/** @typedef {import('./protocol.mjs').Identity} Identity */
/** @typedef {import('./protocol.mjs').HostPage} HostPage */
/** @typedef {import('./protocol.mjs').HostSession} HostSession */

/** The catalog's page limit (its largest). */
const CATALOG_LIMIT = 100;

/**
 * The catalog command and its parameters for the repository `identity`:
 * its first page, or the one after `cursor` (a page's `nextCursor`).
 * @param {Identity} identity
 * @param {string} [cursor]
 * @returns {{ command: string, params: { limit: number, searchTerm: string, cursor?: string } }}
 */
export function catalogRequest(identity, cursor) {
  return { command: CATALOG_LIST_COMMAND, params: { limit: CATALOG_LIMIT, searchTerm: repositoryName(identity).slice(0, 500), ...(cursor ? { cursor } : {}) } };
}

/**
 * A catalog row as a host session: its thread id is Claude Code's session
 * id, its name the first prompt, its latest time (epoch ms, as a node's
 * page gives it) the last change.
 * @param {Record<string, any>} row
 * @returns {HostSession}
 */
function hostSession(row) {
  const when = [row.updatedAt, row.recencyAt, row.createdAt].find((t) => Number.isFinite(t)) ?? 0;
  return {
    sessionId: String(row.threadId),
    source: 'native-only',
    branch: typeof row.gitBranch === 'string' && row.gitBranch ? row.gitBranch : 'unknown',
    firstMessage: typeof row.name === 'string' && row.name ? row.name.slice(0, 200) : '(no message)',
    lastModified: when,
    messageCount: 0,
    projectPath: row.cwd,
    running: false,
  };
}

/**
 * The catalog's answer as a host page: the rows of the repository only
 * (see the header), newest first, and the catalog's `nextCursor` (its
 * next page may hold more of them).
 * @param {Identity} identity
 * @param {unknown} answer the command's payload: `{ sessions, nextCursor? }`
 * @returns {HostPage}
 */
export function catalogPage(identity, answer) {
  const { sessions: rows, nextCursor } = /** @type {{ sessions?: unknown, nextCursor?: unknown }} */ (answer ?? {});
  if (!Array.isArray(rows)) throw Object.assign(new Error('the catalog answered no sessions list'), { code: 'E_NODE_ANSWER' });
  const name = repositoryName(identity).toLowerCase();
  const mine = rows.filter((r) => r && typeof r.threadId === 'string' && typeof r.cwd === 'string' && name !== '' && lastPathPart(r.cwd).toLowerCase() === name);
  const sessions = mine.map(hostSession).sort((a, b) => Number(b.lastModified) - Number(a.lastModified));
  const repositories = [...new Set(sessions.map((s) => /** @type {string} */ (s.projectPath)))];
  const next = typeof nextCursor === 'string' && nextCursor ? nextCursor : null;
  return { v: 1, repositories, sessions, nextCursor: next, truncated: next !== null };
}
