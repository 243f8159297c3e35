/**
 * The local emulator's seller-analytics-api part (docs/WB-API.md «Paid storage and acceptance per
 * article»): WB's paid-storage and acceptance report tasks, served by scripts/local/wb-emulator.ts on the
 * same port as the Finance API.
 *
 * - Every report of ANALYTICS_REPORTS (shared/marketplaces/wb/sources/analytics-reports.ts: its path, days
 *   and limits): GET /api/v1/paid_storage?dateFrom&dateTo (≤ 8 days) and
 *   /api/v1/acceptance_report?dateFrom&dateTo (≤ 31 days) → {data: {taskId}}; …/tasks/{id}/status → {data: {id, status}}; …/tasks/{id}/download →
 *   the rows dated in the task's period.
 * - A task's life: `new` at the first status call, `processing` after, `done` from the
 *   `statusCallsUntilDone`-th status call on; a download before that is refused (400). Unknown ids and
 *   other sellers' tasks → 404, an id that is no UUID → 400.
 * - Tokens: the emulator's own (401 for others or expired ones), «Аналитика» required (403).
 * - Limits per seller account and method, a token bucket like WB's (each report's limits, analytics-reports.ts),
 *   with WB's minute as the emulator's interval (the Finance API's, so a short interval in tests shortens
 *   these alike); a call over the limit gets 429 with X-Ratelimit-Retry and does not use the budget.
 * - Data: per demo week, storage for every day and each of the week's articles (nmIds of the week's rows)
 *   and a few supplies' acceptance, summing to within 1 % of the week's paidStorageSum and
 *   paidAcceptanceSum (WB's per-article reports and the weekly report differ by about that).
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { TaskStatus } from '../../../shared/marketplaces/wb/sources/analytics-schemas';
import { moneyToKopecks } from '../../../shared/marketplaces/wb/money';
import {
  ANALYTICS_REPORTS,
  analyticsReport,
  type ReportKind,
  type ReportLimits,
  type ReportOp,
} from '../../../shared/marketplaces/wb/sources/analytics-reports';
import { scaleLimits } from '../../../shared/marketplaces/wb/sources/report-plan';
import { ANALYTICS_SCOPE, decodeWbToken } from '../../../shared/marketplaces/wb/token';
import type { EmulatedWeek } from './weeks';
import { mulberry32 } from '../../fixtures/random';

/** A paid-storage row as WB sends it (ResponsePaidStorage). */
export interface StorageWireRow {
  date: string;
  logWarehouseCoef: number;
  officeId: number;
  warehouse: string;
  warehouseCoef: number;
  giId: number;
  chrtId: number;
  size: string;
  barcode: string;
  subject: string;
  brand: string;
  vendorCode: string;
  nmId: number;
  volume: number;
  calcType: string;
  warehousePrice: number;
  barcodesCount: number;
  palletPlaceCode: number;
  palletCount: number;
  originalDate: string;
  loyaltyDiscount: number;
  tariffFixDate: string;
  tariffLowerDate: string;
}

/** An acceptance row as WB sends it. */
export interface AcceptanceWireRow {
  count: number;
  giCreateDate: string;
  incomeId: number;
  nmID: number;
  shkCreateDate: string;
  subjectName: string;
  total: number;
}

export interface WeekAnalytics {
  reportId: number;
  dateFrom: string;
  dateTo: string;
  /** The week's articles: the nmIds of its rows. */
  nmIds: number[];
  storage: StorageWireRow[];
  acceptance: AcceptanceWireRow[];
}

const DAY_MS = 86_400_000;
const day = (iso: string, plus: number) =>
  new Date(Date.parse(`${iso}T00:00:00Z`) + plus * DAY_MS).toISOString().slice(0, 10);

/** `total` kopecks split by `weights` into integers summing to it exactly (largest remainder). */
function allocate(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum <= 0) return weights.map(() => 0);
  const exact = weights.map((w) => (total * w) / sum);
  const out = exact.map(Math.floor);
  let rest = total - out.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0]);
  for (let k = 0; rest > 0; k = (k + 1) % order.length, rest--) out[order[k]![1]]! += 1;
  return out;
}

