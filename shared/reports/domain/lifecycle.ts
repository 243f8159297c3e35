/**
 * A report's life, as a table (pure: no store, no clock of its own). The conditional writes that carry
 * each transition out are in shared/store/report-lifecycle.repo.ts, one function per transition, each
 * with the condition this table states; the use cases (upload.ts, worker.ts, rebuild.ts, recover.ts)
 * decide which transition to ask for.
 *
 *   (new) ──queueUpload──▶ processing/upload ──finishUpload──▶ ready ──startRebuild──▶ processing/rebuild
 *                               │                                ▲                          │
 *                               └──failUpload──▶ failed           └─────────finishRebuild────┘
 *   processing (either task): claim (a worker takes the lease) · renew (heartbeat) · release (the
 *   lease is given back for the next attempt)
 *   (new) ──create──▶ ready (a combined report: built before it is written)
 *
 * A processing report carries a lease (`lease_owner`, `lease_until` in epoch ms) and the attempts so
 * far; only the lease's holder may renew it, finish the task or release it; recovery (recover.ts) may
 * release or end a task whose lease ran out.
 *
 * The catalog follow-up: an upload is made ready from its rows alone; when some of its articles are not
 * in the catalog yet, finishUpload also sets `catalog_task` {task_id, until, attempts} and leaves the report
 * in the pending index (gsi2). The worker then writes those catalog entries and ends the follow-up
 * (finishCatalog: `catalog_task` and gsi2 removed). A write that fails or is throttled leaves the report
 * ready and the follow-up pending: once its lease (`until`) ran out, recovery hands it to a worker again
 * (the worker event with the follow-up's task_id), which claims it (claimCatalog: counts the attempt),
 * looks the report's articles up and writes the missing ones; after CATALOG_MAX_ATTEMPTS it is dropped
 * (the articles stay out of the catalog; the report's missing_cost_price warning names them anyway).
 */

/**
 * `processing`: charged, being built by the worker (upload) or re-built (rebuild: its items of the
 * current generation stay readable); `ready`; `failed`: the upload could not be built and was refunded.
 */
export type ReportStatus = 'processing' | 'ready' | 'failed';

/** What the worker is doing to a `processing` report. */
export type ReportTask = 'upload' | 'rebuild';

/** Progress of a processing report, as the worker last saved it (heartbeat). */
export interface ReportProgress {
  step: 'queued' | 'reading' | 'pricing' | 'writing' | 'finishing';
  rows_read: number;
  rows_total: number;
  items_written: number;
  items_total: number;
}

export interface ReportFailure {
  code: string;
  message: string;
  /** `duplicate_report`: the user's report with the same rows. */
  duplicate_of?: string;
}

/** The outcome of the last rebuild done by the worker (the report stays `ready` when it fails). */
export interface LastRebuild {
  task_id: string;
  finished_at: string;
  /** Corrections whose article is gone (storage units), at most MAX_DROPPED_KEPT. */
  dropped: Array<{ article: string; field: string; value: number }>;
  error?: ReportFailure;
}

/** Corrections dropped by a rebuild kept on the record (a hostile rebuild must not grow it past 400 KB). */
export const MAX_DROPPED_KEPT = 200;

export function queuedProgress(rowsTotal: number): ReportProgress {
  return { step: 'queued', rows_read: 0, rows_total: rowsTotal, items_written: 0, items_total: 0 };
}

/** The part of a record the lifecycle looks at. */
export interface LifeState {
  status?: ReportStatus;
  task?: ReportTask;
  task_id?: string;
  lease_owner?: string;
  lease_until?: number;
  attempts?: number;
}

/** Who may ask for a transition: anyone, the holder of the lease, or whoever when the lease ran out. */
export type Actor = 'any' | 'holder' | 'holder_or_expired';

export interface Transition {
  /** The state (and task) the report must be in; null: the record must not exist yet. */
  from: { status: ReportStatus; task?: ReportTask } | null;
  to: { status: ReportStatus; task?: ReportTask };
  by: Actor;
  /** Whether the report leaves the pending index (gsi2) with it. */
  leavesPending?: boolean;
}

