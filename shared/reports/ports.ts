/**
 * What the report use cases (upload.ts, worker.ts, rebuild.ts, recover.ts) talk to, as an argument
 * (shared/deps.ts explains the pattern). Each use case names the part it needs (`WorkerDeps`, …); the
 * composition (shared/reports/deps.ts) builds all of it once per cold start from the real stores,
 * files and invoker, and unit tests pass fakes.
 */
import type { Bound, Clock, IdSource } from '../deps';
import type { readReport, buildItems, countRows, fingerprintReport } from '../engine';
import type * as objects from '../files/objects';
import type * as idempotencyRepo from '../store/idempotency.repo';
import type * as limitsRepo from '../store/limits.repo';
import type * as productsRepo from '../store/products.repo';
import type * as numbersRepo from '../store/report-numbers.repo';
import type * as reportsRepo from '../store/reports.repo';
import type * as sellersRepo from '../store/sellers.repo';
import type * as uploadsRepo from '../store/uploads.repo';
import type * as identitiesRepo from '../store/report-identities.repo';
import type { openInputFile } from './upload/file-input';
import type { WorkerInvoker } from '../jobs/worker-invoke';
import type { getItemsOfGen, writeItems } from '../store/items.repo';
import type * as lifecycleRepo from '../store/report-lifecycle.repo';
import type { listPendingReports, scanPendingReports } from '../store/report-lifecycle.repo';
import type { StoredItem } from '../store/items.repo';
import type { SellerRecord } from '../store/sellers.repo';
import type { DroppedManualValue } from '../engine';
import type { getReportAnyStatus } from '../store/reports.repo';
import type { ensureSellerByNumber } from '../store/sellers.repo';
import type { getUserById, UserRecord } from '../store/users.repo';
import type { writeReportSummary } from './analytics/analytics';
import type { deleteIdentity, putIdentity } from '../store/report-identities.repo';
import type { contentOfSmallFile, findContentDuplicate, findDuplicate, identityOfFile } from './upload/duplicates';
import type { CatalogSync } from './worker/catalog-sync';
import type { ReportFailure, ReportProgress } from './domain/lifecycle';
import type { ReportRecord } from '../store/report-record';
import type { resolveReportSettings } from './worker/report-settings';

/** The conditional transitions of a report's life (shared/store/report-lifecycle.repo.ts). */
export type LifecycleStore = Pick<
  typeof lifecycleRepo,
  | 'claimReportTask'
  | 'renewReportTask'
  | 'releaseReportTask'
  | 'finishUploadTask'
  | 'finishRebuildTask'
  | 'startRebuildTask'
  | 'claimCatalogTask'
  | 'releaseCatalogTask'
  | 'finishCatalogTask'
>;

/**
 * The report use cases' settings, read by the composition from the config (shared/config.ts names each):
 * the use cases take them through their deps (`deps.config()`) and read no config themselves.
 */
export interface ReportConfig {
  /** MAX_UPLOAD_BYTES: the largest file accepted (compressed). */
  maxUploadBytes: number;
  /** UPLOAD_WAIT_MS: how long a route waits for the worker before it answers 202. */
  uploadWaitMs: number;
  /** UPLOAD_WAIT_ROWS: above this many rows a route does not wait at all. */
  uploadWaitRows: number;
  /** WORKER_LEASE_MS: how long a worker's lease on a report lasts between heartbeats. */
  workerLeaseMs: number;
  /** WORKER_MAX_ATTEMPTS: attempts at a task before it is failed (upload) or ended (rebuild). */
  workerMaxAttempts: number;
}

