// Child process of resume.test.mjs: pins `count` conversations, interleaved
// with epoch bumps, into one agent's file.
import { addon, retryBusy } from './helpers.mjs';

const [stateDir, claudeConfigDir, workDir, sessionId, prefix, count] = process.argv.slice(2);
for (let i = 0; i < Number(count); i++) {
  const r = await retryBusy(() => addon.pinSession({ conversationId: `${prefix}-${i}`, agentId: 'main', sessionId, workDir, runtimeId: 'rt', historyEpoch: 0, stateDir, claudeConfigDir }));
  if (!r.pinned) throw new Error(`not pinned: ${r.reason}`);
  await retryBusy(() => addon.bumpHistoryEpoch('shared-conversation', 'main', { stateDir }));
}