const WAREHOUSES: Array<[number, string, number]> = [
  [507, 'Коледино', 1.7],
  [117986, 'Казань', 1.5],
  [120762, 'Электросталь', 1.6],
  [206348, 'Тула', 1.25],
];

/**
 * The week's per-article storage and acceptance, deterministic for (week, seed): WB's figures differ
 * from the weekly report's sums by a random fraction under 0.8 % (one per week and report).
 */
export function weekAnalytics(week: EmulatedWeek, seed = 1): WeekAnalytics {
  const rng = mulberry32(seed * 7919 + week.item.reportId);
  const int = (lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
  const articles = new Map<number, { vendorCode: string; subject: string; brand: string; barcode: string }>();
  for (const r of week.rows) {
    const nm = r.nmId ?? 0;
    if (nm > 0 && !articles.has(nm)) {
      articles.set(nm, {
        vendorCode: r.vendorCode ?? '',
        subject: r.subjectName ?? '',
        brand: r.brandName ?? '',
        barcode: r.sku ?? '',
      });
    }
  }
  const nmIds = [...articles.keys()].sort((a, b) => a - b);
  const { dateFrom, dateTo } = week.item;
  const result: WeekAnalytics = { reportId: week.item.reportId, dateFrom, dateTo, nmIds, storage: [], acceptance: [] };
  if (nmIds.length === 0) return result;
  const drift = () => 1 + (rng() * 2 - 1) * 0.008;

  // Storage: every day, every article, in one or two warehouses.
  const storageTarget = Math.round(moneyToKopecks(week.item.paidStorageSum) * drift());
  const size = new Map(nmIds.map((nm) => [nm, 0.3 + rng() * 2.7]));
  const slots: Array<{ date: string; nm: number; wh: [number, string, number]; weight: number }> = [];
  for (let d = 0; d < 7; d++) {
    for (const nm of nmIds) {
      const places = rng() < 0.3 ? 2 : 1;
      for (let p = 0; p < places; p++) {
        slots.push({
          date: day(dateFrom, d),
          nm,
          wh: WAREHOUSES[int(0, WAREHOUSES.length - 1)]!,
          weight: size.get(nm)! * (0.7 + rng() * 0.6),
        });
      }
    }
  }
  if (storageTarget > 0) {
    const kopecks = allocate(
      storageTarget,
      slots.map((s) => s.weight),
    );
    slots.forEach((s, i) => {
      const a = articles.get(s.nm)!;
      if (kopecks[i] === 0) return;
      result.storage.push({
        date: s.date,
        logWarehouseCoef: 1,
        officeId: s.wh[0],
        warehouse: s.wh[1],
        warehouseCoef: s.wh[2],
        giId: 20_000_000 + (s.nm % 1_000_000),
        chrtId: 300_000_000 + (s.nm % 100_000_000),
        size: '0',
        barcode: a.barcode,
        subject: a.subject,
        brand: a.brand,
        vendorCode: a.vendorCode,
        nmId: s.nm,
        volume: Math.round(size.get(s.nm)! * 4 * 100) / 100,
        calcType: 'короба: без габаритов',
        warehousePrice: kopecks[i]! / 100,
        barcodesCount: int(1, 40),
        palletPlaceCode: 0,
        palletCount: 0,
        originalDate: s.date,
        loyaltyDiscount: 0,
        tariffFixDate: day(dateFrom, -30),
        tariffLowerDate: day(dateFrom, 60),
      });
    });
  }

  // Acceptance: one to three supplies accepted during the week, each of a few articles.
  const acceptanceTarget = Math.round(moneyToKopecks(week.item.paidAcceptanceSum) * drift());
  if (acceptanceTarget > 0) {
    const lines: Array<Omit<AcceptanceWireRow, 'total'>> = [];
    const supplies = int(1, 3);
    for (let s = 0; s < supplies; s++) {
      const shk = day(dateFrom, int(0, 6));
      const incomeId = 11_000_000 + (week.item.reportId % 100_000) * 10 + s;
      const picked = [...nmIds].sort(() => rng() - 0.5).slice(0, Math.min(nmIds.length, int(2, 8)));
      for (const nm of picked) {
        lines.push({
          count: int(5, 200),
          giCreateDate: day(shk, -int(1, 5)),
          incomeId,
          nmID: nm,
          shkCreateDate: shk,
          subjectName: articles.get(nm)!.subject,
        });
      }
    }
    const kopecks = allocate(
      acceptanceTarget,
      lines.map((l) => l.count),
    );
    lines.forEach((l, i) => {
      if (kopecks[i]! > 0) result.acceptance.push({ ...l, total: kopecks[i]! / 100 });
    });
  }
  return result;
}

export interface AnalyticsEmulatorOptions {
  weeks: EmulatedWeek[];
  now: () => number;
  /** Whether the emulator issued this token (wb-emulator.ts keeps the set). */
  issued: (token: string) => boolean;
  /** WB's minute in the emulator's limits (its Finance API interval). Default 60 000. */
  minuteMs?: number;
  /** Limits per report kind, instead of WB's scaled to minuteMs (a test of the plan against a stricter WB). */
  limits?: Partial<Record<ReportKind, ReportLimits>>;
  /** The status call from which a task is `done` (1: at once). Default 3: new, processing, done. */
  statusCallsUntilDone?: number;
  seed?: number;
}

type Send = (status: number, body?: unknown, headers?: Record<string, string>) => void;

interface Task {
  account: string;
  kind: ReportKind;
  dateFrom: string;
  dateTo: string;
  statusCalls: number;
  /** Set by a test: WB purged or canceled it. */
  forced?: TaskStatus;
}

export interface AnalyticsEmulator {
  /** Per demo week, what the reports hold. */
  weeks: WeekAnalytics[];
  handles(method: string, path: string): boolean;
  handle(req: http.IncomingMessage, path: string, send: Send): void;
  setStatusCallsUntilDone(n: number): void;
  /** Makes WB drop a task (its next status says so; its download is 404). */
  dropTask(taskId: string, status: 'purged' | 'canceled'): void;
  /** Task ids in the order made. */
  taskIds(): string[];
}

/** A report's path (analytics-reports.ts), then nothing, or `/tasks/{id}/status|download`. */
const TASK_ROUTE = /^(?:\/tasks\/([^/]+)\/(status|download))?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The report a path names (every report of ANALYTICS_REPORTS is served) and the rest of the path. */
function route(path: string): { kind: ReportKind; taskId?: string; what?: string } | null {
  for (const r of ANALYTICS_REPORTS) {
    if (!path.startsWith(r.path)) continue;
    const m = TASK_ROUTE.exec(path.slice(r.path.length));
    if (m) return { kind: r.api, taskId: m[1], what: m[2] };
  }
  return null;
}

function errorBody(status: number, title: string, detail: string) {
  return { title, detail, origin: 'api-statistics', requestId: randomUUID().replace(/-/g, ''), status };
}

/** Seconds for X-Ratelimit-*: whole seconds as WB sends them; fractions under a second-long interval (tests). */
function retrySeconds(ms: number, intervalMs: number): string {
  return intervalMs >= 1000 ? String(Math.ceil(ms / 1000)) : (Math.ceil(ms) / 1000).toFixed(3);
}

export function createAnalyticsEmulator(opts: AnalyticsEmulatorOptions): AnalyticsEmulator {
  const minuteMs = opts.minuteMs ?? 60_000;
  const limits = Object.fromEntries(
    ANALYTICS_REPORTS.map((r) => [r.api, opts.limits?.[r.api] ?? scaleLimits(r.limits, minuteMs / 60_000)]),
  ) as Record<ReportKind, ReportLimits>;
  let untilDone = opts.statusCallsUntilDone ?? 3;
  const weeks = opts.weeks.map((w) => weekAnalytics(w, opts.seed ?? 1));
  const tasks = new Map<string, Task>();
  /** GCRA's theoretical arrival time per account, kind and method. */
  const tat = new Map<string, number>();

  /** Each report's rows of a task's period (a report added to ANALYTICS_REPORTS needs its demo rows here). */
  const ROWS: Record<ReportKind, (inside: (day: string) => boolean) => unknown[]> = {
    paid_storage: (inside) => weeks.flatMap((w) => w.storage.filter((r) => inside(r.date))),
    acceptance: (inside) => weeks.flatMap((w) => w.acceptance.filter((r) => inside(r.shkCreateDate))),
  };
  function rows(task: Task): unknown[] {
    return ROWS[task.kind]((d) => d >= task.dateFrom && d <= task.dateTo);
  }

  function handle(req: http.IncomingMessage, path: string, send: Send): void {
    const { kind, taskId, what } = route(path)!;
    const op: ReportOp = what === 'status' ? 'status' : what === 'download' ? 'download' : 'create';

    const auth = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '').trim();
    if (!opts.issued(auth)) return send(401, errorBody(401, 'unauthorized', 'token is malformed or invalid'));
    const info = decodeWbToken(auth);
    if (info.exp * 1000 <= opts.now()) return send(401, errorBody(401, 'unauthorized', 'token expired'));
    if (!info.scopes.includes(ANALYTICS_SCOPE)) return send(403, errorBody(403, 'forbidden', 'scope is not allowed'));
    const account = info.sellerId ?? '';

    const { intervalMs, burst } = limits[kind][op];
    const key = `${account}|${kind}|${op}`;
    const t = opts.now();
    const due = (tat.get(key) ?? t) - (burst - 1) * intervalMs;
    if (t < due) {
      return send(429, errorBody(429, 'too many requests', 'limited by seller-analytics-api'), {
        'X-Ratelimit-Retry': retrySeconds(due - t, intervalMs),
        'X-Ratelimit-Limit': String(burst),
        'X-Ratelimit-Remaining': '0',
        'X-Ratelimit-Reset': retrySeconds(due - t, intervalMs),
      });
    }
    tat.set(key, Math.max(tat.get(key) ?? t, t) + intervalMs);

    if (op === 'create') {
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      const dates: string[] = [];
      for (const name of ['dateFrom', 'dateTo']) {
        const v = q.get(name);
        if (v === null || v === '') {
          return send(
            400,
            errorBody(400, 'Bad Request', `parameter "${name}" in query has an error: value is required but missing`),
          );
        }
        const d = v.slice(0, 10);
        if (!/^\d{4}-\d{2}-\d{2}$/.test(d) || Number.isNaN(Date.parse(`${d}T00:00:00Z`))) {
          return send(400, errorBody(400, 'Bad Request', `can't parse ${name}`));
        }
        dates.push(d);
      }
      const [dateFrom, dateTo] = dates as [string, string];
      if (dateTo < dateFrom) return send(400, errorBody(400, 'Bad Request', 'dateTo should be greater dateFrom'));
      const days = (Date.parse(`${dateTo}T00:00:00Z`) - Date.parse(`${dateFrom}T00:00:00Z`)) / DAY_MS + 1;
      const maxDays = analyticsReport(kind).maxDays;
      if (days > maxDays) {
        return send(
          400,
          errorBody(
            400,
            'Bad Request',
            `Difference between dateFrom and dateTo should be less or equal ${maxDays} days`,
          ),
        );
      }
      const id = randomUUID();
      tasks.set(id, { account, kind, dateFrom, dateTo, statusCalls: 0 });
      return send(200, { data: { taskId: id } });
    }

    if (!UUID.test(taskId!)) {
      return send(
        400,
        errorBody(400, 'Bad Request', `Invalid format for parameter task_id: ${taskId}: invalid UUID format`),
      );
    }
    const task = tasks.get(taskId!);
    if (!task || task.account !== account || task.kind !== kind)
      return send(404, errorBody(404, 'Not Found', 'not found'));
    if (op === 'status') {
      task.statusCalls++;
      const status: TaskStatus =
        task.forced ?? (task.statusCalls >= untilDone ? 'done' : task.statusCalls === 1 ? 'new' : 'processing');
      return send(200, { data: { id: taskId, status } });
    }
    if (task.forced) return send(404, errorBody(404, 'Not Found', 'not found'));
    if (task.statusCalls < untilDone) return send(400, errorBody(400, 'Bad Request', 'the report is not ready yet'));
    return send(200, rows(task));
  }

  return {
    weeks,
    handles: (method, path) => method === 'GET' && route(path) !== null,
    handle,
    setStatusCallsUntilDone(n) {
      if (!Number.isInteger(n) || n < 1) throw new Error(`not a number of calls: ${n}`);
      untilDone = n;
    },
    dropTask(taskId, status) {
      const task = tasks.get(taskId);
      if (!task) throw new Error(`no task ${taskId}`);
      task.forced = status;
    },
    taskIds: () => [...tasks.keys()],
  };
}
