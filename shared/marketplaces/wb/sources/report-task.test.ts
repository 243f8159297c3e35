/**
 * The paid-storage and acceptance clients against a local HTTP server (node:http on a free port): URLs,
 * the raw token, WB's answers → typed outcomes; and the conversion of a report to per-day per-article
 * kopecks.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCEPTANCE_REPORT, PAID_STORAGE_REPORT } from './analytics-reports';
import {
  acceptanceReportSchema,
  paidStorageReportSchema,
  type AcceptanceRow,
  type PaidStorageRow,
} from './analytics-schemas';
import { createReportTaskClient, reportCosts } from './report-task';

interface Answer {
  status: number;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

let answer: Answer = { status: 200, body: {} };
const seen: Array<{ method: string; url: string; auth: string | undefined }> = [];
let server: http.Server;
let baseUrl = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization });
    const a = answer;
    const reply = () => {
      const text = a.raw ?? (a.body === undefined ? '' : JSON.stringify(a.body));
      res.writeHead(a.status, { 'Content-Type': 'application/json', ...a.headers });
      res.end(text);
    };
    if (a.delayMs) setTimeout(reply, a.delayMs);
    else reply();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);

const storage = () => createReportTaskClient(PAID_STORAGE_REPORT, { baseUrl, token: 'tok-1' });
const acceptance = () => createReportTaskClient(ACCEPTANCE_REPORT, { baseUrl, token: 'tok-2' });
const TASK = '06e06887-9d9f-491f-b16a-bb1766fcb8d2';

const STORAGE_ROW = {
  date: '2026-01-05',
  logWarehouseCoef: 1,
  officeId: 507,
  warehouse: 'Коледино',
  warehouseCoef: 1.7,
  giId: 123456,
  chrtId: 1234567,
  size: '0',
  barcode: '',
  subject: 'Маски одноразовые',
  brand: 'Бренд',
  vendorCode: '567383',
  nmId: 1234567,
  volume: 12,
  calcType: 'короба: без габаритов',
  warehousePrice: 7.65,
  barcodesCount: 1,
  palletPlaceCode: 0,
  palletCount: 0,
  originalDate: '2026-01-05',
  loyaltyDiscount: 10,
  tariffFixDate: '2026-01-01',
  tariffLowerDate: '2026-02-01',
};
const ACCEPTANCE_ROW = {
  count: 40,
  giCreateDate: '2026-01-02',
  incomeId: 11834106,
  nmID: 123456789,
  shkCreateDate: '2026-01-06',
  subjectName: 'Добавки пищевые',
  total: 873.04,
};

describe('report task clients: the three calls', () => {
  it('creates a task with GET {path}?dateFrom&dateTo and the raw token', async () => {
    answer = { status: 200, body: { data: { taskId: TASK } } };
    seen.length = 0;
    expect(await storage().createTask({ dateFrom: '2026-01-05', dateTo: '2026-01-11' })).toEqual({
      kind: 'ok',
      value: TASK,
    });
    expect(await acceptance().createTask({ dateFrom: '2026-01-01', dateTo: '2026-01-31' })).toEqual({
      kind: 'ok',
      value: TASK,
    });
    expect(seen).toEqual([
      { method: 'GET', url: '/api/v1/paid_storage?dateFrom=2026-01-05&dateTo=2026-01-11', auth: 'tok-1' },
      { method: 'GET', url: '/api/v1/acceptance_report?dateFrom=2026-01-01&dateTo=2026-01-31', auth: 'tok-2' },
    ]);
  });

  it("reads a task's status and downloads its rows", async () => {
    seen.length = 0;
    answer = { status: 200, body: { data: { id: TASK, status: 'processing' } } };
    expect(await storage().taskStatus(TASK)).toEqual({ kind: 'ok', value: 'processing' });
    answer = { status: 200, body: [STORAGE_ROW] };
    const rows = await storage().download(TASK);
    expect(rows).toEqual({
      kind: 'ok',
      value: [
        expect.objectContaining({
          date: '2026-01-05',
          nmId: 1234567,
          vendorCode: '567383',
          warehousePrice: '7.65',
          loyaltyDiscount: '10',
          barcodesCount: 1,
          volume: 12,
          tariffFixDate: '2026-01-01',
        }),
      ],
    });
    answer = { status: 200, body: [ACCEPTANCE_ROW] };
    expect(await acceptance().download(TASK)).toEqual({
      kind: 'ok',
      value: [{ ...ACCEPTANCE_ROW, total: '873.04' }],
    });
    expect(seen.map((s) => s.url)).toEqual([
      `/api/v1/paid_storage/tasks/${TASK}/status`,
      `/api/v1/paid_storage/tasks/${TASK}/download`,
      `/api/v1/acceptance_report/tasks/${TASK}/download`,
    ]);
  });

  it('an empty report is `empty`; a row off the spec is `invalid_response` naming the field', async () => {
    answer = { status: 200, body: [] };
    expect(await storage().download(TASK)).toEqual({ kind: 'empty' });
    answer = { status: 200, body: [{ ...STORAGE_ROW, warehousePrice: 'семь' }] };
    expect(await storage().download(TASK)).toMatchObject({
      kind: 'invalid_response',
      message: expect.stringContaining('0.warehousePrice'),
    });
    answer = { status: 200, body: { data: { id: TASK, status: 'ready' } } };
    expect(await acceptance().taskStatus(TASK)).toMatchObject({ kind: 'invalid_response' });
    answer = { status: 200, body: { data: {} } };
    expect(await acceptance().createTask({ dateFrom: '2026-01-01', dateTo: '2026-01-02' })).toMatchObject({
      kind: 'invalid_response',
      message: expect.stringContaining('data.taskId'),
    });
    answer = { status: 200, raw: '[{"date": "2026-' };
    expect(await storage().download(TASK)).toEqual({ kind: 'invalid_response', message: 'the answer is not JSON' });
  });
});

describe("report task clients: WB's refusals", () => {
  it("429 → rate_limited with WB's X-Ratelimit-* headers (Retry-After, then 60 s, as fallbacks)", async () => {
    answer = {
      status: 429,
      body: { title: 'too many requests' },
      headers: {
        'X-Ratelimit-Retry': '42',
        'X-Ratelimit-Limit': '5',
        'X-Ratelimit-Remaining': '0',
        'X-Ratelimit-Reset': '12',
      },
    };
    expect(await storage().createTask({ dateFrom: '2026-01-05', dateTo: '2026-01-11' })).toEqual({
      kind: 'rate_limited',
      retryAfterSeconds: 42,
      limit: 5,
      remaining: 0,
      resetSeconds: 12,
    });
    answer = { status: 429, headers: { 'Retry-After': '7' } };
    expect(await acceptance().taskStatus(TASK)).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 7 });
    answer = { status: 429 };
    expect(await acceptance().download(TASK)).toMatchObject({
      kind: 'rate_limited',
      retryAfterSeconds: 60,
      limit: null,
    });
  });

  it('401, 403 (no «Аналитика»), 404, 400 and 5xx each have their outcome, with WB’s detail', async () => {
    const cases: Array<[number, unknown]> = [
      [401, { kind: 'unauthorized', message: 'token expired' }],
      [403, { kind: 'forbidden', message: 'token expired' }],
      [404, { kind: 'not_found', message: 'token expired' }],
      [400, { kind: 'rejected', status: 400, message: 'token expired' }],
      [502, { kind: 'server_error', status: 502, message: 'token expired' }],
    ];
    for (const [status, outcome] of cases) {
      answer = { status, body: { title: 'x', detail: 'token expired', origin: 'api-statistics' } };
      expect(await storage().taskStatus(TASK)).toEqual(outcome);
    }
    answer = {
      status: 400,
      body: { title: 'Bad Request', detail: 'Difference between dateFrom and dateTo should be less or equal 8 days' },
    };
    expect(await storage().createTask({ dateFrom: '2026-01-01', dateTo: '2026-01-31' })).toEqual({
      kind: 'rejected',
      status: 400,
      message: 'Difference between dateFrom and dateTo should be less or equal 8 days',
    });
  });

  it('no answer → network_error; too slow → network_error with timeout', async () => {
    const closed = createReportTaskClient(PAID_STORAGE_REPORT, { baseUrl: 'http://127.0.0.1:9', token: 't' });
    expect(await closed.taskStatus(TASK)).toMatchObject({ kind: 'network_error', timeout: false });
    answer = { status: 200, body: { data: { status: 'done' } }, delayMs: 300 };
    const slow = createReportTaskClient(ACCEPTANCE_REPORT, { baseUrl, token: 't', connectTimeoutMs: 50 });
    expect(await slow.taskStatus(TASK)).toEqual({ kind: 'network_error', timeout: true, message: 'timed out' });
  });
});

const storageRow = (o: Partial<typeof STORAGE_ROW> & Record<string, unknown>): PaidStorageRow =>
  paidStorageReportSchema.parse([{ ...STORAGE_ROW, ...o }])[0]!;
const acceptanceRow = (o: Partial<typeof ACCEPTANCE_ROW>): AcceptanceRow =>
  acceptanceReportSchema.parse([{ ...ACCEPTANCE_ROW, ...o }])[0]!;

describe('per-day per-article costs', () => {
  // Each card's vendor code («Артикул продавца») is carried: it names a card's own line in a report.
  it('storage: Σ warehousePrice per date and nmId over warehouses and sizes, in kopecks, sorted', () => {
    const rows = [
      storageRow({ date: '2026-01-06', nmId: 2, warehousePrice: 1.5 }),
      storageRow({ date: '2026-01-05', nmId: 2, warehousePrice: 7.65, warehouse: 'Коледино' }),
      storageRow({ date: '2026-01-05', nmId: 2, warehousePrice: 0.35, warehouse: 'Казань' }),
      storageRow({ date: '2026-01-05T00:00:00', nmId: 1, warehousePrice: 12 }),
    ];
    expect(reportCosts(PAID_STORAGE_REPORT, rows)).toEqual([
      { date: '2026-01-05', nmId: 1, kopecks: 1200, vendorCode: '567383' },
      { date: '2026-01-05', nmId: 2, kopecks: 800, vendorCode: '567383' },
      { date: '2026-01-06', nmId: 2, kopecks: 150, vendorCode: '567383' },
    ]);
  });

  it('fractions of a kopeck are summed exactly and rounded once, half away from zero', () => {
    const tiny = Array.from({ length: 7 }, () => storageRow({ nmId: 5, warehousePrice: 0.0015 }));
    // 7 × 0.15 kopeck = 1.05 kopecks → 1 (rounding each row would give 0).
    expect(reportCosts(PAID_STORAGE_REPORT, tiny)).toEqual([
      { date: '2026-01-05', nmId: 5, kopecks: 1, vendorCode: '567383' },
    ]);
    expect(reportCosts(PAID_STORAGE_REPORT, [storageRow({ warehousePrice: 1.005 })])[0]!.kopecks).toBe(101);
    expect(reportCosts(PAID_STORAGE_REPORT, [storageRow({ warehousePrice: -1.005 })])[0]!.kopecks).toBe(-101);
    // 0.00001 + 0.25 kopeck round to nothing: no cost, not a zero entry.
    expect(
      reportCosts(PAID_STORAGE_REPORT, [storageRow({ warehousePrice: 1e-7 }), storageRow({ warehousePrice: 2.5e-3 })]),
    ).toEqual([]);
  });

  it('a recalculation nets against the charge; a day that nets to zero is left out; nmId 0 is kept', () => {
    const rows = [
      storageRow({ nmId: 7, warehousePrice: 3.1 }),
      storageRow({ nmId: 7, warehousePrice: -3.1, originalDate: '2026-01-01' }),
      storageRow({ nmId: 0, warehousePrice: 100 }),
      storageRow({ nmId: undefined as unknown as number, warehousePrice: 0.5 }),
    ];
    expect(reportCosts(PAID_STORAGE_REPORT, rows)).toEqual([
      { date: '2026-01-05', nmId: 0, kopecks: 10050, vendorCode: '567383' },
    ]);
  });

  it('loyaltyDiscount is carried, not subtracted', () => {
    expect(reportCosts(PAID_STORAGE_REPORT, [storageRow({ warehousePrice: 10, loyaltyDiscount: 1 })])).toEqual([
      { date: '2026-01-05', nmId: 1234567, kopecks: 1000, vendorCode: '567383' },
    ]);
  });

  it('acceptance: Σ total per day of acceptance (shkCreateDate) and article, over supplies', () => {
    const rows = [
      acceptanceRow({ nmID: 9, total: 873.04, incomeId: 1 }),
      acceptanceRow({ nmID: 9, total: 26.96, incomeId: 2 }),
      acceptanceRow({ nmID: 8, total: 10, shkCreateDate: '2026-01-07', giCreateDate: '2026-01-06' }),
    ];
    expect(reportCosts(ACCEPTANCE_REPORT, rows)).toEqual([
      { date: '2026-01-06', nmId: 9, kopecks: 90000 },
      { date: '2026-01-07', nmId: 8, kopecks: 1000 },
    ]);
  });
});
