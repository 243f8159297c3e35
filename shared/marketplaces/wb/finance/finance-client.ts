/**
 * Typed client of WB's Finance API (category «Финансы»; docs/WB-API.md). One method per call, each one
 * HTTP request and one typed outcome: the caller (the sync step, sync-plan.ts) decides what happens next,
 * so nothing here retries or sleeps.
 *
 * The base URL (setting WB_FINANCE_API_URL, settings.ts) and `fetch` are injected: tests and the local
 * emulator (scripts/local/wb-emulator.ts) run it against node:http.
 */
import type { z } from 'zod';
import { readWhole, wbExchange, type Check as CheckOf } from '../http';
import type { FetchLike, WbOutcome } from '../wb-types';
import { readJsonArray } from './json-rows';
import { createPageWriter, type DetailedPage } from './page-body';
import { rowMarks, type RowMark } from './row-marks';
import { rowValueProblem } from './row-values';
import { checkDetailedRow, reportListSchema, type ReportSummary } from './schemas';

export type { FetchLike, WbOutcome } from '../wb-types';

class StopReading extends Error {}

export const LIST_PATH = '/api/finance/v1/sales-reports/list';
export const DETAILED_PATH = '/api/finance/v1/sales-reports/detailed';
export const LIST_LIMIT_MAX = 1000;
export const DETAILED_LIMIT_MAX = 100_000;

type Check<T> = CheckOf<T[]>;

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
  /** One page of a report's rows, checked and kept as sent (page-body.ts). */
  detailedPage(reportId: number, query: DetailedQuery): Promise<WbOutcome<DetailedPage>>;
}

export function createFinanceClient(opts: FinanceClientOptions): FinanceClient {
  const zodCheck =
    <T>(schema: z.ZodType<T[]>) =>
    (json: unknown): Check<T> => {
      const parsed = schema.safeParse(json);
      if (parsed.success) return { success: true, data: parsed.data };
      const issue = parsed.error.issues[0];
      return { success: false, path: issue?.path.join('.') ?? '', message: issue?.message ?? 'unexpected shape' };
    };

  /** The body as one JSON document, checked whole (the report list: small). */
  const whole = <T>(check: (json: unknown) => Check<T>) => readWhole<T[]>(check, (v) => v.length === 0);

  /**
   * A detailed page read as a stream (json-rows.ts), each row checked as it arrives and the rows' text kept
   * as WB sent it, gzip'd (page-body.ts): the page's text (~210 MB for 100 000 rows) is never held whole,
   * nor its rows as objects.
   */
  const rowByRow =
    (reportId: number, afterRrdId: number) =>
    async (res: Response): Promise<WbOutcome<DetailedPage>> => {
      if (!res.body) return { kind: 'empty' };
      const writer = createPageWriter();
      let bad: string | null = null;
      let refused = false;
      let lastRrdId: number | null = null;
      // Rows are unique by WB's rrdId: one at or below the cursor (read on an earlier page) or seen before on
      // this page is dropped and counted, never stored or charged twice; the cursor is the largest rrdId kept
      // (WB's order is not trusted: a page in descending order still moves it forward).
      const seen = new Set<number>();
      let sent = 0;
      let kept = 0;
      const marks = new Set<RowMark>();
      // Rows are checked on one-byte text (json-rows.ts `latin1`): types and money are ASCII, and the text kept
      // is the bytes as sent. A row that fails is checked again on its real text, which decides (and names
      // what WB sent in the message).
      const read = await readJsonArray(
        res.body as unknown as AsyncIterable<Uint8Array>,
        (values, raw, first) => {
          let real: unknown[] | null = null;
          const realText = () => (real ??= JSON.parse(`[${Buffer.from(raw).toString('utf8')}]`) as unknown[]);
          const keep: number[] = [];
          for (let k = 0; k < values.length; k++) {
            sent++;
            let row = checkDetailedRow(values[k], first + k, false);
            if ('success' in row) {
              // The real text decides (money padded with a no-break space passes once trimmed as UTF-8).
              row = checkDetailedRow(realText()[k], first + k, false);
              if ('success' in row) {
                bad = `${row.path}: ${row.message}`;
                throw new StopReading();
              }
            }
            // Values checked before they count (row-values.ts): null money, a negative sale, past the bounds.
            const problem = rowValueProblem(values[k] as Record<string, unknown>, first + k);
            if (problem !== null) {
              bad = problem;
              refused = true;
              throw new StopReading();
            }
            // A row of another report (or none named) is refused: never merged into this one.
            if (typeof row.reportId === 'number' && row.reportId !== reportId) {
              bad = `row ${first + k}: reportId ${row.reportId} is not report ${reportId}`;
              refused = true;
              throw new StopReading();
            }
            const id = row.rrdId;
            if (typeof id === 'number') {
              if (id <= afterRrdId || seen.has(id)) continue;
              seen.add(id);
              if (lastRrdId === null || id > lastRrdId) lastRrdId = id;
            }
            for (const m of rowMarks(values[k] as Record<string, unknown>)) marks.add(m);
            keep.push(k);
          }
          kept += keep.length;
          if (keep.length === values.length) return writer.add(raw);
          if (keep.length === 0) return;
          // A batch with dropped rows: the kept ones as WB sent them (their real text, written again).
          const rows = realText();
          return writer.add(Buffer.from(keep.map((k) => JSON.stringify(rows[k])).join(','), 'utf8'));
        },
        { text: 'latin1' },
      ).catch((e: unknown) => {
        if (e instanceof StopReading) return null;
        throw e;
      });
      const body = await writer.finish();
      if (bad !== null || read === null) {
        await res.body.cancel().catch(() => undefined);
        return {
          kind: 'invalid_response',
          message: bad ?? 'a row does not match the spec',
          ...(refused ? { refused } : {}),
        };
      }
      if (read.kind === 'invalid') return { kind: 'invalid_response', message: read.message };
      if (read.kind === 'empty') return { kind: 'empty' };
      return {
        kind: 'ok',
        value: {
          rows: kept,
          lastRrdId,
          body,
          sent,
          duplicates: sent - kept,
          ...(marks.size ? { marks: [...marks] } : {}),
        },
      };
    };

  const post = <T>(
    path: string,
    body: unknown,
    readBody: (res: Response) => Promise<WbOutcome<T>>,
  ): Promise<WbOutcome<T>> => wbExchange<T>(opts, 'POST', path, body, readBody);
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
        rowByRow(reportId, q.rrdId),
      ),
  };
}
