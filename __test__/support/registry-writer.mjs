// Child process of registry.test.mjs: `count` registry updates as fast as it can.
import { addon } from './helpers.mjs';

// A call refused with E_SESSION_BUSY (the lock was not had within the wait,
// as on a loaded machine with eight writers) is made again, as a caller
// should; any other error fails the writer.
const [agentId, repo, count] = process.argv.slice(2);
const persist = (call) => {
  for (let tries = 1; ; tries++) {
    try {
      return call();
    } catch (e) {
      if (e.code !== 'E_SESSION_BUSY' || tries === 20) throw e;
    }
  }
};
for (let i = 0; i < Number(count); i++) {
  persist(() => addon.updateSessionStats(agentId, repo, { turns: 1, costUsd: 0.5 }));
  if (i % 50 === 0) persist(() => addon.saveSession(agentId, repo, 'shared-session', { task: `task ${process.pid}/${i}` }));
}
