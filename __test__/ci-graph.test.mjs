// The job graph CI runs (scripts/ci-graph.mjs): what starts when, how many
// at once, what a failure skips, what a partial run takes in, and the phase
// table every run ends with.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { phaseTable, runGraph, selectJobs } from '../scripts/ci-graph.mjs';

const tick = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs `jobs` with jobs that take `ms[id]` (default 5 ms) and exit with `status[id]` (default 0); records the order of events and the most jobs of a lane at once. */
async function run(jobs, { lanes = { cpu: 1, waiting: 2 }, ms = {}, status = {} } = {}) {
  const events = [];
  const now = { true: 0, false: 0 };
  const most = { true: 0, false: 0 };
  const results = await runGraph(jobs, lanes, async (job) => {
    now[job.cpu]++;
    most[job.cpu] = Math.max(most[job.cpu], now[job.cpu]);
    await tick(ms[job.id] ?? 5);
    now[job.cpu]--;
    if (status[job.id] === 'throw') throw new Error('boom');
    return status[job.id] ?? 0;
  }, { started: (j) => events.push(`start ${j.id}`), ended: (j, r) => events.push(`end ${j.id} ${r.result}`) });
  return { events, most, results, result: (id) => results.get(id).result };
}

const graph = () => [
  { id: 'install', name: 'install', cpu: true },
  { id: 'build', name: 'build', cpu: true, needs: ['install'] },
  { id: 'chain', name: 'chain suites', cpu: false, needs: ['build'] },
  { id: 'openclaw', name: 'openclaw suites', cpu: false, needs: ['build'] },
  { id: 'claude', name: 'claude suites', cpu: false, needs: ['build'] },
  { id: 'rust', name: 'rust', cpu: true, needs: ['build'] },
  { id: 'lint', name: 'lint', cpu: true, needs: ['install'], after: ['build'] },
  { id: 'release', name: 'release', cpu: true, needs: ['install'], after: ['build'] },
  { id: 'install-test', name: 'install test', cpu: false, needs: ['release'] },
];

test('a job starts only after what it needs passed, and after the jobs it comes after', async () => {
  const { events } = await run(graph(), { ms: { build: 20 } });
  const at = (e) => events.indexOf(e);
  for (const [job, need] of [['build', 'install'], ['chain', 'build'], ['rust', 'build'], ['lint', 'build'], ['release', 'build'], ['install-test', 'release']]) {
    assert.ok(at(`start ${job}`) > at(`end ${need} passed`), `${job} after ${need}: ${events.join(', ')}`);
  }
  assert.equal(events.filter((e) => e.startsWith('end')).length, graph().length);
});

test('a job starts after the jobs it comes after, even when listed before them, and without needing their result', async () => {
  const jobs = graph();
  const reordered = [jobs[0], ...jobs.filter((j) => ['lint', 'release'].includes(j.id)), ...jobs.filter((j) => !['install', 'lint', 'release'].includes(j.id))];
  const { events, result } = await run(reordered, { lanes: { cpu: 3, waiting: 2 }, status: { build: 1 } });
  assert.ok(events.indexOf('start lint') > events.indexOf('end build failed'), events.join(', '));
  assert.equal(result('lint'), 'passed');
});

test('lanes: one computing job at a time, two waiting jobs beside it', async () => {
  const { most } = await run(graph(), { ms: { chain: 30, openclaw: 30, claude: 30, rust: 30 } });
  assert.deepEqual(most, { true: 1, false: 2 });
  const wider = await run(graph(), { lanes: { cpu: 2, waiting: 3 }, ms: { chain: 30, openclaw: 30, claude: 30, rust: 30, lint: 30 } });
  assert.deepEqual(wider.most, { true: 2, false: 3 });
});

test('a failed job skips what needs it, directly or not, and every other job still runs', async () => {
  const r = await run(graph(), { status: { release: 1, chain: 'throw' } });
  assert.equal(r.result('release'), 'failed');
  assert.equal(r.results.get('release').status, 1);
  assert.equal(r.result('chain'), 'failed', 'a job that throws has failed');
  assert.equal(r.result('install-test'), 'skipped');
  for (const id of ['openclaw', 'claude', 'rust', 'lint']) assert.equal(r.result(id), 'passed', id);
  const early = await run(graph(), { status: { install: 2 } });
  for (const j of graph().slice(1)) assert.equal(early.result(j.id), 'skipped', j.id);
  assert.ok(!early.events.some((e) => e.startsWith('start') && e !== 'start install'));
});

test('skips spread whatever the order of the jobs', async () => {
  const r = await run(graph().reverse(), { status: { build: 1 } });
  for (const id of ['chain', 'openclaw', 'claude', 'rust']) assert.equal(r.result(id), 'skipped', id);
  for (const id of ['lint', 'release', 'install-test']) assert.equal(r.result(id), 'passed', id);
});

test('a partial run (OSI_CI_ONLY) takes in what the asked jobs need, in graph order', () => {
  assert.deepEqual(selectJobs(graph(), ['install-test']).map((j) => j.id), ['install', 'release', 'install-test']);
  assert.deepEqual(selectJobs(graph(), ['chain', 'lint']).map((j) => j.id), ['install', 'build', 'chain', 'lint']);
  assert.equal(selectJobs(graph(), []).length, graph().length);
  assert.throws(() => selectJobs(graph(), ['nope']), /no job nope \(jobs: install, build/);
});

test('a job left out of a partial run does not hold up the ones that come after it', async () => {
  const r = await run(selectJobs(graph(), ['lint']));
  assert.deepEqual([...r.results].map(([id, x]) => `${id} ${x.result}`), ['install passed', 'lint passed']);
  await assert.rejects(() => runGraph([{ id: 'a', name: 'a', cpu: true, needs: ['b'] }], { cpu: 1, waiting: 1 }, async () => 0), /job a needs b, which is not in the run/);
});

test('the phase table names every job with its needs, lane, time and result', async () => {
  const jobs = graph();
  const { results } = await run(jobs, { ms: { build: 1100 }, status: { release: 3 } });
  const table = phaseTable(jobs, results).split('\n');
  assert.equal(table.length, jobs.length + 2);
  assert.equal(table[0], '| job | needs | lane | time | result |');
  assert.match(table.find((l) => l.startsWith('| build ')), /^\| build \| install \| computing \| 0m0[12]s \| passed \|$/);
  assert.match(table.find((l) => l.startsWith('| release ')), /\| FAILED \(exit 3\) \|$/);
  assert.match(table.find((l) => l.startsWith('| install test ')), /^\| install test \| release \| waiting \| - \| skipped \(a need failed\) \|$/);
});
