// Child of edit.test.mjs: one edit, to be killed at a random moment.
import { addon } from './helpers.mjs';

const [stateDir, sessionId] = process.argv.slice(2);
await addon.executeEdit({ stateDir, sessionId, toolRemoval: { preset: 'extreme' } });
