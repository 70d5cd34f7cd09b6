// Whether a process is still there (a zombie counts as gone).

import fs from 'node:fs';

/** True while `pid` runs; false once it has exited, even if not yet reaped. */
export function processAlive(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\S+ \(.*\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}
