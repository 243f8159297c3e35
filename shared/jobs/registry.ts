/**
 * The in-process combine job registry (docs/ARCHITECTURE.md, Combine jobs): a Map in the memory of the one
 * process that serves both combine routes. A job is a promise that reports progress and ends with the
 * new report's id; jobs are forgotten an hour after they finish. A restart loses every job, so an
 * unknown id is a normal answer (404), not a failure.
 *
 * At most MAX_RUNNING jobs run at once per process (a combine reads and writes thousands of items);
 * the rest wait as `queued`. Forgetting is done by a sweep on every access rather than by timers: a
 * frozen Lambda environment runs no timers, and a timer would keep a test process alive.
 *
 * With a `store` (shared/store/jobs.repo.ts in production), the registry also writes each job's state
 * where every process can read it: once when it starts (`queued`/`running`) and once when it ends
 * (`done` with the report id, or `failed` with the error). `findJob` answers from memory first, then
 * from the store: on Lambda several execution environments serve the combine routes, and a status call
 * may reach one that never saw the job (docs/ARCHITECTURE.md, Combine jobs and the Lambda trade-off).
 * A stored job that never ended is forgotten `lostAfterMs` after it started (its process was lost).
 *
 * `createJobRegistry(deps)` makes one registry: the combine handler (functions/reports/combine.handler.ts)
 * makes the process's one at load; a unit test makes its own with a manual clock.
 */
import { randomUUID } from 'node:crypto';
import type { Clock, IdSource } from '../deps';
import { toAppError } from '../errors';
import { describeError, log } from '../log';
import type { JobSnapshot, JobStore } from './job';

export interface ProgressReporter {
  /** Sets how many of the job's steps are done (capped to total). */
  set(done: number): void;
  /** One more step done. */
  advance(): void;
  /** Names the step now under way. */
  step(name: string): void;
}

/** The job's work: resolves with the id of the report it made. */
export type JobRun = (progress: ProgressReporter) => Promise<string>;

interface JobRecord extends JobSnapshot {
  run: JobRun;
  finished: Promise<void>;
  settle: () => void;
  /** The write of the starting state (the final state is written after it). */
  saved: Promise<void>;
}

export const JOB_TTL_MS = 60 * 60 * 1000;
/** A stored job still unfinished this long after it started is lost (its process is gone). */
export const JOB_LOST_AFTER_MS = 15 * 60 * 1000;
export const MAX_RUNNING = 2;

function snapshot(j: JobRecord): JobSnapshot {
  const s: JobSnapshot = {
    id: j.id,
    owner: j.owner,
    status: j.status,
    progress: { ...j.progress },
    created_at: j.created_at,
  };
  if (j.report_id !== undefined) s.report_id = j.report_id;
  if (j.error !== undefined) s.error = { ...j.error };
  if (j.finished_at !== undefined) s.finished_at = j.finished_at;
  return s;
}

export interface JobRegistryDeps {
  /** Job times (created_at, finished_at) and the hour after which a finished job is forgotten. */
  clock: Clock;
  /** Job ids; random UUIDs when not given. */
  ids?: IdSource;
  maxRunning?: number;
  ttlMs?: number;
  /** Shares the jobs' states with other processes; without it a job is known to this process only. */
  store?: JobStore;
  lostAfterMs?: number;
}

export interface JobRegistry {
  /**
   * Registers a job of `owner` with `total` steps and starts it (or queues it behind running ones).
   * Returns the job as it is at once (normally `queued` or `running`).
   */
  startJob(owner: string, total: number, run: JobRun): JobSnapshot;
  /** The job when it exists and belongs to `owner`; another owner's job is null, as an unknown one. */
  getJob(owner: string, id: string): JobSnapshot | null;
  /**
   * The job from this process's memory, else its stored state (written by the process that runs or
   * ran it); null when neither knows it.
   */
  findJob(owner: string, id: string): Promise<JobSnapshot | null>;
  /**
   * Waits until the job's starting state is stored (with a store), then until the job finishes or `ms`
   * pass, whichever is first, and returns its state then. A job the registry no longer knows is
   * returned as given.
   */
  waitFor(job: JobSnapshot, ms: number): Promise<JobSnapshot>;
}

