// scripts/check-references.mjs: what it catches, what it lets through, and
// that the tracked files pass it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { root } from './support/helpers.mjs';
import { check, RULES } from '../scripts/check-references.mjs';

const rulesOf = (file, text) => check(file, text).map((f) => f.rule);

test('every rule catches the kind of reference it names', () => {
  const caught = {
    seed: '// the summary follows seed 003',
    'the-seed': "/// The seed's one-line form",
    research: '//! (research: how Claude Code counts usage)',
    'section-sign': 'see the notes, §4.1',
    'design-doc': '/// The stable error codes (DESIGN §7).',
    'notes-file': 'as claude-code-jsonl.md says',
    'outside-path': 'copied from /work/shared/fixtures',
    issue: 'Issue 16 asks for more than is here yet.',
    session: 'on the final code of session 39',
    stop: 'seen once (CI, stop 26)',
    'this-machine': 'about 62 ms on this machine',
    process: 'ask the lead',
  };
  assert.deepEqual(Object.keys(caught).sort(), RULES.map((r) => r.id).sort(), 'an example for every rule');
  for (const [rule, text] of Object.entries(caught)) assert.ok(rulesOf('src/x.rs', text).includes(rule), `${rule}: ${text}`);
  assert.equal(check('docs/x.md', 'line 1\nline 2 in session 40\n')[0].line, 2);
});

test('words that only look like references pass', () => {
  for (const text of [
    'from the committed seed corpus',
    'FUZZ_SEED=7 npm run fuzz -- 600',
    'generateCorpus({ dir, sessions: 3000, seed: 7 })',
    'npm run bench [-- --mb 300 --sessions 150 --runs 3]',
    '150 sessions with many subagent files',
    "const repo = '/work/flat';",
    'copy them to a scratch state dir',
    'openclaw#64287',
  ]) assert.deepEqual(rulesOf('docs/x.md', text), [], text);
});

test('an exception applies to its own file only', () => {
  const reply = "await withApi(text('I think session 1 is relevant!'), async () => {";
  assert.deepEqual(rulesOf('__test__/selection.test.mjs', reply), []);
  assert.deepEqual(rulesOf('__test__/other.test.mjs', reply), ['session']);
});

test('the tracked files cite nothing that is not in the repository', () => {
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'check-references.mjs')], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
});
