/**
 * Typed client of WB's Finance API (category «Финансы»; docs/WB-API.md). One method per call, each one
 * HTTP request and one typed outcome: the caller (the sync step, sync-plan.ts) decides what happens next,
 * so nothing here retries or sleeps.
 *
 * The base URL (setting WB_FINANCE_API_URL, settings.ts) and `fetch` are injected: tests and the local
 * emulator (scripts/local/wb-emulator.ts) run it against node:http.
 */
import type { z } from 'zod';
import { readJsonArray } from './json-rows';
import { checkDetailedRow, reportListSchema, type ReportSummary, type WbDetailedRow } from './schemas';

class StopReading extends Error {}

export const LIST_PATH = '/api/finance/v1/sales-reports/list';
export const DETAILED_PATH = '/api/finance/v1/sales-reports/detailed';
export const LIST_LIMIT_MAX = 1000;
export const DETAILED_LIMIT_MAX = 100_000;

export type WbOutcome<T> =
  | { kind: 'ok'; value: T }
  /** 204, or an empty array: nothing (more) to read. */
  | { kind: 'empty' }
  /** 401: the token is invalid, expired or withdrawn. The connection needs a new token. */
  | { kind: 'unauthorized'; message: string }
  /** 403: the token lacks the «Финансы» category (or is a Basic token where it is not allowed). */
  | { kind: 'forbidden'; message: string }
  /** 429: wait `retryAfterSeconds` (X-Ratelimit-Retry) before the next call to this seller account. */
  | {
      kind: 'rate_limited';
      retryAfterSeconds: number;
      limit: number | null;
      remaining: number | null;
      resetSeconds: number | null;
    }
  /** 404: no report with this id. */
  | { kind: 'not_found'; message: string }
  /** Other 4xx (400 bad body, 402…): a bug on our side or a WB change; not worth retrying as is. */
  | { kind: 'rejected'; status: number; message: string }
  /** 5xx: WB's trouble; retry later. */
  | { kind: 'server_error'; status: number; message: string }
  /** No answer: connection refused/reset, or a timeout (`timeout` says which). Retry later. */
  | { kind: 'network_error'; timeout: boolean; message: string }
  /** 200 with a body that is not what the spec says. */
  | { kind: 'invalid_response'; message: string };

type Check<T> = { success: true; data: T[] } | { success: false; path: string; message: string };

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface FinanceClientOptions {
  /** e.g. https://finance-api.wildberries.ru (no trailing path). */
  baseUrl: string;
  /** The seller's token, sent as the raw Authorization header (WB's convention, no "Bearer"). */
  token: string;
  fetch?: FetchLike;
  /** Time to the answer's status and headers (connecting included). Default 10 s. */
  connectTimeoutMs?: number;
  /** Time for the whole exchange, body included (a page can hold 100 000 rows). Default 120 s. */
  requestTimeoutMs?: number;
}

export interface ListQuery {
  /** RFC3339 or YYYY-MM-DD, Moscow time. */
  dateFrom: string;
  dateTo: string;
  period?: 'weekly' | 'daily';
  limit?: number;
  offset?: number;
}

export interface DetailedQuery {
  /** The last row's rrdId of the previous page; 0 for the first page. */
  rrdId: number;
  limit?: number;
}

export interface FinanceClient {
  listReports(query: ListQuery): Promise<WbOutcome<ReportSummary[]>>;
  detailedPage(reportId: number, query: DetailedQuery): Promise<WbOutcome<WbDetailedRow[]>>;
}