export function createJobRegistry(deps: JobRegistryDeps): JobRegistry {
  const ids = deps.ids ?? { newId: () => randomUUID() };
  const maxRunning = deps.maxRunning ?? MAX_RUNNING;
  const ttlMs = deps.ttlMs ?? JOB_TTL_MS;
  const lostAfterMs = deps.lostAfterMs ?? JOB_LOST_AFTER_MS;
  const store = deps.store;
  const jobs = new Map<string, JobRecord>();
  const waiting: JobRecord[] = [];
  let running = 0;

  function sweep(): void {
    const now = deps.clock.now().getTime();
    for (const [id, j] of jobs) if (j.finished_at !== undefined && now - j.finished_at >= ttlMs) jobs.delete(id);
  }

  function pump(): void {
    while (running < maxRunning && waiting.length > 0) {
      const job = waiting.shift() as JobRecord;
      running++;
      void execute(job).finally(() => {
        running--;
        pump();
      });
    }
  }

  /** Writes the job's state to the store (when there is one); a failed write is logged, never thrown. */
  async function save(job: JobRecord): Promise<void> {
    if (!store) return;
    const s = snapshot(job);
    const expiresAt = s.finished_at !== undefined ? s.finished_at + ttlMs : s.created_at + lostAfterMs;
    try {
      await store.save(s, expiresAt);
    } catch (e) {
      log('error', 'job state not stored', { job_id: job.id, owner: job.owner, status: s.status, ...describeError(e) });
    }
  }

  async function execute(job: JobRecord): Promise<void> {
    job.status = 'running';
    const progress: ProgressReporter = {
      set: (done) => {
        job.progress.done = Math.max(0, Math.min(job.progress.total, Math.floor(done)));
      },
      advance: () => progress.set(job.progress.done + 1),
      step: (name) => {
        job.progress.step = name;
      },
    };
    try {
      const reportId = await job.run(progress);
      job.report_id = reportId;
      job.progress.done = job.progress.total;
      job.progress.step = 'done';
      job.status = 'done';
    } catch (e) {
      const err = toAppError(e);
      job.error = { code: err.code, message: err.message };
      job.status = 'failed';
      if (err.status >= 500) {
        // The job outlives its request, so nothing else would log the cause.
        log('error', 'job failed', { job_id: job.id, owner: job.owner, ...describeError(e) });
      }
    } finally {
      job.finished_at = deps.clock.now().getTime();
      // The final state is written after the starting one, and before a waiting request answers.
      await job.saved;
      await save(job);
      job.settle();
    }
  }

  function startJob(owner: string, total: number, run: JobRun): JobSnapshot {
    sweep();
    let settle = () => undefined as void;
    const finished = new Promise<void>((r) => (settle = r));
    const job: JobRecord = {
      id: ids.newId(),
      owner,
      status: 'queued',
      progress: { done: 0, total: Math.max(0, Math.floor(total)) },
      created_at: deps.clock.now().getTime(),
      run,
      finished,
      settle,
      saved: Promise.resolve(),
    };
    jobs.set(job.id, job);
    waiting.push(job);
    pump();
    job.saved = save(job);
    return snapshot(job);
  }

  function getJob(owner: string, id: string): JobSnapshot | null {
    sweep();
    const j = jobs.get(id);
    return j && j.owner === owner ? snapshot(j) : null;
  }

  async function findJob(owner: string, id: string): Promise<JobSnapshot | null> {
    const mine = getJob(owner, id);
    if (mine || !store) return mine;
    return store.load(owner, id, deps.clock.now().getTime());
  }

  async function waitFor(job: JobSnapshot, ms: number): Promise<JobSnapshot> {
    const j = jobs.get(job.id);
    if (!j || j.owner !== job.owner) return job;
    // The answer names a job other environments can find: its starting state is stored first.
    await j.saved;
    if (j.finished_at === undefined && ms > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([j.finished, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
      clearTimeout(timer);
    }
    return snapshot(j);
  }

  return { startJob, getJob, findJob, waitFor };
}
