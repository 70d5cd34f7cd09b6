// A large real repository for the project-status benchmark, made with the
// git CLI: `files` files over nested folders, `commits` commits (built with
// git fast-import, so it takes seconds), then some modified, staged, deleted
// and untracked files and an ignored build folder in the work tree.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export function makeGitRepo({ dir, files = 6000, commits = 1000 }) {
  const stamp = path.join(dir, '.bench-made');
  if (fs.existsSync(stamp)) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const git = (...args) => execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd: dir, stdio: ['pipe', 'pipe', 'inherit'], maxBuffer: 1 << 30 });
  git('init', '-q');
  const name = (i) => `src/mod${i % 50}/sub${i % 7}/file${i}.ts`;
  const body = (i, v) => `// file ${i} version ${v}\nexport const value${i} = ${v};\n${'// filler line\n'.repeat(i % 20)}`;
  let stream = '';
  let mark = 1;
  const t0 = 1_700_000_000;
  for (let c = 0; c < commits; c++) {
    const msg = c === 0 ? 'initial import' : `change ${c}: tweak module ${c % 50}`;
    stream += `commit refs/heads/main\nmark :${mark++}\nauthor Bench <b@example.com> ${t0 + c * 3600} +0000\ncommitter Bench <b@example.com> ${t0 + c * 3600} +0000\ndata ${Buffer.byteLength(msg)}\n${msg}\n`;
    if (c > 0) stream += `from :${mark - 2}\n`;
    const touched = c === 0 ? Array.from({ length: files }, (_, i) => i) : [((c * 7919) % files), ((c * 104729) % files)];
    for (const i of touched) {
      const text = body(i, c);
      stream += `M 100644 inline ${name(i)}\ndata ${Buffer.byteLength(text)}\n${text}\n`;
    }
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: dir, input: stream, maxBuffer: 1 << 30 });
  git('reset', '-q', '--hard', 'main');
  fs.writeFileSync(path.join(dir, '.gitignore'), 'build/\n*.log\n');
  git('add', '.gitignore');
  git('-c', 'user.name=Bench', '-c', 'user.email=b@example.com', 'commit', '-qm', 'ignore build output');
  for (let i = 0; i < 30; i++) fs.appendFileSync(path.join(dir, name(i * 37)), '// edited\n');
  for (let i = 0; i < 5; i++) git('add', name(i * 37));
  fs.rmSync(path.join(dir, name(11)));
  fs.mkdirSync(path.join(dir, 'scratch/notes'), { recursive: true });
  for (let i = 0; i < 10; i++) fs.writeFileSync(path.join(dir, `scratch/notes/n${i}.md`), 'n');
  fs.writeFileSync(path.join(dir, 'TODO.md'), 'todo');
  fs.mkdirSync(path.join(dir, 'build'), { recursive: true });
  for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(dir, `build/out${i}.js`), 'x');
  fs.writeFileSync(stamp, '');
  fs.appendFileSync(path.join(dir, '.git', 'info', 'exclude'), '.bench-made\n');
  return dir;
}
