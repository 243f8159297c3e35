/**
 * The real dependencies of recovery (recover.ts), wired once per cold start: undoing an upload (its
 * items, source, identity, refund and on-demand seller) and the scheduled sweep
 * (functions/reports/sweep.handler.ts, scripts/local/sweep.ts). It holds neither the worker nor a
 * reader: a report the sweep hands on goes to the worker through this process's invoker
 * (shared/jobs/worker-invoke.ts).
 */
import { systemClock } from '../../deps';
import { deleteObject } from '../../files/objects';
import { lambdaWorkerInvoker } from '../../jobs/worker-invoke';
import { deleteIdentity } from '../../store/report-identities.repo';
import { deleteItems } from '../../store/items.repo';
import { refundLimits } from '../../store/limits.repo';
import {
  claimCatalogTask,
  claimReportTask,
  failUploadUpdate,
  finishCatalogTask,
  releaseCatalogTask,
  finishRebuildTask,
  finishUploadTask,
  listPendingReports,
  markUploadFailed,
  releaseReportTask,
  renewReportTask,
  scanPendingReports,
} from '../../store/report-lifecycle.repo';
import { getReportAnyStatus } from '../../store/reports.repo';
import { removeSellerIfUnused } from '../../store/sellers.repo';
import { dropUnusedSeller, failUpload, type UndoDeps } from './recover';
import type { RecoverDeps } from '../ports';
import { reportConfig } from '../report-config';

const undoDeps: UndoDeps = {
  limits: { refundLimits },
  items: { deleteItems },
  lifecycle: { failUploadUpdate, markUploadFailed },
  files: { deleteObject },
  identities: { deleteIdentity },
  sellers: { removeSellerIfUnused },
};

/** Undoing an upload, bound to the real stores (the worker's and the upload's `failUpload`, `dropUnusedSeller`). */
export const undo: Pick<RecoverDeps, 'failUpload' | 'dropUnusedSeller'> = {
  failUpload: (...a) => failUpload(undoDeps, ...a),
  dropUnusedSeller: (...a) => dropUnusedSeller(undoDeps, ...a),
};

/** The scheduled sweep's dependencies. */
export const recoverDeps: RecoverDeps = {
  clock: systemClock,
  config: reportConfig,
  invoker: lambdaWorkerInvoker,
  reports: { getReportAnyStatus },
  lifecycle: {
    claimReportTask,
    renewReportTask,
    releaseReportTask,
    finishUploadTask,
    finishRebuildTask,
    claimCatalogTask,
    releaseCatalogTask,
    finishCatalogTask,
  },
  pending: { listPendingReports, scanPendingReports },
  ...undo,
};
