// Child process of registry.test.mjs: `count` registry updates as fast as it can.
import { addon, retryBusy } from './helpers.mjs';

const [agentId, repo, count] = process.argv.slice(2);
for (let i = 0; i < Number(count); i++) {
  await retryBusy(() => addon.updateSessionStats(agentId, repo, { turns: 1, costUsd: 0.5 }));
  if (i % 50 === 0) await retryBusy(() => addon.saveSession(agentId, repo, 'shared-session', { task: `task ${process.pid}/${i}` }));
}
