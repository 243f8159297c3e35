import { describe, expect, it } from 'vitest';
import { createFinanceClient, DETAILED_PATH, LIST_PATH, type FetchLike } from './finance-client';
import { storedRows } from './page-body';

const LIST_ITEM = {
  reportId: 501234567,
  sellerFinanceName: 'ИП Тестов',
  dateFrom: '2026-01-05',
  dateTo: '2026-01-11',
  createDate: '2026-01-12',
  currency: 'RUB',
  reportType: 1,
  retailAmountSum: '1234567.89',
  forPaySum: '1000000.01',
  avgSalePercent: 42.5,
  deliveryServiceSum: '12345.67',
  paidStorageSum: '0.29',
  paidAcceptanceSum: '0',
  deductionSum: '100',
  penaltySum: '7.5',
  additionalPaymentSum: '-3.10',
  cashbackAmountSum: '1',
  cashbackDiscountSum: '2',
  cashbackCommissionChangeSum: '3',
  paymentSchedule: '0',
  bankPaymentSum: '987000.55',
};

interface Seen {
  url: string;
  init: RequestInit;
}

function fakeFetch(answer: (seen: Seen) => Response | Promise<Response>, seen: Seen[] = []): FetchLike {
  return (url, init) => {
    const s = { url, init };
    seen.push(s);
    return Promise.resolve(answer(s));
  };
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

function client(f: FetchLike, extra: { connectTimeoutMs?: number; requestTimeoutMs?: number } = {}) {
  return createFinanceClient({ baseUrl: 'http://wb.test/', token: 'tok', fetch: f, ...extra });
}

describe('finance client: list', () => {
  it('posts the query with the raw token and reads the sums as kopecks', async () => {
    const seen: Seen[] = [];
    const c = client(fakeFetch(() => json([LIST_ITEM]), seen));
    const r = await c.listReports({ dateFrom: '2026-01-01', dateTo: '2026-01-31', limit: 5000 });
    expect(seen[0]!.url).toBe(`http://wb.test${LIST_PATH}`);
    expect(seen[0]!.init.method).toBe('POST');
    expect((seen[0]!.init.headers as Record<string, string>).Authorization).toBe('tok');
    expect(JSON.parse(seen[0]!.init.body as string)).toEqual({
      dateFrom: '2026-01-01',
      dateTo: '2026-01-31',
      period: 'weekly',
      limit: 1000,
      offset: 0,
    });
    expect(r.kind).toBe('ok');
    if (r.kind !== 'ok') return;
    const s = r.value[0]!;
    expect(s.reportId).toBe(501234567);
    expect(s.retailAmountSum).toBe(123456789);
    expect(s.forPaySum).toBe(100000001);
    expect(s.paidStorageSum).toBe(29);
    expect(s.penaltySum).toBe(750);
    expect(s.additionalPaymentSum).toBe(-310);
    expect(s.bankPaymentSum).toBe(98700055);
    expect(s.avgSalePercent).toBe(42.5);
  });

  it('treats a missing money sum as 0 and rejects a non-number one', async () => {
    const { paymentSchedule: _dropped, ...rest } = LIST_ITEM;
    const ok = await client(fakeFetch(() => json([rest]))).listReports({ dateFrom: 'a', dateTo: 'b' });
    expect(ok.kind === 'ok' && ok.value[0]!.paymentSchedule).toBe(0);
    const bad = await client(fakeFetch(() => json([{ ...LIST_ITEM, forPaySum: '12,5' }]))).listReports({
      dateFrom: 'a',
      dateTo: 'b',
    });
    expect(bad).toMatchObject({ kind: 'invalid_response', message: expect.stringContaining('0.forPaySum') });
  });

  it('maps 204 and an empty array to empty', async () => {
    expect(
      await client(fakeFetch(() => new Response(null, { status: 204 }))).listReports({ dateFrom: 'a', dateTo: 'b' }),
    ).toEqual({
      kind: 'empty',
    });
    expect(await client(fakeFetch(() => json([]))).listReports({ dateFrom: 'a', dateTo: 'b' })).toEqual({
      kind: 'empty',
    });
  });
});

describe('finance client: detailed', () => {
  it('pages by rrdId and keeps money as WB text', async () => {
    const seen: Seen[] = [];
    const row = {
      rrdId: 7,
      vendorCode: 'Платье-1',
      forPay: '10.5',
      quantity: 1,
      commissionPercent: 25.5,
      srvDbs: false,
      kiz: null,
    };
    const r = await client(fakeFetch(() => json([row]), seen)).detailedPage(42, { rrdId: 6, limit: 500_000 });
    expect(seen[0]!.url).toBe(`http://wb.test${DETAILED_PATH}/42`);
    expect(JSON.parse(seen[0]!.init.body as string)).toEqual({ rrdId: 6, limit: 100_000 });
    if (r.kind !== 'ok') throw new Error(r.kind);
    expect(r.value).toMatchObject({ rows: 1, lastRrdId: 7 });
    // Stored as WB sent it; read back normalized (page-body.ts).
    expect(await storedRows(r.value.body)).toEqual([
      { rrdId: 7, vendorCode: 'Платье-1', forPay: '10.5', quantity: 1, commissionPercent: 25.5, srvDbs: false },
    ]);
  });

  it('keeps each rrdId once: rows at or below the cursor and repeats on the page are dropped and counted', async () => {
    const page = [
      { rrdId: 5 },
      { rrdId: 6, vendorCode: 'Ж' },
      { rrdId: 6, vendorCode: 'Ж' },
      { rrdId: 8 },
      { rrdId: 4 },
    ];
    const r = await client(fakeFetch(() => json(page))).detailedPage(1, { rrdId: 5, limit: 5 });
    if (r.kind !== 'ok') throw new Error(r.kind);
    expect(r.value).toMatchObject({ rows: 2, sent: 5, duplicates: 3, lastRrdId: 8 });
    expect(await storedRows(r.value.body)).toEqual([{ rrdId: 6, vendorCode: 'Ж' }, { rrdId: 8 }]);
  });

  it('a page in descending rrdId order moves the cursor to its largest rrdId', async () => {
    const r = await client(fakeFetch(() => json([{ rrdId: 9 }, { rrdId: 7 }, { rrdId: 3 }]))).detailedPage(1, {
      rrdId: 0,
    });
    if (r.kind !== 'ok') throw new Error(r.kind);
    expect(r.value).toMatchObject({ rows: 3, sent: 3, duplicates: 0, lastRrdId: 9 });
  });

  it('a page of rows already read brings nothing: no row kept, no cursor', async () => {
    const r = await client(fakeFetch(() => json([{ rrdId: 2 }, { rrdId: 3 }]))).detailedPage(1, { rrdId: 3 });
    if (r.kind !== 'ok') throw new Error(r.kind);
    expect(r.value).toMatchObject({ rows: 0, sent: 2, duplicates: 2, lastRrdId: null });
    expect(await storedRows(r.value.body)).toEqual([]);
  });

  it('rejects a row whose money is not a number', async () => {
    const r = await client(fakeFetch(() => json([{ rrdId: 1, forPay: 'много' }]))).detailedPage(1, { rrdId: 0 });
    // Money padded with a no-break space is money once trimmed: the real text decides, not the one-byte check.
    const padded = await client(fakeFetch(() => json([{ rrdId: 1, forPay: '10.50\u00a0' }]))).detailedPage(1, {
      rrdId: 0,
    });
    if (padded.kind !== 'ok') throw new Error(padded.kind);
    expect(await storedRows(padded.value.body)).toEqual([{ rrdId: 1, forPay: '10.50' }]);
    // Checked on one-byte text, but the message quotes what WB sent.
    expect(r).toEqual({ kind: 'invalid_response', message: '0.forPay: not a money: "много"' });
  });
});

describe('finance client: outcomes', () => {
  const list = (res: () => Response) => client(fakeFetch(res)).listReports({ dateFrom: 'a', dateTo: 'b' });

  it('429 carries X-Ratelimit-Retry and the other rate headers', async () => {
    const r = await list(() =>
      json({ title: 'too many requests' }, 429, {
        'X-Ratelimit-Retry': '37',
        'X-Ratelimit-Limit': '1',
        'X-Ratelimit-Remaining': '0',
        'X-Ratelimit-Reset': '37',
      }),
    );
    expect(r).toEqual({ kind: 'rate_limited', retryAfterSeconds: 37, limit: 1, remaining: 0, resetSeconds: 37 });
  });

  it('429 without headers waits a minute', async () => {
    expect(await list(() => new Response('', { status: 429 }))).toMatchObject({
      kind: 'rate_limited',
      retryAfterSeconds: 60,
    });
  });

  it('401, 403, 404, 400, 5xx and bad JSON', async () => {
    expect(await list(() => json({ title: 'unauthorized', detail: 'token expired' }, 401))).toEqual({
      kind: 'unauthorized',
      message: 'token expired',
    });
    expect(await list(() => json({ detail: 'scope is not allowed' }, 403))).toEqual({
      kind: 'forbidden',
      message: 'scope is not allowed',
    });
    expect((await list(() => json({}, 404))).kind).toBe('not_found');
    expect(await list(() => new Response('bad', { status: 400 }))).toEqual({
      kind: 'rejected',
      status: 400,
      message: 'bad',
    });
    expect(await list(() => new Response('oops', { status: 502 }))).toEqual({
      kind: 'server_error',
      status: 502,
      message: 'oops',
    });
    expect((await list(() => new Response('{', { status: 200 }))).kind).toBe('invalid_response');
    expect((await list(() => json({ not: 'an array' }))).kind).toBe('invalid_response');
  });

  it('a refused connection is a network error', async () => {
    const r = await client(() => Promise.reject(new TypeError('fetch failed'))).listReports({
      dateFrom: 'a',
      dateTo: 'b',
    });
    expect(r).toEqual({ kind: 'network_error', timeout: false, message: 'fetch failed' });
  });

  const hang: FetchLike = (_url, init) =>
    new Promise((_resolve, reject) => {
      init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
    });

  it('no answer within the connect timeout is a timeout', async () => {
    const r = await client(hang, { connectTimeoutMs: 20 }).listReports({ dateFrom: 'a', dateTo: 'b' });
    expect(r).toEqual({ kind: 'network_error', timeout: true, message: 'timed out' });
  });

  it('a body that does not finish within the request timeout is a timeout', async () => {
    const slowBody: FetchLike = (_url, init) =>
      Promise.resolve(
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('['));
              init.signal?.addEventListener('abort', () => controller.error(new DOMException('aborted', 'AbortError')));
            },
          }),
          { status: 200 },
        ),
      );
    const r = await client(slowBody, { connectTimeoutMs: 1000, requestTimeoutMs: 30 }).listReports({
      dateFrom: 'a',
      dateTo: 'b',
    });
    expect(r).toEqual({ kind: 'network_error', timeout: true, message: 'timed out' });
  });
});
