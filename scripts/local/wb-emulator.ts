/**
 * Local emulator of WB's Finance API (docs/WB-API.md): both report methods with WB's shapes, tokens, and
 * WB's rate limit, for development and tests. Run `npm run wb:emulator` (prints the URL and a demo token),
 * or start it in-process with startWbEmulator() (tests use port 0 and a short interval).
 *
 * - POST /api/finance/v1/sales-reports/list {dateFrom, dateTo, period, limit ≤ 1000, offset}: the weeks
 *   whose period meets [dateFrom, dateTo], oldest first; 204 when none.
 * - POST /api/finance/v1/sales-reports/detailed/{reportId} {rrdId, limit ≤ 100000}: rows with a larger
 *   rrdId, in order; 204 when none; 404 for an unknown report.
 * - Tokens: the ones it issued. Unknown → 401, expired → 401, without «Финансы» → 403.
 * - Rate: one accepted call per interval per seller account (burst 1; default 60 s). An early call gets
 *   429 with X-Ratelimit-Retry / -Limit / -Remaining / -Reset; it does not use up the budget.
 * Weeks come from the fixture generator (scripts/local/wb/weeks.ts); setListSum() alters a week's list
 * figure for a mismatch test; withdrawReport() makes a week vanish from WB's side (404, off the list).
 * - seller-analytics-api's paid-storage and acceptance report tasks (scripts/local/wb/analytics.ts), on the
 *   same port, consistent with the weeks; their limits take WB's minute as `intervalMs`.
 *
 * WB's balance (the Finance host): GET /api/v1/account/balance → {currency, current, for_withdraw} in roubles,
 * per seller account, on the same one-call-a-minute budget as the reports. It moves as the weeks are paid by
 * WB's dated rules (shared/cashflow/payout-calendar.ts): a week's bankPaymentSum is on «current» from the
 * day its report is formed, and «for_withdraw» from its payout day; each account starts from its own opening
 * sum; withdraw() takes money out, setBalance() answers a fixed value; faults as above (`only: 'balance'`).
 *
 * The promotion API (advert-api), from the same weeks (scripts/local/wb/promotion.ts):
 * - GET /adv/v1/promotion/count, GET /api/advert/v2/adverts?ids= (≤ 50), GET /adv/v1/upd?from&to (≤ 31 days),
 *   GET /adv/v3/fullstats?ids= (≤ 50)&beginDate&endDate (≤ 31 days): WB's shapes, amounts in roubles;
 * - a token without «Продвижение» → 403; fullstats one call per `advertIntervalMs` per seller account
 *   (WB: 3 a minute), the other methods 5 a second; early → 429 with X-Ratelimit-Retry.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReportListMoneyField } from '../../shared/marketplaces/wb/finance/finance-fields';
import { kopecksToMoney } from '../../shared/marketplaces/wb/money';
import type { BankPaymentFormula } from '../../shared/marketplaces/wb/finance/report-sums';
import type { WbDetailedRow } from '../../shared/marketplaces/wb/finance/schemas';
import { ANALYTICS_SCOPE, decodeWbToken, FINANCE_SCOPE } from '../../shared/marketplaces/wb/token';
import { createAnalyticsEmulator, type AnalyticsEmulator, type AnalyticsEmulatorOptions } from './wb/analytics';
import { ADVERT_SCOPE } from '../../shared/marketplaces/wb/sources/advert-source';
import {
  ADVERTS_PATH,
  FULLSTATS_PATH,
  PROMOTION_COUNT_PATH,
  UPD_PATH,
} from '../../shared/marketplaces/wb/sources/advert-client';

const ADVERT_ROUTES = new Set([PROMOTION_COUNT_PATH, ADVERTS_PATH, FULLSTATS_PATH, UPD_PATH]);
import { emulatedWeek, type EmulatedWeek } from './wb/weeks';
import { BALANCE_PATH } from '../../shared/marketplaces/wb/balance/client';
import { payoutCalendar } from '../../shared/cashflow/payout-calendar';
import { moneyToKopecks } from '../../shared/marketplaces/wb/money';
import { promotionOf, type Promotion } from './wb/promotion';
import { createAcquiringEmulator, type AcquiringEmulator } from './wb/acquiring';
import { makeEmulatorToken, type EmulatorTokenClaims } from './wb/tokens';

export const LIST_ROUTE = '/api/finance/v1/sales-reports/list';
export const DETAILED_ROUTE = /^\/api\/finance\/v1\/sales-reports\/detailed\/(\d+)$/;

/**
 * Misbehaviours of the detailed pages, for tests of the sync against a faulty WB:
 * - `repeat-across-pages`: each page begins again with the last third of the rows of the page before
 *   (rrdIds at or below the cursor);
 * - `repeat-in-page`: every row twice on its page (a page still holds `limit` rows);
 * - `descending`: each page's rows in descending rrdId order;
 * - `stale`: every page answers the first rows of the report, whatever the cursor (never advances);
 * - `empty-first-204` / `empty-first-array`: the first page (rrdId 0) of a listed report answers 204 / `[]`;
 * - `foreign-report`: the rows carry another report's reportId;
 * - `negative-quantity`: the first sale of the report has quantity −1000;
 * - `null-money`: the first row's forPay («К перечислению») is null.
 */
