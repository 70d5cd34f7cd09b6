// Child of kills.test.mjs: runs one writer of the addon (writers.mjs) over
// and over until it is killed. Prints "ready" once the addon is loaded, so
// the parent's random delay falls on writes, not on node's start-up.
//   node writer-child.mjs <writer> <setup.json>
import fs from 'node:fs';
import { roundOf } from './writers.mjs';

const [writer, setupFile] = process.argv.slice(2);
const s = JSON.parse(fs.readFileSync(setupFile, 'utf8'));
process.stdout.write('ready\n');
for (let i = 0; ; i++) await roundOf(writer, s, i);
