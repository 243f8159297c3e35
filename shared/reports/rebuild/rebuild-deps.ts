/**
 * The real dependencies of starting and following a rebuild (rebuild.ts RebuildDeps), wired once per
 * cold start: the rebuild routes and the WB sync's re-derivation (shared/marketplaces/wb/sync/step-deps.ts). DynamoDB
 * stores and this process's worker invoker only: the rebuild itself runs in the worker, so these
 * functions hold neither S3 nor a reader.
 */
import { systemClock } from '../../deps';
import { lambdaWorkerInvoker } from '../../jobs/worker-invoke';
import { startRebuildTask } from '../../store/report-lifecycle.repo';
import { newReportId } from '../../store/report-record';
import { getReport, getReportAnyStatus, getReportItems, listAllReports } from '../../store/reports.repo';
import { getSeller } from '../../store/sellers.repo';
import type { RebuildDeps } from './rebuild';
import { reportConfig } from '../report-config';

export const rebuildDeps: RebuildDeps = {
  clock: systemClock,
  config: reportConfig,
  ids: { newId: newReportId },
  invoker: lambdaWorkerInvoker,
  lifecycle: { startRebuildTask },
  reports: { getReport, getReportAnyStatus, getReportItems, listAllReports },
  sellers: { getSeller },
};
