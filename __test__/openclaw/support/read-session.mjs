// Run with Node 24: node read-session.mjs <openclaw dir> <state dir> <out.json> <sessions JSON>
// Reads sessions of agent `main` with OpenClaw's own readers (SessionManager
// open, openAsync, openModelContext, and openBounded, retried while OpenClaw
// rebuilds its projection) and its transcript stats, plus the bookkeeping
// rows OpenClaw keys its caches on, and writes them as JSON (OpenClaw logs to
// stdout, so results go to a file).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DatabaseSync } from 'node:sqlite';

const [oc, state, out, sessionsJson] = process.argv.slice(2);
const sessions = JSON.parse(sessionsJson);
const sdk = (name) => import(pathToFileURL(path.join(oc, 'dist', 'plugin-sdk', `${name}.js`)).href);
const { SessionManager } = await sdk('agent-sessions');
const { readTranscriptStatsSync, loadTranscriptEventsSync } = await sdk('session-store-runtime');
const storePath = path.join(state, 'agents', 'main', 'agent', 'openclaw-agent.sqlite');

const book = (sid) => {
  const db = new DatabaseSync(storePath, { readOnly: true });
  try {
    return db.prepare(`SELECT (SELECT generation FROM transcript_rewrite_watermarks WHERE session_id = ?1) AS generation,
      (SELECT transcript_updated_at FROM session_windows WHERE session_id = ?1) AS transcriptUpdatedAt,
      (SELECT needs_rebuild FROM session_transcript_index_state WHERE session_id = ?1) AS needsRebuild,
      (SELECT active_event_count FROM session_transcript_index_state WHERE session_id = ?1) AS activeEventCount,
      (SELECT count(*) FROM pragma_foreign_key_check) AS foreignKeyViolations`).get(sid);
  } finally {
    db.close();
  }
};
const attempt = async (f) => {
  try {
    return await f();
  } catch (e) {
    return { error: String(e?.message ?? e).slice(0, 500) };
  }
};
const branch = (sm) => ({ entries: sm.getBranch(), context: sm.buildSessionContext().messages.length });

// Bookkeeping first, for every session: a rebuild started for one session
// may rebuild the others too.
const result = Object.fromEntries(sessions.map(({ sessionId }) => [sessionId, { bookBefore: book(sessionId) }]));
for (const { sessionId, sessionKey } of sessions) {
  const target = { agentId: 'main', sessionKey, sessionId, storePath };
  const r = result[sessionId];
  r.stats = await attempt(() => readTranscriptStatsSync({ agentId: 'main', sessionKey, sessionId }));
  // Identity rows against the events' own parentId, as OpenClaw decodes them.
  r.identityMismatches = await attempt(() => {
    const db = new DatabaseSync(storePath, { readOnly: true });
    const rows = db.prepare('SELECT event_id, parent_id FROM transcript_event_identities WHERE session_id = ?').all(sessionId);
    db.close();
    const parents = new Map(rows.map((x) => [x.event_id, x.parent_id]));
    const events = loadTranscriptEventsSync({ agentId: 'main', sessionKey, sessionId });
    return events.filter((e) => typeof e?.id === 'string' && e.type !== 'session' && parents.get(e.id) !== (typeof e.parentId === 'string' ? e.parentId : null)).map((e) => e.id);
  });
  r.open = await attempt(() => branch(SessionManager.open(target)));
  if (SessionManager.openAsync) r.openAsync = await attempt(async () => branch(await SessionManager.openAsync(target)));
  if (SessionManager.openModelContext) {
    r.modelContext = await attempt(() => {
      const b = branch(SessionManager.openModelContext(target));
      return { ids: b.entries.map((e) => e.id), context: b.context };
    });
  }
  // The bounded reader reads OpenClaw's projection; a store marked for
  // rebuild is rebuilt by the first sync call, which says so and is retried.
  r.boundedTries = 0;
  const deadline = Date.now() + 30_000;
  for (;;) {
    r.boundedTries += 1;
    r.bounded = await attempt(() => branch(SessionManager.openBounded(target, { maxEvents: 10_000, maxBytes: 64 << 20 })));
    if (!/rebuild/i.test(r.bounded.error ?? '') || Date.now() > deadline) break;
    await new Promise((ok) => setTimeout(ok, 200));
  }
  r.bookAfter = book(sessionId);
}
fs.writeFileSync(out, JSON.stringify(result));
