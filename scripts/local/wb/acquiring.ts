/**
 * The emulator's acquiring report (WB's Finance API, «Детализации к отчётам об издержках на приём
 * платежей»; docs/WB-API.md «Acquiring billed separately»), served by scripts/local/wb-emulator.ts on the
 * Finance API's port, from the same demo weeks:
 *
 * - POST /api/finance/v1/acquiring/list {dateFrom, dateTo} → an acquiring report per week whose rows bill
 *   acquiring separately (reportId 800000000 + the week's index, its sums);
 * - POST /api/finance/v1/acquiring/detailed {dateFrom, dateTo, limit, rrdId} → the rows of those reports
 *   with a sale day in the period and an rrdId after the given one, in rrdId order, `limit` at most; 204
 *   when there are none. A row per sale or return of a week's row paid «Комиссия за организацию платежа с
 *   НДС»: its card, srid, dates and acquiring_fee (money as text, as WB documents it);
 * - tokens: the emulator's own (401 for others or expired ones), «Финансы» required (403); one call a minute
 *   per seller account (the emulator's interval), a 429 with X-Ratelimit-Retry over it;
 * - faults on demand (`setFault`): a status, a 429, an answer that is not the spec's (`garbage`).
 *
 * The demo weeks keep acquiring inside for_pay («Компенсация платёжных услуг»); `billSeparately` turns a
 * share of a week's sale rows into «Комиссия за организацию платежа с НДС» rows (for_pay without the
 * acquiring, the list's sums recomputed), so a test or the demo has such a week.
 */
import type http from 'node:http';
import { normalizeText } from '../../../shared/engine/classify';
import { kopecksToMoney, moneyToKopecks } from '../../../shared/marketplaces/wb/money';
import { reportSumsFromRows, type BankPaymentFormula } from '../../../shared/marketplaces/wb/finance/report-sums';
import type { WbDetailedRow } from '../../../shared/marketplaces/wb/finance/schemas';
import {
  ACQUIRING_DETAILED_PATH,
  ACQUIRING_LIST_PATH,
} from '../../../shared/marketplaces/wb/sources/acquiring/acquiring-client';
import { FINANCE_SCOPE, decodeWbToken } from '../../../shared/marketplaces/wb/token';
import type { EmulatedWeek } from './weeks';

export const BILLED_SEPARATELY = 'Комиссия за организацию платежа с НДС';

/** An acquiring row as WB sends it (AcquiringReportsDetailedRes). */
export interface AcquiringWireRow {
  rrdId: number;
  reportId: number;
  acqDate: string;
  acquiringBank: string;
  acquiringFee: string;
  acquiringFeeVat: string;
  currency: string;
  docTypeName: string;
  invoiceDate: string;
  invoiceNumber: string;
  nmId: number;
  retailAmount: string;
  saleDate: string;
  shkId: number;
  srid: string;
  taxRegistrationReasonCode: string;
  tin: string;
}

export type AcquiringFault = { kind: 'status'; status: number } | { kind: 'rate'; retry: string } | { kind: 'garbage' };

export interface AcquiringEmulatorOptions {
  weeks: EmulatedWeek[];
  now: () => number;
  issued: (token: string) => boolean;
  /** WB's minute (the Finance API's interval in the emulator). */
  minuteMs: number;
  formula?: BankPaymentFormula;
}

export interface AcquiringEmulator {
  handles(method: string, path: string): boolean;
  handle(
    req: http.IncomingMessage,
    path: string,
    send: (status: number, body?: unknown, headers?: Record<string, string>) => void,
  ): Promise<void>;
  /** Every acquiring row of the weeks (what the detailed method answers from). */
  rows(): AcquiringWireRow[];
  /**
   * Makes every `every`-th sale or return row of the week «Комиссия за организацию платежа с НДС»
   * (for_pay + acquiring_fee) and recomputes the week's list sums; returns how many rows changed.
   */
  billSeparately(reportId: number, every?: number): number;
  setFault(fault: AcquiringFault | null): void;
}

const isSaleOrReturn = (r: WbDetailedRow) => ['продажа', 'возврат'].includes(normalizeText(r.docTypeName ?? ''));
const billedApart = (r: WbDetailedRow) => normalizeText(r.paymentProcessing ?? '').includes('организацию платежа');
const kop = (v: unknown) => (v === undefined || v === null || v === '' ? 0 : moneyToKopecks(v as string | number));

function errorBody(status: number, title: string) {
  return { title, detail: title, status, origin: 'finance-api', requestId: 'emulator' };
}

