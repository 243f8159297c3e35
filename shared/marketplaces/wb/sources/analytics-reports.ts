/**
 * WB's report tasks on seller-analytics-api as descriptors (docs/WB-API.md «Paid storage and acceptance per
 * article»): each report is its path, the days one task may cover, WB's limits per method, the zod schema
 * of its downloaded rows and how a row becomes a day's cost of a card. The generic task client
 * (report-task.ts), the plan (report-plan.ts), the cost source (analytics-source.ts) and the emulator's
 * routes (scripts/local/wb/analytics.ts) all read a report from here: a new report task is one entry in
 * `ANALYTICS_REPORTS` (and its schema in analytics-schemas.ts).
 */
import type { z } from 'zod';
import {
  acceptanceReportSchema,
  paidStorageReportSchema,
  type AcceptanceRow,
  type PaidStorageRow,
} from './analytics-schemas';

export type ReportOp = 'create' | 'status' | 'download';

export interface OpLimit {
  intervalMs: number;
  burst: number;
}
export type ReportLimits = Readonly<Record<ReportOp, OpLimit>>;

/** One report task kind of seller-analytics-api. */
export interface AnalyticsReport<Row = unknown, Api extends string = string> {
  /** The report's name: its plan's kind and the WB account's budget name (wb-connections.repo.ts claimStep). */
  api: Api;
  /** Where its methods live: `${path}`, `${path}/tasks/{id}/status`, `${path}/tasks/{id}/download`. */
  path: string;
  /** Calendar days (inclusive) one task may cover. */
  maxDays: number;
  /** WB's limits per seller account (spec «Отчёты», 12-reports.yaml), in WB's minute. */
  limits: ReportLimits;
  /** A downloaded report's rows. */
  rows: z.ZodType<Row[]>;
  /** A row's day (its first ten characters count), card and amount (decimal roubles). */
  cost(row: Row): { date: string; nmId: number; amount: string; vendorCode?: string };
}

/** WB's paid-storage report: a task per ≤ 8 days. */
export const PAID_STORAGE_REPORT: AnalyticsReport<PaidStorageRow, 'paid_storage'> = {
  api: 'paid_storage',
  path: '/api/v1/paid_storage',
  maxDays: 8,
  limits: {
    create: { intervalMs: 60_000, burst: 5 },
    status: { intervalMs: 5_000, burst: 5 },
    download: { intervalMs: 60_000, burst: 1 },
  },
  rows: paidStorageReportSchema,
  /**
   * Storage per day (`date`: the day charged, or recalculated) and article: Σ warehousePrice («Сумма
   * хранения») of the day's rows for that nmId, over warehouses, supplies and sizes. loyaltyDiscount is not
   * subtracted (docs/WB-API.md: whether WB's weekly paidStorageSum is net of it only a real token can show).
   */
  cost: (r) => ({ date: r.date, nmId: r.nmId, amount: r.warehousePrice, vendorCode: r.vendorCode || undefined }),
};

/** WB's paid-acceptance report: a task per ≤ 31 days. */
export const ACCEPTANCE_REPORT: AnalyticsReport<AcceptanceRow, 'acceptance'> = {
  api: 'acceptance',
  path: '/api/v1/acceptance_report',
  maxDays: 31,
  limits: {
    create: { intervalMs: 60_000, burst: 1 },
    status: { intervalMs: 5_000, burst: 1 },
    download: { intervalMs: 60_000, burst: 1 },
  },
  rows: acceptanceReportSchema,
  /** Acceptance per day of acceptance (`shkCreateDate`) and article: Σ total over the day's supplies. */
  cost: (r) => ({ date: r.shkCreateDate, nmId: r.nmID, amount: r.total }),
};

/** Every report task kind the sync and the emulator know. */
export const ANALYTICS_REPORTS = [PAID_STORAGE_REPORT, ACCEPTANCE_REPORT] as const;

export type ReportKind = (typeof ANALYTICS_REPORTS)[number]['api'];

/** The report of a kind (as a plan keeps it). */
export function analyticsReport(kind: ReportKind): AnalyticsReport {
  return ANALYTICS_REPORTS.find((r) => r.api === kind)! as AnalyticsReport;
}
