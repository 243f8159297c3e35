/**
 * What the report use cases (upload.ts, worker.ts, rebuild.ts, recover.ts) talk to, as an argument
 * (shared/deps.ts explains the pattern). Each use case names the part it needs (`WorkerDeps`, …); the
 * composition (shared/reports/deps.ts) builds all of it once per cold start from the real stores,
 * files and invoker, and unit tests pass fakes.
 */
import type { Bound, Clock, IdSource } from '../deps';
import type { readReport, buildItems, countRows, fingerprintReport } from '../engine';
import type { ObjectHead, openInputFile, RangedFiles } from './upload/file-input';
import type { WorkerInvoker } from '../jobs/worker-invoke';
import type { getItemsOfGen, writeItems } from '../store/items.repo';
import type { listPendingReports, scanPendingReports } from '../store/report-lifecycle.repo';
import type { StoredItem } from '../store/items.repo';
import type { SellerRecord } from '../store/sellers.repo';
import type { ComputedItem, DroppedManualValue } from '../engine';
import type { DocTransactItem } from '../store/client';
import type { ChargeInput, ChargeResult } from '../store/limits.repo';
import type { BuiltUpload } from '../store/report-lifecycle.repo';
import type { UploadCount, UploadRecord } from '../store/uploads.repo';
import type { getReportAnyStatus } from '../store/reports.repo';
import type { ensureSellerByNumber } from '../store/sellers.repo';
import type { getUserById, UserRecord } from '../store/users.repo';
import type { writeReportSummary } from './analytics/analytics';
import type { deleteIdentity, putIdentity } from '../store/report-identities.repo';
import type { contentOfSmallFile, findContentDuplicate, findDuplicate, identityOfFile } from './upload/duplicates';
import type { CatalogSync } from './worker/catalog-sync';
import type { CatalogTask, LastRebuild, ReportFailure, ReportProgress } from './domain/lifecycle';
import type { ReportPatch, ReportRecord } from '../store/report-record';
import type { resolveReportSettings } from './worker/report-settings';

/**
 * The conditional transitions of a report's life (shared/store/report-lifecycle.repo.ts): each answers
 * null or false when the report is no longer in the state the caller holds.
 */
export interface LifecycleStore {
  claimReportTask(
    userId: string,
    reportId: string,
    owner: string,
    leaseMs: number,
    now?: number,
  ): Promise<ReportRecord | null>;
  renewReportTask(
    userId: string,
    reportId: string,
    owner: string,
    leaseMs: number,
    progress: ReportProgress,
    now?: number,
  ): Promise<boolean>;
  releaseReportTask(
    userId: string,
    reportId: string,
    owner: string | null,
    leaseMs: number,
    now?: number,
  ): Promise<boolean>;
  finishUploadTask(
    userId: string,
    reportId: string,
    owner: string,
    built: BuiltUpload,
    catalog?: CatalogTask,
  ): Promise<ReportRecord | null>;
  finishRebuildTask(userId: string, reportId: string, owner: string | null, last: LastRebuild): Promise<boolean>;
  startRebuildTask(
    userId: string,
    reportId: string,
    taskId: string,
    leaseMs: number,
    nowMs?: number,
  ): Promise<ReportRecord | null>;
  claimCatalogTask(
    userId: string,
    reportId: string,
    taskId: string,
    leaseMs: number,
    now?: number,
  ): Promise<ReportRecord | null>;
  releaseCatalogTask(userId: string, reportId: string, taskId: string, now: number): Promise<boolean>;
  finishCatalogTask(userId: string, reportId: string, taskId: string): Promise<boolean>;
}

/** The report records the task routes read and remove (reports.repo.ts). */
export interface ReportReader {
  getReport(userId: string, reportId: string): Promise<ReportRecord | null>;
  getReportAnyStatus(userId: string, reportId: string): Promise<ReportRecord | null>;
  getReportItems(record: ReportRecord): Promise<StoredItem[]>;
  deleteReport(userId: string, reportId: string): Promise<ReportRecord | null>;
  listAllReports(userId: string): Promise<ReportRecord[]>;
}

import type { ReadHandover } from './upload/read-handover';

/** The stored files of uploads and reports (S3). */
export interface ReportFiles extends RangedFiles {
  objectHead(key: string): Promise<ObjectHead | null>;
  copyObject(from: string, to: string, ifMatch?: string | null): Promise<void>;
  putObject(key: string, body: Buffer): Promise<void>;
  deleteObject(key: string): Promise<void>;
  presignPut(key: string, size: number, expiresIn: number): Promise<string>;
  sourceObjectKey(userId: string, reportId: string, filename: string): string;
}

/** A report's items replaced as one versioned change (report-numbers.repo.ts). */
export interface ItemsReplacer {
  replaceItems(
    record: ReportRecord,
    items: readonly ComputedItem[],
    patch: ReportPatch,
  ): Promise<{ record: ReportRecord; items: StoredItem[] } | null>;
}

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
  files: RangedFiles;
  engine: { readReport: typeof readReport; buildItems: typeof buildItems };
  /** The preview's read of an upload, taken instead of reading the file again (upload/read-handover.ts). */
  handover: Pick<ReadHandover, 'take'>;
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
  /**
   * After a build or rebuild ended: a report marked `rebuild_again` meanwhile (own costs changed while it
   * was built) is rebuilt again (rebuild-covered.ts rebuildIfMarked); absent: nothing follows.
   */
  rebuildAgain?(userId: string, reportId: string): Promise<unknown>;
  /** Removes a seller an upload created on demand when nothing refers to it (recover.ts). */
  dropUnusedSeller(userId: string, sellerId: string | null | undefined): Promise<void>;
  /** Records a ready report's notification events (shared/notifications/record.ts); never throws. Absent: none. */
  events?: { reportReady(report: ReportRecord): Promise<void> };
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
  reports: ReportReader;
  sellers: { getSeller(userId: string, sellerId: string): Promise<SellerRecord | null> };
  files: ReportFiles;
  engine: { countRows: typeof countRows; fingerprintReport: typeof fingerprintReport };
  /** The report record of a charge (a TransactWriteItem; report-lifecycle.repo.ts). */
  lifecycle: {
    processingReportPut(record: ReportRecord, taskId: string, leaseMs: number, now?: number): DocTransactItem;
  };
  /** A request's stored answer, and the transaction element that stores one (idempotency.repo.ts). */
  idempotency: {
    getIdempotentRecord<T>(scope: string, key: string): Promise<{ result: T; fingerprint?: string } | null>;
    idempotencyPut(
      scope: string,
      key: string,
      result: unknown,
      extra?: Record<string, unknown>,
      ttlSeconds?: number | null,
    ): DocTransactItem;
  };
  limits: { chargeLimits(input: ChargeInput): Promise<ChargeResult> };
  uploads: {
    createUpload(userId: string, filename: string, size: number): Promise<UploadRecord>;
    saveUploadCount(userId: string, uploadId: string, count: UploadCount): Promise<void>;
  };
  identities: {
    identityPutTransactItem(userId: string, identity: string, reportId: string, createdAt: string): DocTransactItem;
  };
  products: { ensureProducts(userId: string, articles: readonly string[]): Promise<void> };
  /** The versioned change of a report's numbers (report-numbers.repo.ts). */
  numbers: ItemsReplacer;
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