export function createAcquiringEmulator(opts: AcquiringEmulatorOptions): AcquiringEmulator {
  let fault: AcquiringFault | null = null;
  const lastAccepted = new Map<string, number>();

  function rows(): AcquiringWireRow[] {
    const out: AcquiringWireRow[] = [];
    opts.weeks.forEach((w, index) => {
      for (const r of w.rows) {
        if (!isSaleOrReturn(r) || !billedApart(r) || kop(r.acquiringFee) === 0) continue;
        const fee = kop(r.acquiringFee);
        const sale = String(r.saleDt ?? w.item.dateFrom).slice(0, 10);
        out.push({
          // Its own numbering: the acquiring report's rows are not the sales report's.
          rrdId: 500_000_000 + (r.rrdId ?? 0),
          reportId: 800_000_000 + index,
          acqDate: `${sale}T12:00:00`,
          acquiringBank: r.acquiringBank ?? 'Сбербанк России',
          acquiringFee: kopecksToMoney(fee),
          acquiringFeeVat: kopecksToMoney(Math.round((fee * 22) / 122)),
          currency: 'RUB',
          docTypeName: r.docTypeName ?? 'Продажа',
          invoiceDate: w.item.dateTo,
          invoiceNumber: `ЭКВ-${800_000_000 + index}`,
          nmId: Number(r.nmId ?? 0),
          retailAmount: kopecksToMoney(kop(r.retailAmount)),
          saleDate: `${sale}T00:00:00`,
          shkId: Number(r.shkId ?? 0),
          srid: r.srid ?? '',
          taxRegistrationReasonCode: '',
          tin: '',
        });
      }
    });
    return out.sort((a, b) => a.rrdId - b.rrdId);
  }

  function billSeparately(reportId: number, every = 2): number {
    const w = opts.weeks.find((x) => x.item.reportId === reportId);
    if (!w) return 0;
    let n = 0;
    let seen = 0;
    for (const r of w.rows) {
      if (!isSaleOrReturn(r) || kop(r.acquiringFee) === 0 || billedApart(r)) continue;
      if (seen++ % every !== 0) continue;
      r.paymentProcessing = BILLED_SEPARATELY;
      r.forPay = kopecksToMoney(kop(r.forPay) + kop(r.acquiringFee)) as WbDetailedRow['forPay'];
      n++;
    }
    const s = reportSumsFromRows(w.rows, opts.formula ?? 'audit');
    w.item.forPaySum = kopecksToMoney(s.forPaySum);
    w.item.bankPaymentSum = kopecksToMoney(s.bankPaymentSum);
    return n;
  }

  async function readBody(req: http.IncomingMessage): Promise<Record<string, unknown> | null> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      const v = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as unknown;
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  }

  return {
    handles: (method, path) => method === 'POST' && (path === ACQUIRING_LIST_PATH || path === ACQUIRING_DETAILED_PATH),
    rows,
    billSeparately,
    setFault: (f) => {
      fault = f;
    },
    async handle(req, path, send) {
      const auth = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '').trim();
      if (!opts.issued(auth)) return send(401, errorBody(401, 'token is malformed or invalid'));
      const info = decodeWbToken(auth);
      if (info.exp * 1000 <= opts.now()) return send(401, errorBody(401, 'token expired'));
      if (!info.scopes.includes(FINANCE_SCOPE)) return send(403, errorBody(403, 'scope is not allowed'));
      if (fault?.kind === 'status') return send(fault.status, errorBody(fault.status, 'an emulated failure'));
      if (fault?.kind === 'rate')
        return send(429, errorBody(429, 'too many requests'), { 'X-Ratelimit-Retry': fault.retry });
      const account = `${info.sellerId ?? ''}#${path}`;
      const t = opts.now();
      const last = lastAccepted.get(account);
      if (last !== undefined && t - last < opts.minuteMs) {
        const wait = last + opts.minuteMs - t;
        const secs = opts.minuteMs >= 1000 ? String(Math.ceil(wait / 1000)) : (wait / 1000).toFixed(3);
        return send(429, errorBody(429, 'too many requests'), { 'X-Ratelimit-Retry': secs });
      }
      const body = await readBody(req);
      const from = typeof body?.dateFrom === 'string' ? body.dateFrom.slice(0, 10) : '';
      const to = typeof body?.dateTo === 'string' ? body.dateTo.slice(0, 10) : '';
      if (!body || !/^\d{4}-\d{2}-\d{2}$/.test(from) || !/^\d{4}-\d{2}-\d{2}$/.test(to) || from > to)
        return send(400, errorBody(400, 'dateFrom and dateTo are required'));
      lastAccepted.set(account, t);
      if (fault?.kind === 'garbage') return send(200, [{ rrdId: 'x', nmId: null, acquiringFee: 'сто' }]);
      const inPeriod = rows().filter((r) => r.saleDate.slice(0, 10) >= from && r.saleDate.slice(0, 10) <= to);
      if (path === ACQUIRING_LIST_PATH) {
        const byReport = new Map<number, AcquiringWireRow[]>();
        for (const r of inPeriod) byReport.set(r.reportId, [...(byReport.get(r.reportId) ?? []), r]);
        const list = [...byReport].map(([reportId, rs]) => {
          const w = opts.weeks[reportId - 800_000_000]!;
          const sum = (f: (r: AcquiringWireRow) => string) => kopecksToMoney(rs.reduce((s, r) => s + kop(f(r)), 0));
          return {
            reportId,
            sellerFinanceName: w.item.sellerFinanceName,
            dateFrom: w.item.dateFrom,
            dateTo: w.item.dateTo,
            createDate: w.item.createDate,
            currency: 'RUB',
            acquiringFeeSum: sum((r) => r.acquiringFee),
            acquiringFeeVatSum: sum((r) => r.acquiringFeeVat),
          };
        });
        return list.length === 0 ? send(204) : send(200, list);
      }
      const limit = body.limit === undefined ? 100_000 : Number(body.limit);
      const after = body.rrdId === undefined ? 0 : Number(body.rrdId);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100_000 || !Number.isInteger(after) || after < 0)
        return send(400, errorBody(400, 'limit must be 1…100000, rrdId ≥ 0'));
      const page = inPeriod.filter((r) => r.rrdId > after).slice(0, limit);
      return page.length === 0 ? send(204) : send(200, page);
    },
  };
}