function header(res: Response, name: string): number | null {
  const v = res.headers.get(name);
  if (v === null || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

async function errorText(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { detail?: unknown; title?: unknown; message?: unknown };
    const m = body.detail ?? body.message ?? body.title;
    if (typeof m === 'string' && m !== '') return m;
  } catch {
    // not JSON
  }
  return text.slice(0, 300) || res.statusText || `HTTP ${res.status}`;
}

export function createFinanceClient(opts: FinanceClientOptions): FinanceClient {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const doFetch: FetchLike = opts.fetch ?? ((url, init) => fetch(url, init));
  const connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
  const requestTimeoutMs = opts.requestTimeoutMs ?? 120_000;

  const zodCheck =
    <T>(schema: z.ZodType<T[]>) =>
    (json: unknown): Check<T> => {
      const parsed = schema.safeParse(json);
      if (parsed.success) return { success: true, data: parsed.data };
      const issue = parsed.error.issues[0];
      return { success: false, path: issue?.path.join('.') ?? '', message: issue?.message ?? 'unexpected shape' };
    };

  /** The body as one JSON document, checked whole (the report list: small). */
  const whole =
    <T>(check: (json: unknown) => Check<T>) =>
    async (res: Response): Promise<WbOutcome<T[]>> => {
      const text = await res.text();
      if (text.trim() === '') return { kind: 'empty' };
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return { kind: 'invalid_response', message: 'the answer is not JSON' };
      }
      const parsed = check(json);
      if (!parsed.success) return { kind: 'invalid_response', message: `${parsed.path}: ${parsed.message}` };
      return parsed.data.length === 0 ? { kind: 'empty' } : { kind: 'ok', value: parsed.data };
    };

  /**
   * A detailed page read as a stream of rows (json-rows.ts), each checked as it arrives: the page's text
   * (~210 MB for 100 000 rows) is never held whole, nor the parsed rows as WB sent them.
   */
  const rowByRow = async (res: Response): Promise<WbOutcome<WbDetailedRow[]>> => {
    if (!res.body) return { kind: 'empty' };
    const rows: WbDetailedRow[] = [];
    let bad: string | null = null;
    const read = await readJsonArray(res.body as unknown as AsyncIterable<Uint8Array>, (value, i) => {
      const row = checkDetailedRow(value, i);
      if ('success' in row) {
        bad = `${row.path}: ${row.message}`;
        throw new StopReading();
      }
      rows.push(row);
    }).catch((e: unknown) => {
      if (e instanceof StopReading) return null;
      throw e;
    });
    if (bad !== null || read === null) {
      await res.body.cancel().catch(() => undefined);
      return { kind: 'invalid_response', message: bad ?? 'a row does not match the spec' };
    }
    if (read.kind === 'invalid') return { kind: 'invalid_response', message: read.message };
    return read.kind === 'empty' ? { kind: 'empty' } : { kind: 'ok', value: rows };
  };

  async function post<T>(
    path: string,
    body: unknown,
    readBody: (res: Response) => Promise<WbOutcome<T[]>>,
  ): Promise<WbOutcome<T[]>> {
    const controller = new AbortController();
    let timedOut = false;
    const abort = () => {
      timedOut = true;
      controller.abort();
    };
    const total = setTimeout(abort, requestTimeoutMs);
    const connect = setTimeout(abort, connectTimeoutMs);
    try {
      let res: Response;
      try {
        res = await doFetch(`${base}${path}`, {
          method: 'POST',
          headers: { Authorization: opts.token, 'Content-Type': 'application/json', Accept: 'application/json' },
          body: JSON.stringify(body),
          signal: controller.signal,
        });
      } finally {
        clearTimeout(connect);
      }
      if (res.status === 204) return { kind: 'empty' };
      if (res.status === 429) {
        await res.body?.cancel().catch(() => undefined);
        const retry = header(res, 'X-Ratelimit-Retry') ?? header(res, 'Retry-After');
        return {
          kind: 'rate_limited',
          retryAfterSeconds: retry !== null && retry >= 0 ? retry : 60,
          limit: header(res, 'X-Ratelimit-Limit'),
          remaining: header(res, 'X-Ratelimit-Remaining'),
          resetSeconds: header(res, 'X-Ratelimit-Reset'),
        };
      }
      if (res.status === 401) return { kind: 'unauthorized', message: await errorText(res) };
      if (res.status === 403) return { kind: 'forbidden', message: await errorText(res) };
      if (res.status === 404) return { kind: 'not_found', message: await errorText(res) };
      if (res.status >= 500) return { kind: 'server_error', status: res.status, message: await errorText(res) };
      if (res.status !== 200) return { kind: 'rejected', status: res.status, message: await errorText(res) };
      return await readBody(res);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      return { kind: 'network_error', timeout: timedOut, message: timedOut ? 'timed out' : message };
    } finally {
      clearTimeout(total);
    }
  }

  return {
    listReports: (q) =>
      post(
        LIST_PATH,
        {
          dateFrom: q.dateFrom,
          dateTo: q.dateTo,
          period: q.period ?? 'weekly',
          limit: Math.min(q.limit ?? LIST_LIMIT_MAX, LIST_LIMIT_MAX),
          offset: q.offset ?? 0,
        },
        whole(zodCheck(reportListSchema)),
      ),
    detailedPage: (reportId, q) =>
      post(
        `${DETAILED_PATH}/${encodeURIComponent(String(reportId))}`,
        { rrdId: q.rrdId, limit: Math.min(q.limit ?? DETAILED_LIMIT_MAX, DETAILED_LIMIT_MAX) },
        rowByRow,
      ),
  };
}