export type DetailedMode =
  | 'repeat-across-pages'
  | 'repeat-in-page'
  | 'descending'
  | 'stale'
  | 'empty-first-204'
  | 'empty-first-array'
  | 'foreign-report'
  | 'negative-quantity'
  | 'null-money';

/**
 * Misbehaviours of every Finance call with an accepted token (`only`: the list's or the pages' alone):
 * - `status`: that status every time (500 forever, …);
 * - `rate`: 429 with X-Ratelimit-Retry as given (`1e12`, `1e308`, `Infinity`…);
 * - `redirect`: 307 to `to` (another host);
 * - `slow`: the status and headers, then nothing for `ms` before the body;
 * - `truncated`: the body cut in the middle of a row;
 * - `scope`: 401 or 403 with WB's «scope not allowed» text (a token WB does not let read this method);
 * - `body`: 200 with exactly this text (HTML, negative or absurd numbers, another currency, a huge body).
 */
export type WbFault = (
  | { kind: 'status'; status: number }
  | { kind: 'rate'; retry: string }
  | { kind: 'redirect'; to: string }
  | { kind: 'slow'; ms: number }
  | { kind: 'truncated' }
  | { kind: 'scope'; status: 401 | 403 }
  | { kind: 'body'; body: string; contentType?: string }
) & { only?: 'list' | 'detail' | 'balance' };

/** A balance as the emulator answers it, kopecks. */
export interface EmulatedBalance {
  current: number;
  for_withdraw: number;
}

export interface WbEmulatorOptions {
  port?: number;
  host?: string;
  /** Least time between accepted calls per seller account (WB: 60 000). */
  intervalMs?: number;
  /** Least time between accepted fullstats calls per seller account (WB: 20 000, 3 a minute). */
  advertIntervalMs?: number;
  weeks?: number;
  rowsPerWeek?: number;
  seed?: number;
  /** The demo seller's weeks: a season of volumes and a loss-making article (wb/weeks.ts DEMO_PLAN). */
  demo?: boolean;
  /** Monday of the first week (YYYY-MM-DD). Default: the Monday `weeks` weeks before the current one. */
  firstMonday?: string;
  /** bankPaymentSum formula of the list (shared/marketplaces/wb/finance/report-sums.ts). Default `cash`. */
  formula?: BankPaymentFormula;
  /** The emulator's clock (epoch ms): token expiry and the rate limit. */
  now?: () => number;
  sellerId?: number;
  /**
   * The valid token to accept (one made by makeEmulatorToken for `sellerId`): the local stack keeps its
   * demo token between starts, so a connection made yesterday still works today. Default: a new one.
   */
  validToken?: string;
  /** The report tasks' limits and life (scripts/local/wb/analytics.ts). */
  analytics?: Pick<AnalyticsEmulatorOptions, 'limits' | 'statusCallsUntilDone'>;
}

