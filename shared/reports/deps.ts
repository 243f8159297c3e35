/**
 * The composition of the report use cases: the real stores, files, engine, invoker and clock, built
 * once per cold start (reportDeps()). Handlers pass it to the use cases; the in-process worker invoker
 * (no WORKER_FUNCTION_NAME: integration tests, scripts) runs the worker with it.
 *
 * On the local stage only, WORKER_FAULT (local-faults.ts) wraps the item writes in a failing one, so
 * the e2e suite can crash a worker run inside serverless-offline; the use case knows nothing of it.
 */
import { getConfig } from '../config';
import { systemClock } from '../deps';
import { buildItems, countRows, fingerprintReport } from '../engine';
import {
  copyObject,
  deleteObject,
  objectHead,
  objectRanges,
  presignPut,
  putObject,
  sourceObjectKey,
} from '../files/objects';
import { makeWorkerInvoker } from '../jobs/worker-invoke';
import { getIdempotentRecord, idempotencyPut } from '../store/idempotency.repo';
import { deleteIdentity, identityPutTransactItem, putIdentity } from '../store/identities.repo';
import { writeItems } from '../store/items.repo';
import { chargeLimits } from '../store/limits.repo';
import { ensureProducts, getReportCostPrices, listProducts } from '../store/products.repo';
import {
  claimReportTask,
  finishRebuildTask,
  finishUploadTask,
  listPendingReports,
  processingReportPut,
  releaseReportTask,
  renewReportTask,
  scanPendingReports,
  startRebuildTask,
} from '../store/report-lifecycle.repo';
import { replaceItems } from '../store/report-numbers.repo';
import { newReportId } from '../store/report-record';
import { deleteReport, getReport, getReportAnyStatus, getReportItems, listAllReports } from '../store/reports.repo';
import { ensureSellerByNumber, getSeller } from '../store/sellers.repo';
import { putSummary } from '../store/summaries.repo';
import { createUpload, saveUploadCount } from '../store/uploads.repo';
import { getUserById } from '../store/users.repo';
import { writeReportSummary } from './analytics';
import { CatalogSync } from './catalog-sync';
import { fileDeps } from './file-deps';
import { faultyWrites } from './local-faults';
import type { ReportDeps } from './ports';
import { readReportSource } from './read-source';
import { rebuildReport } from './rebuild';
import { dropUnusedSeller, failUpload, recoverAbandonedUploads } from './recover';
import { resolveReportSettings, type SettingsDeps } from './settings';
import { readPeriodCosts } from '../store/wb-costs.repo';
import { getOwnCosts } from '../store/own-costs.repo';
import { runWorkerEvent } from './worker';

/** The real dependencies; `over` replaces parts (an integration test's failing store, say). */
export function makeReportDeps(over: Partial<ReportDeps> = {}): ReportDeps {
  const c = getConfig();
  const items = { writeItems };
  const settings: SettingsDeps = {
    products: { getReportCostPrices, listProducts },
    wbCosts: { readPeriodCosts },
    ownCosts: { getOwnCosts },
  };
  const deps: ReportDeps = {
    clock: systemClock,
    ids: { newId: newReportId },
    invoker: makeWorkerInvoker((event) => runWorkerEvent(deps, event)),
    reports: { getReport, getReportAnyStatus, getReportItems, deleteReport, listAllReports },
    lifecycle: {
      claimReportTask,
      renewReportTask,
      releaseReportTask,
      finishUploadTask,
      finishRebuildTask,
      startRebuildTask,
      processingReportPut,
    },
    pending: { listPendingReports, scanPendingReports },
    items: c.STAGE === 'local' ? faultyWrites(items) : items,
    users: { getUserById },
    sellers: { ensureSellerByNumber, getSeller },
    files: { objectRanges, objectHead, copyObject, putObject, deleteObject, presignPut, sourceObjectKey },
    // Files and WB's API rows alike (read-source.ts).
    engine: { readReport: readReportSource, buildItems, countRows, fingerprintReport },
    settings: { resolveReportSettings: (...a) => resolveReportSettings(settings, ...a) },
    catalogSync: (userId) => new CatalogSync(userId),
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
    failUpload,
    dropUnusedSeller,
    ...over,
  };
  return deps;
}

let current: ReportDeps | undefined;

/** The dependencies of this process (built on first use: once per cold start). */
export function reportDeps(): ReportDeps {
  current ??= makeReportDeps();
  return current;
}

/** Tests: this process's dependencies with `over` in place of the real parts (null: the real ones again). */
export function overrideReportDeps(over: Partial<ReportDeps> | null): ReportDeps {
  current = makeReportDeps(over ?? {});
  return current;
}
