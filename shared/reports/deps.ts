/**
 * The composition of the report use cases that read a report's file: the upload route and the worker
 * (the real stores, files, engine, this process's worker invoker and clock): the const `reportDeps`.
 * `makeReportDeps(over)` builds the same with parts replaced, for the use cases that take the whole
 * composition back (recovery, rebuild) when a test or local script swaps a part. Handlers pass it to
 * the use cases. The rebuild routes and the sweep, which read no file, have their own smaller compositions (rebuild-deps.ts, recover-deps.ts). It does not hold the
 * worker itself: the invoker hands events to the worker function, or, in a process whose composition
 * root set it (tests, local scripts), to the worker in that process (scripts/local/in-process-worker.ts).
 */
import { systemClock } from '../deps';
import { reportConfig } from './report-config';
import { buildItems, countRows, fingerprintReport } from '../engine';
import {
  copyObject,
  deleteObject,
  objectHead,
  objectRanges,
  presignPut,
  putObject,
  readObject,
  sourceObjectKey,
} from '../files/objects';
import { objectReadHandover } from './upload/read-handover';
import { lambdaWorkerInvoker } from '../jobs/worker-invoke';
import { getIdempotentRecord, idempotencyPut } from '../store/idempotency.repo';
import { deleteIdentity, identityPutTransactItem, putIdentity } from '../store/report-identities.repo';
import { getItemsOfGen, writeItems } from '../store/items.repo';
import { chargeLimits } from '../store/limits.repo';
import { addProducts, ensureProducts, getProducts, getReportCostPrices, listAllProducts } from '../store/products.repo';
import { processingReportPut, startRebuildTask } from '../store/report-lifecycle.repo';
import { replaceItems } from '../store/report-numbers.repo';
import { newReportId } from '../store/report-record';
import { deleteReport, getReport, getReportAnyStatus, getReportItems, listAllReports } from '../store/reports.repo';
import { ensureSellerByNumber, getSeller } from '../store/sellers.repo';
import { putSummary } from '../store/summaries.repo';
import { createUpload, saveUploadCount } from '../store/uploads.repo';
import { getUserById } from '../store/users.repo';
import { writeReportSummary } from './analytics/analytics';
import { CatalogSync } from './worker/catalog-sync';
import { fileDeps } from './upload/file-deps';
import type { ReportDeps } from './ports';
import { readReportSource } from './worker/read-source';
import { rebuildReport } from './rebuild/rebuild';
import { rebuildIfMarked } from './rebuild/rebuild-covered';
import { recoverAbandonedUploads } from './worker/recover';
import { recoverDeps } from './worker/recover-deps';
import { resolveReportSettings, type SettingsDeps } from './worker/report-settings';
import { readPeriodCosts } from '../store/wb-costs.repo';
import { getOwnCosts } from '../store/own-costs.repo';
import { reportReadyEvents } from '../notifications/record-deps';

/** The real dependencies; `over` replaces parts (an integration test's failing store, say). */
export function makeReportDeps(over: Partial<ReportDeps> = {}): ReportDeps {
  const settings: SettingsDeps = {
    products: { getReportCostPrices, listAllProducts },
    wbCosts: { readPeriodCosts },
    ownCosts: { getOwnCosts },
  };
  const deps: ReportDeps = {
    clock: systemClock,
    config: reportConfig,
    ids: { newId: newReportId },
    invoker: lambdaWorkerInvoker,
    reports: { getReport, getReportAnyStatus, getReportItems, deleteReport, listAllReports },
    lifecycle: { ...recoverDeps.lifecycle, startRebuildTask, processingReportPut },
    pending: recoverDeps.pending,
    items: { writeItems },
    itemReader: { getItemsOfGen },
    users: { getUserById },
    sellers: { ensureSellerByNumber, getSeller },
    files: { objectRanges, objectHead, copyObject, putObject, deleteObject, presignPut, sourceObjectKey },
    // Files and WB's API rows alike (read-source.ts).
    engine: { readReport: readReportSource, buildItems, countRows, fingerprintReport },
    handover: objectReadHandover({ putObject, readObject, deleteObject }),
    settings: { resolveReportSettings: (...a) => resolveReportSettings(settings, ...a) },
    catalogSync: (userId) => new CatalogSync(userId, { getProducts, addProducts }),
    summaries: { writeReportSummary: (...a) => writeReportSummary({ summaries: { putSummary } }, ...a) },
    duplicates: { putIdentity, deleteIdentity, ...fileDeps.duplicates },
    idempotency: { getIdempotentRecord, idempotencyPut },
    limits: { chargeLimits },
    uploads: { createUpload, saveUploadCount },
    identities: { identityPutTransactItem },
    products: { ensureProducts },
    numbers: { replaceItems },
    openInputFile: fileDeps.openInputFile,
    recoverAbandonedUploads: (userId) => recoverAbandonedUploads(deps, userId),
    rebuildReport: (user, reportId, onProgress) => rebuildReport(deps, user, reportId, onProgress),
    rebuildAgain: (userId, reportId) => rebuildIfMarked(deps, userId, reportId),
    failUpload: recoverDeps.failUpload,
    dropUnusedSeller: recoverDeps.dropUnusedSeller,
    events: { reportReady: reportReadyEvents },
    ...over,
  };
  return deps;
}

/** The dependencies of this process's handlers (a const object, like every composition). */
export const reportDeps: ReportDeps = makeReportDeps();