export interface WbEmulator {
  url: string;
  port: number;
  /** `valid` has «Аналитика», «Статистика» and «Финансы»; `promotion` has «Продвижение» too. */
  tokens: { valid: string; promotion: string; noFinance: string; expired: string; invalid: string };
  /**
   * A further token the emulator accepts (a new token of the same seller by default; another `oid` is
   * another WB account). `acc: 1` is a Basic token, which WB's Finance API refuses with 403.
   */
  issue(claims?: Partial<EmulatorTokenClaims>): string;
  /** WB withdraws a token (the seller deleted it in the portal): 401 from now on. */
  revoke(token: string): void;
  weeks: EmulatedWeek[];
  /** The campaigns and their spend per week and day (scripts/local/wb/promotion.ts). */
  promotion: Promotion;
  /** Sets one money figure of a week's list item (kopecks), e.g. bankPaymentSum for a mismatch. */
  setListSum(reportId: number, field: ReportListMoneyField, kopecks: number): void;
  /** WB no longer has a week's report: its detail answers 404 and the list leaves it out from now on. */
  withdrawReport(reportId: number): void;
  /** How the detailed pages misbehave from now on (DetailedMode); null: as WB documents them. */
  setDetailedMode(mode: DetailedMode | null): void;
  /** The balance of a seller account (default: the demo seller's) at the emulator's now, kopecks. */
  balanceOf(sellerId?: number): EmulatedBalance;
  /** The seller withdraws money (kopecks) from «Можно вывести» now. */
  withdraw(kopecks: number, sellerId?: number): void;
  /** A fixed answer for an account's balance from now on (kopecks); null: computed from the weeks again. */
  setBalance(value: EmulatedBalance | null, sellerId?: number): void;
  /** How every Finance call misbehaves from now on (WbFault); null: as WB does. */
  setFault(fault: WbFault | null): void;
  /** Every request answered: path and status. */
  calls: Array<{ path: string; status: number }>;
  /** The same requests with when each was answered (the emulator's clock, epoch ms): the sync's timing. */
  timeline: Array<{ path: string; at: number }>;
  /** The paid-storage and acceptance reports: their data per week, task controls. */
  analytics: AnalyticsEmulator;
  /** The acquiring report of the weeks' rows billed separately, its faults (scripts/local/wb/acquiring.ts). */
  acquiring: AcquiringEmulator;
  close(): Promise<void>;
}

function mondayBefore(nowMs: number, weeks: number): string {
  const d = new Date(nowMs);
  const dow = (d.getUTCDay() + 6) % 7; // Monday 0
  const monday = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - dow * 86_400_000;
  return new Date(monday - weeks * 7 * 86_400_000).toISOString().slice(0, 10);
}

function errorBody(status: number, title: string, detail: string) {
  return {
    title,
    detail,
    code: `emulator-${status}`,
    requestId: Math.random().toString(16).slice(2),
    origin: 'finance-api',
    status,
    statusText: http.STATUS_CODES[status] ?? '',
    timestamp: new Date().toISOString(),
  };
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text.trim() === '' ? {} : (JSON.parse(text) as unknown);
}

/**
 * Seconds for X-Ratelimit-*: whole seconds rounded up, as WB sends them; with an interval under a second
 * (tests) a fraction, so a client waits the emulator's interval and not a whole second.
 */
function retrySeconds(ms: number, intervalMs: number): string {
  return intervalMs >= 1000 ? String(Math.ceil(ms / 1000)) : (Math.ceil(ms) / 1000).toFixed(3);
}

