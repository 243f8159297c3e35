/**
 * WB's paid-acceptance report (`seller-analytics-api…/api/v1/acceptance_report`, category «Аналитика»;
 * docs/WB-API.md «Paid storage and acceptance per article»): a task per period of at most 31 days, its
 * status, its download (rows per supply and article). One call per method, one typed outcome
 * (report-task.ts); the pacing is report-plan.ts's. `acceptanceCosts` turns a downloaded report into
 * per-day per-article kopecks.
 */
import { acceptanceReportSchema, type AcceptanceRow } from './analytics-schemas';
import {
  costsByDayAndArticle,
  createReportTaskClient,
  type ReportClientOptions,
  type ReportTaskClient,
} from '../finance/report-task';
import type { ArticleCost } from './costs';

export type { ArticleCost } from './costs';
export type { AcceptanceRow } from './analytics-schemas';

export type AcceptanceClient = ReportTaskClient<AcceptanceRow>;

export function createAcceptanceClient(opts: ReportClientOptions): AcceptanceClient {
  return createReportTaskClient('acceptance', acceptanceReportSchema, opts);
}

/** Acceptance per day of acceptance (`shkCreateDate`) and article: Σ total over the day's supplies. */
export function acceptanceCosts(rows: readonly AcceptanceRow[]): ArticleCost[] {
  return costsByDayAndArticle(rows, (r) => ({ date: r.shkCreateDate, nmId: r.nmID, amount: r.total }));
}
