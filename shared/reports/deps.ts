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
import { buildItems } from '../engine';
import { objectRanges } from '../files/objects';
import { makeWorkerInvoker } from '../jobs/worker-invoke';
import { writeItems } from '../store/items.repo';
import {
  claimReportTask,
  finishRebuildTask,
  finishUploadTask,
  listPendingReports,
  releaseReportTask,
  renewReportTask,
  scanPendingReports,
  startRebuildTask,
} from '../store/report-lifecycle.repo';
import { getReportAnyStatus } from '../store/reports.repo';
import { newReportId } from '../store/report-record';
import { ensureSellerByNumber } from '../store/sellers.repo';
import { getUserById } from '../store/users.repo';
import { deleteIdentity, putIdentity } from '../store/identities.repo';
import { writeReportSummary } from './analytics';
import { CatalogSync } from './catalog-sync';
import { faultyWrites } from './local-faults';
import type { ReportDeps } from './ports';
import { readReportSource } from './read-source';
import { rebuildReport } from './rebuild';
import { dropUnusedSeller, failUpload } from './recover';
import { duplicateLookups } from './duplicate-deps';
import { resolveReportSettings, type SettingsDeps } from './settings';
import { listProducts, getReportCostPrices } from '../store/products.repo';
import { putSummary } from '../store/summaries.repo';
import { runWorkerEvent } from './worker';

/** The real dependencies; `over` replaces parts (an integration test's failing store, say). */
export function makeReportDeps(over: Partial<ReportDeps> = {}): ReportDeps {
  const c = getConfig();
  const items = { writeItems };
  const settings: SettingsDeps = { products: { getReportCostPrices, listProducts } };
  const deps: ReportDeps = {
    clock: systemClock,
    ids: { newId: newReportId },
    invoker: makeWorkerInvoker((event) => runWorkerEvent(deps, event)),
    reports: { getReportAnyStatus },
    lifecycle: {
      claimReportTask,
      renewReportTask,
      releaseReportTask,
      finishUploadTask,
      finishRebuildTask,
      startRebuildTask,
    },
    pending: { listPendingReports, scanPendingReports },
    items: c.STAGE === 'local' ? faultyWrites(items) : items,
    users: { getUserById },
    sellers: { ensureSellerByNumber },
    files: { objectRanges },
    // Files and WB's API rows alike (read-source.ts).
    engine: { readReport: readReportSource, buildItems },
    settings: { resolveReportSettings: (...a) => resolveReportSettings(settings, ...a) },
    catalogSync: (userId) => new CatalogSync(userId),
    summaries: { writeReportSummary: (...a) => writeReportSummary({ summaries: { putSummary } }, ...a) },
    duplicates: {
      putIdentity,
      deleteIdentity,
      ...duplicateLookups,
    },
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