/** Every transition of a report's life (see the file comment). */
export const TRANSITIONS = {
  /** An upload's charge writes its report, queued for the worker (lease set: a lost invoke is noticed). */
  queueUpload: { from: null, to: { status: 'processing', task: 'upload' }, by: 'any' },
  /** A combined report is written complete. */
  create: { from: null, to: { status: 'ready' }, by: 'any' },
  /** A ready report goes back to the worker for a rebuild (its items stay readable). */
  startRebuild: { from: { status: 'ready' }, to: { status: 'processing', task: 'rebuild' }, by: 'any' },
  /** A worker takes the task: nobody holds it, or its holder's lease ran out. Counts the attempt. */
  claim: { from: { status: 'processing' }, to: { status: 'processing' }, by: 'holder_or_expired' },
  /** The holder's heartbeat: a longer lease and the latest progress. */
  renew: { from: { status: 'processing' }, to: { status: 'processing' }, by: 'holder' },
  /** The task is given back for its next attempt (the holder's retry, or recovery once the lease ran out). */
  release: { from: { status: 'processing' }, to: { status: 'processing' }, by: 'holder_or_expired' },
  finishUpload: {
    from: { status: 'processing', task: 'upload' },
    to: { status: 'ready' },
    by: 'holder',
    leavesPending: true,
  },
  /** Ready again, rebuilt or (`last_rebuild.error`) as it was; recovery ends one whose last attempt died. */
  finishRebuild: {
    from: { status: 'processing', task: 'rebuild' },
    to: { status: 'ready' },
    by: 'holder_or_expired',
    leavesPending: true,
  },
  /** The upload ends failed, refunded in the same transaction (so: once, ever). */
  failUpload: {
    from: { status: 'processing', task: 'upload' },
    to: { status: 'failed' },
    by: 'any',
    leavesPending: true,
  },
} as const satisfies Record<string, Transition>;

export type TransitionName = keyof typeof TRANSITIONS;

/** Whether `state` is where `name` may start (the store's condition says the same to DynamoDB). */
export function canStart(name: TransitionName, state: LifeState | null): boolean {
  const t: Transition = TRANSITIONS[name];
  if (t.from === null) return state === null;
  if (!state || (state.status ?? 'ready') !== t.from.status) return false;
  return t.from.task === undefined || state.task === t.from.task;
}

/** Whether a report has complete items: ready, or being rebuilt (its current generation stays readable). */
export function hasItems(r: LifeState): boolean {
  return r.status === 'ready' || (r.status === 'processing' && r.task === 'rebuild');
}

/** Whether a processing report's lease ran out at `nowMs` (a never-claimed one has a lease too). */
export function leaseExpired(r: LifeState, nowMs: number): boolean {
  return r.status === 'processing' && (r.lease_until ?? 0) < nowMs;
}

/**
 * What recovery does with a pending report at `nowMs`: nothing while its lease runs (`wait`); the task
 * back to a worker while attempts remain (`release`); after the last one, an upload fails and is
 * refunded (`fail_upload`), a rebuild ends with the report as it was (`end_rebuild`).
 */
export type RecoveryStep = 'wait' | 'release' | 'fail_upload' | 'end_rebuild';

export function recoveryStep(r: LifeState, nowMs: number, maxAttempts: number): RecoveryStep {
  if (!leaseExpired(r, nowMs)) return 'wait';
  if ((r.attempts ?? 0) < maxAttempts) return 'release';
  return r.task === 'rebuild' ? 'end_rebuild' : 'fail_upload';
}

/** A ready upload's catalog follow-up (see the file comment). */
export interface CatalogTask {
  task_id: string;
  /** The lease of whoever writes it now (epoch ms); recovery hands it on once it ran out. */
  until: number;
  attempts: number;
}

/** Attempts at a catalog follow-up before it is dropped (the sweep runs every 5 minutes: ~50 minutes). */
export const CATALOG_MAX_ATTEMPTS = 10;

/**
 * A catalog follow-up's lease, in leases of a report task (WORKER_LEASE_MS): it is not renewed while its
 * puts go out (5,000 take well under a second on DynamoDB, two minutes on a loaded DynamoDB Local), and
 * a report that is ready loses nothing by waiting for recovery a little longer.
 */
export const CATALOG_LEASE_FACTOR = 10;

/**
 * What recovery does with a report's catalog follow-up at `nowMs`: none to do (`none`), its lease still
 * runs (`wait`), or hand it to a worker (`resume`; the worker drops it after the last attempt).
 */
export function catalogStep(r: LifeState & { catalog_task?: CatalogTask }, nowMs: number): 'none' | 'wait' | 'resume' {
  if (r.status !== 'ready' || !r.catalog_task) return 'none';
  return r.catalog_task.until < nowMs ? 'resume' : 'wait';
}