export async function startWbEmulator(opts: WbEmulatorOptions = {}): Promise<WbEmulator> {
  const now = opts.now ?? (() => Date.now());
  const intervalMs = opts.intervalMs ?? 60_000;
  const sellerId = opts.sellerId ?? 4242001;
  const weekCount = opts.weeks ?? 3;
  const firstMonday = opts.firstMonday ?? mondayBefore(now(), weekCount);
  const weeks = Array.from({ length: weekCount }, (_, index) =>
    emulatedWeek({
      index,
      rows: opts.rowsPerWeek ?? 800,
      seed: opts.seed ?? 1,
      firstMonday,
      formula: opts.formula,
      demo: opts.demo,
    }),
  );
  const byId = new Map(weeks.map((w) => [w.item.reportId, w]));
  const exp = Math.floor(now() / 1000) + 180 * 86_400;
  const tokens = {
    valid:
      opts.validToken ??
      makeEmulatorToken({ oid: sellerId, scopes: [ANALYTICS_SCOPE, 'Статистика', FINANCE_SCOPE], exp }),
    noFinance: makeEmulatorToken({ oid: sellerId, scopes: ['Контент', 'Статистика'], exp }),
    expired: makeEmulatorToken({ oid: sellerId, scopes: [FINANCE_SCOPE], exp: Math.floor(now() / 1000) - 60 }),
    invalid: makeEmulatorToken({ oid: sellerId, scopes: [FINANCE_SCOPE], exp }).replace(/.{8}$/, 'AAAAAAAA'),
  };
  const tokensAll = {
    ...tokens,
    promotion: makeEmulatorToken({
      oid: sellerId,
      scopes: [ANALYTICS_SCOPE, 'Статистика', ADVERT_SCOPE, FINANCE_SCOPE],
      exp,
    }),
  };
  const issued = new Set([tokens.valid, tokens.noFinance, tokens.expired, tokensAll.promotion]);
  const analytics = createAnalyticsEmulator({
    weeks,
    now,
    issued: (t) => issued.has(t),
    minuteMs: intervalMs,
    seed: opts.seed,
    ...opts.analytics,
  });
  const promotion = promotionOf(weeks);
  const acquiring = createAcquiringEmulator({
    weeks,
    now,
    issued: (t) => issued.has(t),
    minuteMs: intervalMs,
    formula: opts.formula,
  });
  const advertIntervalMs = opts.advertIntervalMs ?? 20_000;
  const lastAccepted = new Map<string, number>();
  const calls: WbEmulator['calls'] = [];
  const timeline: WbEmulator['timeline'] = [];
  let detailedMode: DetailedMode | null = null;
  let fault: WbFault | null = null;
  const withdrawn = new Map<string, number>();
  const fixedBalance = new Map<string, EmulatedBalance>();

  /** An account's opening «Можно вывести» (kopecks): its own, so two accounts never answer the same. */
  const openingOf = (account: string) => 100_000_00 + (Number(account) % 1000) * 1_001;

  function balanceOf(account: string): EmulatedBalance {
    const fixed = fixedBalance.get(account);
    if (fixed) return fixed;
    const today = new Date(now()).toISOString().slice(0, 10);
    let paid = 0;
    let held = 0;
    for (const w of weeks) {
      if (!byId.has(w.item.reportId)) continue;
      const amount = moneyToKopecks(w.item.bankPaymentSum);
      const [p] = payoutCalendar(
        [
          {
            report_id: String(w.item.reportId),
            wb_report_id: String(w.item.reportId),
            period_from: w.item.dateFrom.slice(0, 10),
            period_to: w.item.dateTo.slice(0, 10),
            amount,
          },
        ],
        { today, balances: [] },
      );
      if (today >= p!.expected_date) paid += amount;
      else if (today >= p!.formed_date) held += amount;
    }
    // A week WB's charges outweigh is taken from the balance; «Можно вывести» never goes below zero.
    const balance = openingOf(account) + paid - (withdrawn.get(account) ?? 0);
    return { current: balance + held, for_withdraw: Math.max(0, balance) };
  }
  const balanceBody = (account: string) => {
    const b = balanceOf(account);
    return { currency: 'RUB', current: b.current / 100, for_withdraw: b.for_withdraw / 100 };
  };

  function send(
    res: http.ServerResponse,
    path: string,
    status: number,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    calls.push({ path, status });
    timeline.push({ path, at: now() });
    const text = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, { ...(text ? { 'Content-Type': 'application/json; charset=utf-8' } : {}), ...headers });
    res.end(text);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const path = (req.url ?? '/').split('?')[0]!;
    if (analytics.handles(req.method ?? '', path)) {
      return analytics.handle(req, path, (status, body, headers) => send(res, path, status, body, headers));
    }
    if (req.method === 'GET' && ADVERT_ROUTES.has(path)) return handleAdvert(req, res, path);
    if (acquiring.handles(req.method ?? '', path))
      return acquiring.handle(req, path, (status, body, headers) => send(res, path, status, body, headers));
    const detail = DETAILED_ROUTE.exec(path);
    const balance = req.method === 'GET' && path === BALANCE_PATH;
    if (!balance && (req.method !== 'POST' || (path !== LIST_ROUTE && !detail))) {
      return send(res, path, 404, errorBody(404, 'not found', 'no such method'));
    }
    const route = balance ? 'balance' : detail ? 'detail' : 'list';
    const auth = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '').trim();
    if (!issued.has(auth)) return send(res, path, 401, errorBody(401, 'unauthorized', 'token is malformed or invalid'));
    const info = decodeWbToken(auth);
    if (info.exp * 1000 <= now()) return send(res, path, 401, errorBody(401, 'unauthorized', 'token expired'));
    if (!info.scopes.includes(FINANCE_SCOPE))
      return send(res, path, 403, errorBody(403, 'forbidden', 'scope is not allowed'));
    if (info.tokenType === 'Базовый')
      return send(res, path, 403, errorBody(403, 'forbidden', 'basic token is not allowed for this method'));
    if (fault && (!fault.only || fault.only === route)) {
      const f = fault;
      switch (f.kind) {
        case 'status':
          return send(res, path, f.status, errorBody(f.status, 'emulated', 'an emulated failure'));
        case 'rate':
          return send(res, path, 429, errorBody(429, 'too many requests', 'limited by finance-api'), {
            'X-Ratelimit-Retry': f.retry,
          });
        case 'redirect':
          return send(res, path, 307, undefined, { Location: `${f.to}${path}` });
        case 'slow':
          calls.push({ path, status: 200 });
          timeline.push({ path, at: now() });
          res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
          res.write('[');
          setTimeout(() => res.end(']'), f.ms).unref();
          return;
        case 'scope':
          return send(
            res,
            path,
            f.status,
            errorBody(f.status, 'unauthorized', 'token scope not allowed for this method'),
          );
        case 'body':
          calls.push({ path, status: 200 });
          timeline.push({ path, at: now() });
          res.writeHead(200, { 'Content-Type': f.contentType ?? 'application/json; charset=utf-8' });
          res.end(f.body);
          return;
        case 'truncated': {
          calls.push({ path, status: 200 });
          timeline.push({ path, at: now() });
          const rows = balance
            ? [balanceBody(info.sellerId ?? '')]
            : detail
              ? (byId.get(Number(detail[1]))?.rows.slice(0, 3) ?? [])
              : weeks.map((w) => w.item);
          const text = JSON.stringify(rows);
          res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
          res.end(text.slice(0, Math.floor(text.length / 2)));
          return;
        }
      }
    }
    const account = info.sellerId ?? '';
    const t = now();
    const last = lastAccepted.get(account);
    if (last !== undefined && t - last < intervalMs) {
      const wait = last + intervalMs - t;
      return send(res, path, 429, errorBody(429, 'too many requests', 'limited by finance-api'), {
        'X-Ratelimit-Retry': retrySeconds(wait, intervalMs),
        'X-Ratelimit-Limit': '1',
        'X-Ratelimit-Remaining': '0',
        'X-Ratelimit-Reset': retrySeconds(wait, intervalMs),
      });
    }
    if (balance) {
      lastAccepted.set(account, t);
      return send(res, path, 200, balanceBody(account), {
        'X-Ratelimit-Limit': '1',
        'X-Ratelimit-Remaining': '0',
        'X-Ratelimit-Reset': retrySeconds(intervalMs, intervalMs),
      });
    }
    let body: Record<string, unknown>;
    try {
      const parsed = await readBody(req);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      body = parsed as Record<string, unknown>;
    } catch {
      return send(res, path, 400, errorBody(400, 'bad request', 'could not decode the body'));
    }
    lastAccepted.set(account, t);
    const rateHeaders = {
      'X-Ratelimit-Limit': '1',
      'X-Ratelimit-Remaining': '0',
      'X-Ratelimit-Reset': retrySeconds(intervalMs, intervalMs),
    };
    if (detail) {
      const week = byId.get(Number(detail[1]));
      if (!week) return send(res, path, 404, errorBody(404, 'not found', 'report not found'), rateHeaders);
      const limit = body.limit === undefined ? 100_000 : Number(body.limit);
      const rrdId = body.rrdId === undefined ? 0 : Number(body.rrdId);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100_000 || !Number.isInteger(rrdId) || rrdId < 0) {
        return send(res, path, 400, errorBody(400, 'bad request', 'limit must be 1…100000, rrdId ≥ 0'), rateHeaders);
      }
      const next = week.rows.findIndex((row) => (row.rrdId ?? 0) > rrdId);
      let from = next < 0 ? week.rows.length : next;
      if (detailedMode === 'stale') from = 0;
      if (detailedMode === 'repeat-across-pages' && from > 0) from = Math.max(0, from - Math.ceil(limit / 3));
      let page: WbDetailedRow[] = week.rows.slice(from, from + limit);
      if (detailedMode === 'repeat-in-page') {
        page = week.rows
          .slice(from, from + Math.ceil(limit / 2))
          .flatMap((row) => [row, row])
          .slice(0, limit);
      }
      if (detailedMode === 'descending') page = [...page].reverse();
      if ((detailedMode === 'empty-first-204' || detailedMode === 'empty-first-array') && rrdId === 0) page = [];
      if (detailedMode === 'empty-first-array' && page.length === 0) return send(res, path, 200, [], rateHeaders);
      if (detailedMode === 'foreign-report') page = page.map((row) => ({ ...row, reportId: (row.reportId ?? 0) + 1 }));
      if (detailedMode === 'negative-quantity') {
        const sale = week.rows.find((row) => row.docTypeName === 'Продажа' && (row.quantity ?? 0) > 0);
        page = page.map((row) => (row === sale ? { ...row, quantity: -1000 } : row));
      }
      if (detailedMode === 'null-money' && from === 0) {
        page = page.map((row, i) => (i === 0 ? ({ ...row, forPay: null } as unknown as WbDetailedRow) : row));
      }
      return page.length === 0 ? send(res, path, 204, undefined, rateHeaders) : send(res, path, 200, page, rateHeaders);
    }
    const dateFrom = typeof body.dateFrom === 'string' ? body.dateFrom.slice(0, 10) : '';
    const dateTo = typeof body.dateTo === 'string' ? body.dateTo.slice(0, 10) : '';
    const limit = body.limit === undefined ? 1000 : Number(body.limit);
    const offset = body.offset === undefined ? 0 : Number(body.offset);
    const period = body.period ?? 'weekly';
    if (!/^\d{4}-\d{2}-\d{2}$/.test(dateFrom) || !/^\d{4}-\d{2}-\d{2}$/.test(dateTo) || dateFrom > dateTo) {
      return send(
        res,
        path,
        400,
        errorBody(400, 'bad request', 'dateFrom and dateTo are required, dateFrom ≤ dateTo'),
        rateHeaders,
      );
    }
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000 || !Number.isInteger(offset) || offset < 0) {
      return send(res, path, 400, errorBody(400, 'bad request', 'limit must be 1…1000, offset ≥ 0'), rateHeaders);
    }
    if (period !== 'weekly' && period !== 'daily') {
      return send(res, path, 400, errorBody(400, 'bad request', 'period must be weekly or daily'), rateHeaders);
    }
    const items =
      period === 'daily'
        ? []
        : weeks
            .filter((w) => byId.has(w.item.reportId) && w.item.dateFrom <= dateTo && w.item.dateTo >= dateFrom)
            .slice(offset, offset + limit)
            .map((w) => w.item);
    return items.length === 0 ? send(res, path, 204, undefined, rateHeaders) : send(res, path, 200, items, rateHeaders);
  }

  /** The promotion API (see the module comment). */
  function handleAdvert(req: http.IncomingMessage, res: http.ServerResponse, path: string) {
    const query = new URL(req.url ?? '/', 'http://emulator').searchParams;
    const auth = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '').trim();
    if (!issued.has(auth)) return send(res, path, 401, errorBody(401, 'unauthorized', 'token is malformed or invalid'));
    const info = decodeWbToken(auth);
    if (info.exp * 1000 <= now()) return send(res, path, 401, errorBody(401, 'unauthorized', 'token expired'));
    if (!info.scopes.includes(ADVERT_SCOPE))
      return send(res, path, 403, errorBody(403, 'forbidden', 'scope is not allowed'));
    const slow = path === FULLSTATS_PATH;
    const key = `${info.sellerId ?? ''}#${slow ? 'fullstats' : 'advert'}`;
    const interval = slow ? advertIntervalMs : Math.min(advertIntervalMs, 200);
    const t = now();
    const last = lastAccepted.get(key);
    if (last !== undefined && t - last < interval) {
      const wait = last + interval - t;
      return send(res, path, 429, errorBody(429, 'too many requests', 'limited by advert-api'), {
        'X-Ratelimit-Retry': retrySeconds(wait, interval),
        'X-Ratelimit-Limit': '1',
        'X-Ratelimit-Remaining': '0',
        'X-Ratelimit-Reset': retrySeconds(wait, interval),
      });
    }
    lastAccepted.set(key, t);
    const rub = (k: number) => k / 100;
    const ids = (query.get('ids') ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== '')
      .map(Number);
    const dateOk = (d: string | null): d is string => d !== null && /^\d{4}-\d{2}-\d{2}$/.test(d);
    const span = (a: string, b: string) => Math.round((Date.parse(b) - Date.parse(a)) / 86_400_000) + 1;
    if (path === PROMOTION_COUNT_PATH) {
      const groups = new Map<
        string,
        { type: number; status: number; advert_list: Array<{ advertId: number; changeTime: string }> }
      >();
      for (const c of promotion.campaigns) {
        const k = `${c.type}#${c.status}`;
        const g = groups.get(k) ?? { type: c.type, status: c.status, advert_list: [] };
        g.advert_list.push({ advertId: c.advertId, changeTime: c.changeTime });
        groups.set(k, g);
      }
      const adverts = [...groups.values()].map((g) => ({ ...g, count: g.advert_list.length }));
      return send(res, path, 200, { adverts, all: promotion.campaigns.length });
    }
    if (path === ADVERTS_PATH) {
      if (ids.length === 0 || ids.length > 50 || ids.some((i) => !Number.isInteger(i)))
        return send(res, path, 400, errorBody(400, 'bad request', 'ids: 1…50 campaign ids'));
      const adverts = promotion.campaigns
        .filter((c) => ids.includes(c.advertId))
        .map((c) => ({
          id: c.advertId,
          status: c.status,
          bid_type: 'unified',
          settings: { name: c.name, payment_type: 'cpm' },
          nm_settings: c.nms.map((nm_id) => ({ nm_id })),
          timestamps: { created: c.changeTime, updated: c.changeTime, started: c.changeTime },
        }));
      return send(res, path, 200, { adverts });
    }
    if (path === UPD_PATH) {
      const from = query.get('from');
      const to = query.get('to');
      if (!dateOk(from) || !dateOk(to) || from > to || span(from, to) > 31)
        return send(res, path, 400, errorBody(400, 'bad request', 'from ≤ to, at most 31 days'));
      const charges: unknown[] = [];
      let updNum = 1;
      for (const c of promotion.campaigns)
        for (const [date, cards] of promotion.daily.get(c.advertId) ?? []) {
          if (date < from || date > to) continue;
          const sum = cards.reduce((s, x) => s + x.sum, 0);
          if (sum === 0) continue;
          charges.push({
            updNum: updNum++,
            updTime: `${date}T23:00:00+03:00`,
            updSum: rub(sum),
            advertId: c.advertId,
            campName: c.name,
            advertType: c.type,
            paymentType: c.paymentType,
            advertStatus: c.status,
          });
        }
      return send(res, path, 200, charges);
    }
    // fullstats
    const begin = query.get('beginDate');
    const end = query.get('endDate');
    if (ids.length === 0 || ids.length > 50 || ids.some((i) => !Number.isInteger(i)))
      return send(res, path, 400, errorBody(400, 'bad request', 'ids: 1…50 campaign ids'));
    if (!dateOk(begin) || !dateOk(end) || begin > end || span(begin, end) > 31)
      return send(res, path, 400, errorBody(400, 'bad request', 'beginDate ≤ endDate, at most 31 days'));
    const answer: unknown[] = [];
    for (const id of ids) {
      const byDay = promotion.daily.get(id);
      if (!byDay) continue;
      const days = [...byDay]
        .filter(([date]) => date >= begin && date <= end)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([date, cards]) => ({
          date: `${date}T00:00:00Z`,
          sum: rub(cards.reduce((s, c) => s + c.sum, 0)),
          apps: [
            {
              appType: 1,
              nms: cards.map((c) => ({
                nmId: c.nmId,
                name: `Товар ${c.nmId}`,
                sum: rub(c.sum),
                sum_price: rub(c.sum_price),
              })),
            },
          ],
        }));
      if (days.length === 0) continue;
      answer.push({ advertId: id, sum: rub(days.reduce((s, d) => s + Math.round(d.sum * 100), 0)), days });
    }
    return send(res, path, 200, answer);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) send(res, req.url ?? '', 500, errorBody(500, 'internal', String(e)));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
    port,
    tokens: tokensAll,
    issue(claims = {}) {
      const token = makeEmulatorToken({ oid: sellerId, scopes: ['Статистика', FINANCE_SCOPE], exp, ...claims });
      issued.add(token);
      return token;
    },
    revoke(token) {
      issued.delete(token);
    },
    weeks,
    promotion,
    calls,
    timeline,
    analytics,
    acquiring,
    setListSum(reportId, field, kopecks) {
      const week = byId.get(reportId);
      if (!week) throw new Error(`no week ${reportId}`);
      week.item[field] = kopecksToMoney(kopecks);
    },
    withdrawReport(reportId) {
      if (!byId.delete(reportId)) throw new Error(`no week ${reportId}`);
    },
    balanceOf: (id = sellerId) => balanceOf(String(id)),
    withdraw(kopecks, id = sellerId) {
      withdrawn.set(String(id), (withdrawn.get(String(id)) ?? 0) + kopecks);
    },
    setBalance(value, id = sellerId) {
      if (value) fixedBalance.set(String(id), value);
      else fixedBalance.delete(String(id));
    },
    setDetailedMode(mode) {
      detailedMode = mode;
    },
    setFault(f) {
      fault = f;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}

