/**
 * WB's paid-storage report (`seller-analytics-api…/api/v1/paid_storage`, category «Аналитика»;
 * docs/WB-API.md «Paid storage and acceptance per article»): a task per period of at most 8 days, its
 * status, its download. One call per method, one typed outcome (report-task.ts); the pacing is
 * report-plan.ts's. `storageCosts` turns a downloaded report into per-day per-article kopecks.
 */
import { paidStorageReportSchema, type PaidStorageRow } from './analytics-schemas';
import {
  costsByDayAndArticle,
  createReportTaskClient,
  type ReportClientOptions,
  type ReportTaskClient,
} from '../finance/report-task';
import type { ArticleCost } from './costs';

export type { ArticleCost } from './costs';
export type { PaidStorageRow } from './analytics-schemas';

export type PaidStorageClient = ReportTaskClient<PaidStorageRow>;

export function createPaidStorageClient(opts: ReportClientOptions): PaidStorageClient {
  return createReportTaskClient('paid_storage', paidStorageReportSchema, opts);
}

/**
 * Storage per day (`date`: the day charged, or recalculated) and article: Σ warehousePrice («Сумма
 * хранения») of the day's rows for that nmId, over warehouses, supplies and sizes. loyaltyDiscount is not
 * subtracted (docs/WB-API.md: whether WB's weekly paidStorageSum is net of it only a real token can show).
 */
export function storageCosts(rows: readonly PaidStorageRow[]): ArticleCost[] {
  return costsByDayAndArticle(rows, (r) => ({ date: r.date, nmId: r.nmId, amount: r.warehousePrice }));
}
