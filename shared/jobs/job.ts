/**
 * What a combine job is, as the registry (registry.ts) and the store that shares its state with other
 * processes (shared/store/jobs.repo.ts) both see it: plain types, no behaviour, so the store depends on
 * this module and not on the registry.
 */
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

/** Where a registry keeps its jobs' states for other processes (shared/store/jobs.repo.ts). */
export interface JobStore {
  /** Writes the job's state; the store forgets it at `expiresAt` (epoch ms). */
  save(job: JobSnapshot, expiresAt: number): Promise<void>;
  /** The stored state of `owner`'s job `id`, or null (unknown, another owner's, or expired at `now`). */
  load(owner: string, id: string, now: number): Promise<JobSnapshot | null>;
}
