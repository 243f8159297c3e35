/**
 * Typed client of WB's acquiring report (the Finance API, category «Финансы», host finance-api;
 * docs/WB-API.md «Acquiring billed separately»): «Детализации к отчётам об издержках на приём платежей».
 *
 * - `POST /api/finance/v1/acquiring/list` {dateFrom, dateTo, limit, offset}: the acquiring reports of a
 *   period (reportId, dateFrom, dateTo, acquiringFeeSum…): served by the emulator, not needed by the sync.
 * - `POST /api/finance/v1/acquiring/detailed` {dateFrom, dateTo, limit, rrdId}: the rows of every acquiring
 *   report of the period, in pages: the next page starts after the last row's rrdId; 204 when no more.
 *   A row: rrdId, reportId, nmId, srid, docTypeName, saleDate, acqDate, acquiringFee (with VAT, text),
 *   acquiringFeeVat, retailAmount. One call a minute per seller account (WB's published limit).
 *
 * One method per call, one HTTP request, one typed outcome (http.ts). Unknown fields are dropped; amounts may
 * be decimal strings (as WB documents) or numbers; a row without a card, a date or a fee is refused whole.
 */
import { z } from 'zod';
import type { ArticleCost } from '../costs';
import type { FetchLike, WbOutcome } from '../../wb-types';
import { wbRequest, type Check } from '../../http';
import { moneyToKopecks } from '../../money';
import { normalizeText } from '../../../../engine/classify';

export const ACQUIRING_LIST_PATH = '/api/finance/v1/acquiring/list';
export const ACQUIRING_DETAILED_PATH = '/api/finance/v1/acquiring/detailed';
/** Rows asked for per page (WB's default and most is 100 000; a smaller page keeps one answer small). */
export const ACQUIRING_PAGE_ROWS = 10_000;

const moneyText = z.union([
  z.number().finite(),
  z
    .string()
    .trim()
    .regex(/^[+-]?\d+(\.\d+)?$/),
]);
const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}/)
  .transform((s) => s.slice(0, 10));

export const acquiringRowSchema = z.object({
  rrdId: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  reportId: z.number().int().optional(),
  nmId: z.number().int().nonnegative(),
  srid: z.string().optional(),
  docTypeName: z.string().default(''),
  saleDate: day.optional(),
  acqDate: day.optional(),
  acquiringFee: moneyText.transform((v) => moneyToKopecks(v)),
});
export type AcquiringRow = z.output<typeof acquiringRowSchema>;
export const acquiringPageSchema = z.array(acquiringRowSchema);

export interface AcquiringQuery {
  dateFrom: string;
  dateTo: string;
  /** The last row's rrdId of the previous page; 0 for the first. */
  rrdId: number;
  limit?: number;
}

export interface AcquiringClient {
  detailed(query: AcquiringQuery): Promise<WbOutcome<AcquiringRow[]>>;
}

export function createAcquiringClient(opts: { baseUrl: string; token: string; fetch?: FetchLike }): AcquiringClient {
  const check = (json: unknown): Check<AcquiringRow[]> => {
    const parsed = acquiringPageSchema.safeParse(json);
    if (parsed.success) return { success: true, data: parsed.data };
    const issue = parsed.error.issues[0];
    return { success: false, path: issue?.path.join('.') ?? '', message: issue?.message ?? 'unexpected shape' };
  };
  return {
    detailed: (q) =>
      wbRequest(
        opts,
        'POST',
        ACQUIRING_DETAILED_PATH,
        { dateFrom: q.dateFrom, dateTo: q.dateTo, limit: q.limit ?? ACQUIRING_PAGE_ROWS, rrdId: q.rrdId },
        check,
        (rows) => rows.length === 0,
      ),
  };
}

/** A return's acquiring comes back to the seller: it counts against the sale's (docTypeName «Возврат»). */
function signOf(docTypeName: string): 1 | -1 {
  return normalizeText(docTypeName).startsWith('возврат') ? -1 : 1;
}

/**
 * A page's acquiring per day and card (kopecks): the day is the sale's (the row of the weekly report it
 * belongs to), else the acquiring operation's, kept inside the fetched [from, to] (WB answered the row for
 * that period); returns count negative. Rows of card 0 keep no card and stay with the report's remainder.
 */
export function acquiringToCosts(rows: readonly AcquiringRow[], from: string, to: string): ArticleCost[] {
  const byKey = new Map<string, number>();
  for (const r of rows) {
    let date = r.saleDate ?? r.acqDate ?? from;
    if (date < from) date = from;
    if (date > to) date = to;
    const key = `${date}|${r.nmId}`;
    byKey.set(key, (byKey.get(key) ?? 0) + signOf(r.docTypeName) * r.acquiringFee);
  }
  return [...byKey]
    .filter(([, k]) => k !== 0)
    .map(([key, kopecks]) => {
      const [date, nm] = key.split('|') as [string, string];
      return { date, nmId: Number(nm), kopecks };
    });
}
