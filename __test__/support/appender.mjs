// Child of edit.test.mjs: appends whole turns to a transcript, one line per
// write like OpenClaw's appendFileSync, every few ms (or, given 0 as the
// pause, without ever holding still), until stdin closes; then prints the
// ids of the lines no edit may drop (user and text replies).
import fs from 'node:fs';

const [file, pauseMs = '3'] = process.argv.slice(2);
const pause = Number(pauseMs);
const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
let parent = JSON.parse(lines[lines.length - 1]).id;
const kept = [];
let n = 0;
let stop = false;
process.stdin.on('end', () => (stop = true));
process.stdin.resume();
const line = (role, content, extra = {}) => {
  const id = `p${(n++).toString(16).padStart(7, '0')}`;
  fs.appendFileSync(file, `${JSON.stringify({ type: 'message', id, parentId: parent, timestamp: '2026-01-31T09:00:00.000Z', message: { role, content, timestamp: 1, ...extra } })}\n`);
  parent = id;
  return id;
};
function turn() {
  if (stop) {
    console.log(JSON.stringify({ kept }));
    return;
  }
  // Without a pause, turns follow each other for 50 ms at a time; stdin is
  // looked at in between.
  const until = performance.now() + (pause ? 0 : 50);
  do {
    const t = n;
    kept.push(line('user', [{ type: 'text', text: `appended ${t}` }]));
    line('assistant', [{ type: 'toolCall', id: `call_p${t}`, name: 'exec', arguments: { command: 'ls' } }]);
    line('toolResult', [{ type: 'text', text: 'ok' }], { toolCallId: `call_p${t}`, toolName: 'exec', isError: false });
    kept.push(line('assistant', [{ type: 'text', text: `reply ${t}` }]));
  } while (performance.now() < until);
  if (pause) setTimeout(turn, pause);
  else setImmediate(turn);
}
turn();
