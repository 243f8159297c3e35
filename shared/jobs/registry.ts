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
 * `createJobRegistry(deps)` makes one registry: the combine handler (functions/reports/combine.handler.ts)
 * makes the process's one at load; a unit test makes its own with a manual clock.
 */
import { randomUUID } from 'node:crypto';
import type { Clock, IdSource } from '../deps';
import { toAppError } from '../errors';
import { describeError, log } from '../log';

export type JobStatus = 'queued' | 'running' | 'done' | 'failed';

export interface JobProgress {
  done: number;
  total: number;
  /** What the job is doing now (e.g. `reading`, `merging`, `writing`), when it says. */
  step?: string;
}

export interface JobError {
  code: string;
  message: string;
}

/** What callers see of a job (a copy: the registry's own record is never handed out). */
export interface JobSnapshot {
  id: string;
  owner: string;
  status: JobStatus;
  progress: JobProgress;
  report_id?: string;
  error?: JobError;
  created_at: number;
  finished_at?: number;
}

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
}

export const JOB_TTL_MS = 60 * 60 * 1000;
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
   * Waits until the job finishes or `ms` pass, whichever is first, and returns its state then.
   * A job the registry no longer knows is returned as given.
   */
  waitFor(job: JobSnapshot, ms: number): Promise<JobSnapshot>;
}

export function createJobRegistry(deps: JobRegistryDeps): JobRegistry {
  const ids = deps.ids ?? { newId: () => randomUUID() };
  const maxRunning = deps.maxRunning ?? MAX_RUNNING;
  const ttlMs = deps.ttlMs ?? JOB_TTL_MS;
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
    };
    jobs.set(job.id, job);
    waiting.push(job);
    pump();
    return snapshot(job);
  }

  function getJob(owner: string, id: string): JobSnapshot | null {
    sweep();
    const j = jobs.get(id);
    return j && j.owner === owner ? snapshot(j) : null;
  }

  async function waitFor(job: JobSnapshot, ms: number): Promise<JobSnapshot> {
    const j = jobs.get(job.id);
    if (!j || j.owner !== job.owner) return job;
    if (j.finished_at === undefined && ms > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([j.finished, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
      clearTimeout(timer);
    }
    return snapshot(j);
  }

  return { startJob, getJob, waitFor };
}