if (require.main === module) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const port = Number(arg('port') ?? process.env.WB_EMULATOR_PORT ?? 8787);
  const intervalMs = Number(arg('interval-ms') ?? 60_000);
  startWbEmulator({ port, intervalMs, weeks: Number(arg('weeks') ?? 3), rowsPerWeek: Number(arg('rows') ?? 800) }).then(
    (emu) => {
      console.log(`WB Finance API emulator on ${emu.url} (1 call per ${intervalMs / 1000} s per seller)`);
      console.log(`WB_FINANCE_API_URL=${emu.url}`);
      console.log(`WB_ANALYTICS_API_URL=${emu.url}   (paid storage, acceptance)`);
      const b = emu.balanceOf();
      console.log(
        `balance (GET /api/v1/account/balance): «На балансе» ${b.current / 100}, «Можно вывести» ${b.for_withdraw / 100} ₽`,
      );
      console.log(`demo token («Аналитика», «Статистика», «Финансы», 180 days):\n${emu.tokens.valid}`);
      console.log(`token without «Финансы» (403):\n${emu.tokens.noFinance}`);
      console.log(`expired token (401):\n${emu.tokens.expired}`);
      for (const w of emu.weeks)
        console.log(
          `report ${w.item.reportId}: ${w.item.dateFrom}…${w.item.dateTo}, ${w.rows.length} rows, «Итого к оплате» ${w.item.bankPaymentSum}`,
        );
    },
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
