// Child of kills.test.mjs and write-failures.test.mjs: runs one writer of
// the addon (writers.mjs).
//   node writer-child.mjs <writer> <setup.json> <first round> <op log>
//     rounds from <first round> on until killed; prints "ready" once the
//     addon is loaded, so the parent's random delay falls on writes, not on
//     node's start-up, and appends one byte to <op log> after each call of
//     the addon that returned (a write(2) each, so a kill loses none)
//   node writer-child.mjs <writer> <setup.json> --once   one round, under
//     whatever file-size limit the parent set: prints {ok} or the error's
//     {code, message, hint} as JSON (SIGXFSZ is caught, so a write past the
//     limit fails with EFBIG instead of killing the process)
import fs from 'node:fs';
import { addon } from './helpers.mjs';
import { opsOf, roundOf } from './writers.mjs';

const [writer, setupFile, mode, opLog] = process.argv.slice(2);
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
  const log = fs.openSync(opLog, 'a');
  // The pattern detector's expressions take ~100 ms to compile in a debug
  // build: compiled here, so that kills fall on captures, not on that.
  if (writer === 'handoff') addon.detectPatterns('We decided to go with one bucket. Done: the upload test. Blocked on CI.');
  process.stdout.write('ready\n');
  for (let i = Number(mode); ; i++) {
    for (const op of opsOf(writer, s, i)) {
      await op();
      fs.writeSync(log, '.');
    }
  }
}
