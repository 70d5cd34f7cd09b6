// Child process of registry.test.mjs: `count` registry updates as fast as it can.
import { addon } from './helpers.mjs';

const [agentId, repo, count] = process.argv.slice(2);
for (let i = 0; i < Number(count); i++) {
  addon.updateSessionStats(agentId, repo, { turns: 1, costUsd: 0.5 });
  if (i % 50 === 0) addon.saveSession(agentId, repo, 'shared-session', { task: `task ${process.pid}/${i}` });
}