/** What the worker needs (worker.ts runWorkerEvent). */
export interface WorkerDeps {
  clock: Clock;
  config(): ReportConfig;
  ids: IdSource;
  invoker: WorkerInvoker;
  reports: { getReportAnyStatus: typeof getReportAnyStatus };
  lifecycle: Omit<LifecycleStore, 'startRebuildTask'>;
  items: { writeItems: typeof writeItems };
  /** A ready report's items (the catalog follow-up reads their articles). */
  itemReader: { getItemsOfGen: typeof getItemsOfGen };
  users: { getUserById: typeof getUserById };
  sellers: { ensureSellerByNumber: typeof ensureSellerByNumber };
  files: Pick<typeof objects, 'objectRanges'>;
  engine: { readReport: typeof readReport; buildItems: typeof buildItems };
  settings: { resolveReportSettings: Bound<typeof resolveReportSettings> };
  /** The catalog look-ups of one attempt and the writes of its follow-up (catalog-sync.ts). */
  catalogSync(userId: string): Pick<CatalogSync, 'add' | 'done' | 'missing' | 'write' | 'complete'>;
  summaries: { writeReportSummary: Bound<typeof writeReportSummary> };
  /** The content identity records (duplicates.ts): the worker's check of a file's rows before building. */
  duplicates: {
    putIdentity: typeof putIdentity;
    deleteIdentity: typeof deleteIdentity;
    findContentDuplicate: Bound<typeof findContentDuplicate>;
  };
  /** Rebuilds one report now (rebuild.ts rebuildReport, bound to its dependencies). */
  rebuildReport(
    user: UserRecord,
    reportId: string,
    onProgress: (p: Partial<ReportProgress>) => void,
  ): Promise<RebuildResult>;
  /** Fails a processing upload and refunds it once (recover.ts failUpload). */
  failUpload(record: ReportRecord, failure: ReportFailure): Promise<number>;
  /** Removes a seller an upload created on demand when nothing refers to it (recover.ts). */
  dropUnusedSeller(userId: string, sellerId: string | null | undefined): Promise<void>;
}

/** A rebuilt report (rebuild.ts rebuildReport). */
export interface RebuildResult {
  record: ReportRecord;
  items: StoredItem[];
  seller: SellerRecord | null;
  /** In storage units (kopecks for money). */
  dropped: DroppedManualValue[];
}

/** What the sweep and an upload's recovery of abandoned uploads did (recover.ts). */
export interface SweepResult {
  /** Abandoned uploads undone completely by this sweep. */
  recovered: number;
  /** Rows given back by this sweep. */
  refunded_rows: number;
}

/** What recovery needs (the composition, shared/reports/deps.ts, gives the real ones). */
export type RecoverDeps = Pick<
  WorkerDeps,
  'clock' | 'config' | 'invoker' | 'lifecycle' | 'failUpload' | 'dropUnusedSeller'
> & {
  reports: Pick<WorkerDeps['reports'], 'getReportAnyStatus'>;
  pending: { listPendingReports: typeof listPendingReports; scanPendingReports: typeof scanPendingReports };
};

/** What the routes that start a report's task add (upload.ts with count-rows, rebuild.ts). */
export interface TaskRoutePorts {
  reports: Pick<
    typeof reportsRepo,
    'getReport' | 'getReportAnyStatus' | 'getReportItems' | 'deleteReport' | 'listAllReports'
  >;
  sellers: Pick<typeof sellersRepo, 'getSeller'>;
  files: Pick<
    typeof objects,
    'objectRanges' | 'objectHead' | 'copyObject' | 'putObject' | 'deleteObject' | 'presignPut' | 'sourceObjectKey'
  >;
  engine: { countRows: typeof countRows; fingerprintReport: typeof fingerprintReport };
  /** The report record of a charge (a TransactWriteItem; report-lifecycle.repo.ts). */
  lifecycle: Pick<typeof lifecycleRepo, 'processingReportPut'>;
  idempotency: Pick<typeof idempotencyRepo, 'getIdempotentRecord' | 'idempotencyPut'>;
  limits: Pick<typeof limitsRepo, 'chargeLimits'>;
  uploads: Pick<typeof uploadsRepo, 'createUpload' | 'saveUploadCount'>;
  identities: Pick<typeof identitiesRepo, 'identityPutTransactItem'>;
  products: Pick<typeof productsRepo, 'ensureProducts'>;
  /** The versioned change of a report's numbers (report-numbers.repo.ts). */
  numbers: Pick<typeof numbersRepo, 'replaceItems'>;
  /** The duplicate checks of a request's file (duplicates.ts), the lookups bound to their stores. */
  duplicates: {
    findDuplicate: Bound<typeof findDuplicate>;
    findContentDuplicate: Bound<typeof findContentDuplicate>;
    identityOfFile: typeof identityOfFile;
    contentOfSmallFile: typeof contentOfSmallFile;
  };
  /** Opens a request's file (file-input.ts), bound to the upload store and S3. */
  openInputFile: Bound<typeof openInputFile>;
  /** The user's reports whose processing stopped, picked up before an upload (recover.ts). */
  recoverAbandonedUploads(userId: string): Promise<SweepResult>;
}

/** Everything the report use cases need; the composition (deps.ts) builds one per cold start. */
export type ReportDeps = WorkerDeps &
  RecoverDeps &
  TaskRoutePorts & {
    lifecycle: LifecycleStore;
  };
