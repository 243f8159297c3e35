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
 * figure for a mismatch test.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReportListMoneyField } from '../../shared/wb/fields';
import { kopecksToMoney } from '../../shared/wb/money';
import type { BankPaymentFormula } from '../../shared/wb/report-sums';
import type { WbDetailedRow } from '../../shared/wb/schemas';
import { decodeWbToken, FINANCE_SCOPE } from '../../shared/wb/token';
import { emulatedWeek, type EmulatedWeek } from './wb/weeks';
import { makeEmulatorToken, type EmulatorTokenClaims } from './wb/tokens';

export const LIST_ROUTE = '/api/finance/v1/sales-reports/list';
export const DETAILED_ROUTE = /^\/api\/finance\/v1\/sales-reports\/detailed\/(\d+)$/;

export interface WbEmulatorOptions {
  port?: number;
  host?: string;
  /** Least time between accepted calls per seller account (WB: 60 000). */
  intervalMs?: number;
  weeks?: number;
  rowsPerWeek?: number;
  seed?: number;
  /** Monday of the first week (YYYY-MM-DD). Default: the Monday `weeks` weeks before the current one. */
  firstMonday?: string;
  /** bankPaymentSum formula of the list (shared/wb/report-sums.ts). Default `cash`. */
  formula?: BankPaymentFormula;
  /** The emulator's clock (epoch ms): token expiry and the rate limit. */
  now?: () => number;
  sellerId?: number;
  /**
   * The valid token to accept (one made by makeEmulatorToken for `sellerId`): the local stack keeps its
   * demo token between starts, so a connection made yesterday still works today. Default: a new one.
   */
  validToken?: string;
}

export interface WbEmulator {
  url: string;
  port: number;
  tokens: { valid: string; noFinance: string; expired: string; invalid: string };
  /**
   * A further token the emulator accepts (a new token of the same seller by default; another `oid` is
   * another WB account). `acc: 1` is a Basic token, which WB's Finance API refuses with 403.
   */
  issue(claims?: Partial<EmulatorTokenClaims>): string;
  /** WB withdraws a token (the seller deleted it in the portal): 401 from now on. */
  revoke(token: string): void;
  weeks: EmulatedWeek[];
  /** Sets one money figure of a week's list item (kopecks), e.g. bankPaymentSum for a mismatch. */
  setListSum(reportId: number, field: ReportListMoneyField, kopecks: number): void;
  /** Every request answered: path and status. */
  calls: Array<{ path: string; status: number }>;
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
    emulatedWeek({ index, rows: opts.rowsPerWeek ?? 800, seed: opts.seed ?? 1, firstMonday, formula: opts.formula }),
  );
  const byId = new Map(weeks.map((w) => [w.item.reportId, w]));
  const exp = Math.floor(now() / 1000) + 180 * 86_400;
  const tokens = {
    valid: opts.validToken ?? makeEmulatorToken({ oid: sellerId, scopes: ['Статистика', FINANCE_SCOPE], exp }),
    noFinance: makeEmulatorToken({ oid: sellerId, scopes: ['Контент', 'Статистика'], exp }),
    expired: makeEmulatorToken({ oid: sellerId, scopes: [FINANCE_SCOPE], exp: Math.floor(now() / 1000) - 60 }),
    invalid: makeEmulatorToken({ oid: sellerId, scopes: [FINANCE_SCOPE], exp }).replace(/.{8}$/, 'AAAAAAAA'),
  };
  const issued = new Set([tokens.valid, tokens.noFinance, tokens.expired]);
  const lastAccepted = new Map<string, number>();
  const calls: WbEmulator['calls'] = [];

  function send(
    res: http.ServerResponse,
    path: string,
    status: number,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    calls.push({ path, status });
    const text = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, { ...(text ? { 'Content-Type': 'application/json; charset=utf-8' } : {}), ...headers });
    res.end(text);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const path = (req.url ?? '/').split('?')[0]!;
    const detail = DETAILED_ROUTE.exec(path);
    if (req.method !== 'POST' || (path !== LIST_ROUTE && !detail)) {
      return send(res, path, 404, errorBody(404, 'not found', 'no such method'));
    }
    const auth = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '').trim();
    if (!issued.has(auth)) return send(res, path, 401, errorBody(401, 'unauthorized', 'token is malformed or invalid'));
    const info = decodeWbToken(auth);
    if (info.exp * 1000 <= now()) return send(res, path, 401, errorBody(401, 'unauthorized', 'token expired'));
    if (!info.scopes.includes(FINANCE_SCOPE))
      return send(res, path, 403, errorBody(403, 'forbidden', 'scope is not allowed'));
    if (info.tokenType === 'Базовый')
      return send(res, path, 403, errorBody(403, 'forbidden', 'basic token is not allowed for this method'));
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
      const page: WbDetailedRow[] = [];
      for (const row of week.rows) {
        if ((row.rrdId ?? 0) <= rrdId) continue;
        page.push(row);
        if (page.length >= limit) break;
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
            .filter((w) => w.item.dateFrom <= dateTo && w.item.dateTo >= dateFrom)
            .slice(offset, offset + limit)
            .map((w) => w.item);
    return items.length === 0 ? send(res, path, 204, undefined, rateHeaders) : send(res, path, 200, items, rateHeaders);
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
    tokens,
    issue(claims = {}) {
      const token = makeEmulatorToken({ oid: sellerId, scopes: ['Статистика', FINANCE_SCOPE], exp, ...claims });
      issued.add(token);
      return token;
    },
    revoke(token) {
      issued.delete(token);
    },
    weeks,
    calls,
    setListSum(reportId, field, kopecks) {
      const week = byId.get(reportId);
      if (!week) throw new Error(`no week ${reportId}`);
      week.item[field] = kopecksToMoney(kopecks);
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
      console.log(`demo token («Статистика», «Финансы», 180 days):\n${emu.tokens.valid}`);
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
