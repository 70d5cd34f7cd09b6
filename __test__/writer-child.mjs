// Child of kills.test.mjs and write-failures.test.mjs: runs one writer of
// the addon (writers.mjs).
//   node writer-child.mjs <writer> <setup.json>          rounds until killed;
//     prints "ready" once the addon is loaded, so the parent's random delay
//     falls on writes, not on node's start-up
//   node writer-child.mjs <writer> <setup.json> --once   one round, under
//     whatever file-size limit the parent set: prints {ok} or the error's
//     {code, message, hint} as JSON (SIGXFSZ is caught, so a write past the
//     limit fails with EFBIG instead of killing the process)
import fs from 'node:fs';
import { roundOf } from './writers.mjs';

const [writer, setupFile, mode] = process.argv.slice(2);
const s = JSON.parse(fs.readFileSync(setupFile, 'utf8'));
if (mode === '--once') {
  process.on('SIGXFSZ', () => {});
  try {
    await roundOf(writer, s, 0);
    process.stdout.write(JSON.stringify({ ok: true }));
  } catch (e) {
    process.stdout.write(JSON.stringify({ code: e.code, message: e.message, hint: e.hint }));
  }
} else {
  process.stdout.write('ready\n');
  for (let i = 0; ; i++) await roundOf(writer, s, i);
}
