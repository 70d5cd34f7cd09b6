// Child process of registry.test.mjs: parses the registry until told to stop,
// and reports any moment at which the file was not valid JSON.
import fs from 'node:fs';

const [file] = process.argv.slice(2);
let reads = 0;
let bad = 0;
const stop = Date.now() + 120_000;
process.stdin.on('data', () => {
  console.log(JSON.stringify({ reads, bad }));
  process.exit(0);
});
function loop() {
  for (let i = 0; i < 50; i++) {
    try {
      JSON.parse(fs.readFileSync(file, 'utf8'));
      reads++;
    } catch (e) {
      if (e.code !== 'ENOENT') bad++;
    }
  }
  if (Date.now() < stop) setImmediate(loop);
}
loop();
