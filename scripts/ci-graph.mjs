// The job graph CI runs (scripts/ci.mjs): which jobs a partial run needs,
// the order jobs start in and how many run at once, and the phase table at
// the end. Nothing here knows what a job does: `runJob` is given.

/**
 * A job of the graph.
 * @typedef {object} Job
 * @property {string} id what other jobs and OSI_CI_ONLY call it
 * @property {string} name what the phase table calls it
 * @property {boolean} cpu whether it computes (a computing lane) or mostly waits on real programs (a waiting lane)
 * @property {string[]} [needs] jobs that must pass before it starts; when one fails it is skipped
 * @property {string[]} [after] jobs it starts after (passed or not) when they are in the run: they share its lane
 */

/**
 * What became of a job in a run.
 * @typedef {object} JobResult
 * @property {'passed' | 'failed' | 'skipped' | 'not run'} result
 * @property {number} [status] the exit status of a job that ran
 * @property {number} [ms] how long it ran
 */

/**
 * The jobs of `jobs` that `only` asks for, with every job they need (all
 * of them when `only` is empty), in the order of `jobs`.
 * @template {Job} J
 * @param {J[]} jobs
 * @param {string[]} only
 * @returns {J[]}
 */
export function selectJobs(jobs, only) {
  if (!only.length) return jobs;
  const want = new Set();
  /** @param {string} id */
  const add = (id) => {
    const j = jobs.find((x) => x.id === id);
    if (!j) throw new Error(`OSI_CI_ONLY: no job ${id} (jobs: ${jobs.map((x) => x.id).join(', ')})`);
    if (want.has(id)) return;
    want.add(id);
    for (const n of j.needs ?? []) add(n);
  };
  only.forEach(add);
  return jobs.filter((j) => want.has(j.id));
}

/**
 * Runs the graph: a job starts once the jobs it needs have passed, the jobs
 * it comes after have ended, and its lane has room (`lanes.cpu` computing
 * jobs and `lanes.waiting` waiting ones at once). A job whose need failed or
 * was skipped is skipped; every other job still runs, so that one run shows
 * every failure. Resolves to each job's result by id once nothing runs.
 * @param {Job[]} jobs
 * @param {{ cpu: number, waiting: number }} lanes
 * @param {(job: Job) => Promise<number>} runJob runs a job, resolving to its exit status
 * @param {{ started?: (job: Job) => void, ended?: (job: Job, result: JobResult) => void }} [events]
 * @returns {Promise<Map<string, JobResult>>}
 */
export async function runGraph(jobs, lanes, runJob, events = {}) {
  const ids = new Set(jobs.map((j) => j.id));
  for (const j of jobs) {
    const unknown = (j.needs ?? []).filter((n) => !ids.has(n));
    if (unknown.length) throw new Error(`job ${j.id} needs ${unknown.join(', ')}, which is not in the run`);
  }
  /** @type {Map<string, JobResult & { state?: 'running' | 'ended' }>} */
  const results = new Map(jobs.map((j) => [j.id, { result: 'not run' }]));
  const ended = (/** @type {string} */ id) => results.get(id)?.state === 'ended';
  let running = 0;
  /** @type {Map<boolean, number>} */
  const busy = new Map([[true, 0], [false, 0]]);
  return new Promise((resolve, reject) => {
    const schedule = () => {
      // Skips spread along the graph before anything starts, whatever the order of `jobs`.
      for (let changed = true; changed;) {
        changed = false;
        for (const job of jobs) {
          const r = /** @type {JobResult & { state?: string }} */ (results.get(job.id));
          if (r.state) continue;
          if ((job.needs ?? []).some((n) => ended(n) && results.get(n)?.result !== 'passed')) {
            Object.assign(r, { state: 'ended', result: 'skipped' });
            changed = true;
          }
        }
      }
      for (const job of jobs) {
        const r = /** @type {JobResult & { state?: string }} */ (results.get(job.id));
        if (r.state) continue;
        if (!(job.needs ?? []).every(ended)) continue;
        if ((job.after ?? []).some((id) => ids.has(id) && !ended(id))) continue;
        if (/** @type {number} */ (busy.get(job.cpu)) >= (job.cpu ? lanes.cpu : lanes.waiting)) continue;
        r.state = 'running';
        busy.set(job.cpu, /** @type {number} */ (busy.get(job.cpu)) + 1);
        running++;
        events.started?.(job);
        const t0 = Date.now();
        runJob(job).catch(() => 1).then((status) => {
          Object.assign(r, { state: 'ended', status, ms: Date.now() - t0, result: status === 0 ? 'passed' : 'failed' });
          busy.set(job.cpu, /** @type {number} */ (busy.get(job.cpu)) - 1);
          running--;
          try {
            events.ended?.(job, r);
            schedule();
          } catch (e) {
            reject(e);
          }
        });
      }
      if (running === 0) resolve(new Map([...results].map(([id, { result, status, ms }]) => [id, { result, status, ms }])));
    };
    schedule();
  });
}

/** `ms` as minutes and seconds, e.g. `3m07s`. */
export const minutes = (/** @type {number} */ ms) => `${Math.floor(ms / 60_000)}m${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}s`;

/**
 * The phase table of a run (Markdown): each job, what it needs, its lane,
 * its time and its result.
 * @param {Job[]} jobs
 * @param {Map<string, JobResult>} results
 */
export function phaseTable(jobs, results) {
  const rows = jobs.map((j) => {
    const r = results.get(j.id) ?? { result: 'not run' };
    const result = r.result === 'failed' ? `FAILED (exit ${r.status})` : r.result === 'skipped' ? 'skipped (a need failed)' : r.result;
    return `| ${j.name} | ${(j.needs ?? []).join(', ') || '-'} | ${j.cpu ? 'computing' : 'waiting'} | ${r.ms === undefined ? '-' : minutes(r.ms)} | ${result} |`;
  });
  return ['| job | needs | lane | time | result |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}
