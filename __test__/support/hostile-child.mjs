// Child of hostile.test.mjs: one call of the addon on hostile input, in a
// process of its own so that its peak memory can be measured. Prints
// {ok, code?, ms, rssMb, result} as JSON.
//   node hostile-child.mjs <call> <args.json>
import fs from 'node:fs';
import { addon } from './helpers.mjs';

const [call, argsFile] = process.argv.slice(2);
const a = JSON.parse(fs.readFileSync(argsFile, 'utf8'));
const calls = {
  discover: async () => {
    const sessions = await addon.discoverSessions(a.repo, { claudeConfigDir: a.claude, registryRoot: a.state, persistentCache: false });
    return { count: sessions.length, first: sessions[0] && { messageCount: sessions[0].messageCount, fileSizeBytes: sessions[0].fileSizeBytes, lastUserMessage: sessions[0].lastUserMessage, firstMessage: sessions[0].firstMessage } };
  },
  status: async () => {
    const s = await addon.gatherProjectStatus(a.repo, undefined, { claudeConfigDir: a.claude, registryRoot: a.state, githubTimeoutMs: 1 });
    return { isGitRepo: s.repo.isGitRepo, recent: s.sessions.recent.length };
  },
};
const t = performance.now();
let out;
try {
  out = { ok: true, result: await calls[call]() };
} catch (e) {
  out = { ok: false, code: e.code, message: e.message };
}
out.ms = Math.round(performance.now() - t);
out.rssMb = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(JSON.stringify(out));
