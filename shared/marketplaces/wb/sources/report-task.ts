/**
 * WB's report tasks on seller-analytics-api (docs/WB-API.md «Paid storage and acceptance per article»):
 * a report is made in three calls — create a task for a period, ask its status until `done`, download it.
 * This module is the one client of every such report, parameterised by its descriptor
 * (analytics-reports.ts): each method one GET and one typed WbOutcome (nothing here retries or sleeps:
 * report-plan.ts decides), and the conversion of rows to per-day per-article costs in kopecks.
 *
 * The base URL (setting WB_ANALYTICS_API_URL, settings.ts) and `fetch` are injected: tests and the local
 * emulator (scripts/local/wb/analytics.ts) run it against node:http.
 */
import type { z } from 'zod';
import { createTaskSchema, taskStatusSchema, type TaskStatus } from './analytics-schemas';
import type { AnalyticsReport } from './analytics-reports';
import type { ArticleCost } from './costs';
import type { FetchLike, WbOutcome } from '../finance/finance-client';
import { readJson, wbExchange } from '../http';
import { isMoneyText } from '../money';

export interface ReportWindow {
  /** YYYY-MM-DD, inclusive. */
  dateFrom: string;
  dateTo: string;
}

export interface ReportClientOptions {
  /** e.g. https://seller-analytics-api.wildberries.ru (no trailing path). */
  baseUrl: string;
  /** The seller's token, sent as the raw Authorization header. */
  token: string;
  fetch?: FetchLike;
  /** Time to the answer's status and headers. Default 10 s. */
  connectTimeoutMs?: number;
  /** Time for the whole exchange, body included. Default 120 s. */
  requestTimeoutMs?: number;
}

export interface ReportTaskClient<Row> {
  /** GET {path}?dateFrom&dateTo → the task's id. */
  createTask(window: ReportWindow): Promise<WbOutcome<string>>;
  /** GET {path}/tasks/{id}/status → new | processing | done | purged | canceled. */
  taskStatus(taskId: string): Promise<WbOutcome<TaskStatus>>;
  /** GET {path}/tasks/{id}/download → the rows (`empty` for none). */
  download(taskId: string): Promise<WbOutcome<Row[]>>;
}

const zodMessage = (e: z.ZodError) => {
  const issue = e.issues[0];
  return `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'unexpected shape'}`;
};

/** The one-call client of one report (analytics-reports.ts: its path; its schema checks a downloaded report). */
export function createReportTaskClient<Row>(
  report: AnalyticsReport<Row>,
  opts: ReportClientOptions,
): ReportTaskClient<Row> {
  const rows = report.rows;
  const base = `${opts.baseUrl.replace(/\/+$/, '')}${report.path}`;
  const http = {
    baseUrl: base,
    token: opts.token,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.connectTimeoutMs !== undefined ? { connectTimeoutMs: opts.connectTimeoutMs } : {}),
    ...(opts.requestTimeoutMs !== undefined ? { requestTimeoutMs: opts.requestTimeoutMs } : {}),
  };
  /** One GET (the shared WB exchange, http.ts): WB's statuses mapped, the JSON body handed to `read`. */
  const get = <T>(path: string, read: (json: unknown) => WbOutcome<T>): Promise<WbOutcome<T>> =>
    wbExchange<T>(http, 'GET', path, undefined, readJson(read));

  const taskUrl = (taskId: string, what: 'status' | 'download') => `/tasks/${encodeURIComponent(taskId)}/${what}`;

  return {
    createTask: (w) =>
      get(`?${new URLSearchParams({ dateFrom: w.dateFrom, dateTo: w.dateTo }).toString()}`, (json) => {
        const p = createTaskSchema.safeParse(json);
        return p.success
          ? { kind: 'ok', value: p.data.data.taskId }
          : { kind: 'invalid_response', message: zodMessage(p.error) };
      }),
    taskStatus: (taskId) =>
      get(taskUrl(taskId, 'status'), (json) => {
        const p = taskStatusSchema.safeParse(json);
        return p.success
          ? { kind: 'ok', value: p.data.data.status }
          : { kind: 'invalid_response', message: zodMessage(p.error) };
      }),
    download: (taskId) =>
      get<Row[]>(taskUrl(taskId, 'download'), (json) => {
        const p = rows.safeParse(json);
        if (!p.success) return { kind: 'invalid_response', message: zodMessage(p.error) };
        const data = p.data as Row[];
        return data.length === 0 ? { kind: 'empty' } : { kind: 'ok', value: data };
      }),
  };
}

/** Fractional kopecks are kept to 1e-6 kopeck while summing, so many small amounts round once, at the end. */
const SUB = 1_000_000n;

/** Decimal roubles text → millionths of a kopeck, exactly up to that precision (half away from zero beyond). */
function subKopecks(text: string): bigint {
  if (!isMoneyText(text)) throw new Error(`not a money amount: ${text}`);
  const t = text.trim();
  const negative = t.startsWith('-');
  const [whole, frac = ''] = t.replace(/^[+-]/, '').split('.') as [string, string?];
  const digits = 2 + 6; // kopecks, then 6 more
  const padded = (frac + '0'.repeat(digits)).slice(0, digits);
  let v = BigInt(whole) * 100n * SUB + BigInt(padded);
  if (frac.length > digits && frac.charCodeAt(digits) >= 53) v += 1n;
  return negative ? -v : v;
}

/** Millionths of a kopeck → kopecks, half away from zero. */
function roundKopecks(v: bigint): number {
  const abs = v < 0n ? -v : v;
  const k = (abs + SUB / 2n) / SUB;
  const n = Number(k);
  if (!Number.isSafeInteger(n)) throw new Error('amount out of range');
  return v < 0n && n !== 0 ? -n : n;
}

/** A downloaded report's rows → per-day per-article kopecks, as the report reads a row. */
export function reportCosts<Row>(report: AnalyticsReport<Row>, rows: readonly Row[]): ArticleCost[] {
  return costsByDayAndArticle(rows, report.cost);
}

/**
 * Rows → one cost per (date, nmId): amounts summed exactly, rounded to kopecks once per pair, pairs that
 * come to zero left out; sorted by date, then nmId.
 */
export function costsByDayAndArticle<Row>(
  rows: readonly Row[],
  pick: (row: Row) => { date: string; nmId: number; amount: string; vendorCode?: string },
): ArticleCost[] {
  const sums = new Map<string, { date: string; nmId: number; sum: bigint; vendorCode?: string }>();
  for (const row of rows) {
    const { date, nmId, amount, vendorCode } = pick(row);
    const day = date.slice(0, 10);
    const key = `${day}|${nmId}`;
    const entry = sums.get(key) ?? { date: day, nmId, sum: 0n };
    entry.sum += subKopecks(amount);
    if (vendorCode && !entry.vendorCode) entry.vendorCode = vendorCode;
    sums.set(key, entry);
  }
  const out: ArticleCost[] = [];
  for (const { date, nmId, sum, vendorCode } of sums.values()) {
    const kopecks = roundKopecks(sum);
    if (kopecks !== 0) out.push({ date, nmId, kopecks, ...(vendorCode ? { vendorCode } : {}) });
  }
  return out.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.nmId - b.nmId));
}
