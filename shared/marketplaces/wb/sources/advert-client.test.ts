import { describe, expect, it } from 'vitest';
import { createAdvertClient, fullstatsToCosts, spanDays, type Fullstats } from './advert-client';

function fakeFetch(status: number, body: unknown, headers: Record<string, string> = {}) {
  const calls: string[] = [];
  const fetch = async (url: string, init: RequestInit) => {
    calls.push(`${init.method} ${url} ${String((init.headers as Record<string, string>).Authorization)}`);
    return new Response(status === 204 ? null : JSON.stringify(body), { status, headers });
  };
  return { fetch, calls };
}

const stats = [
  {
    advertId: 11,
    sum: 700.5,
    days: [
      {
        date: '2026-03-02T00:00:00Z',
        sum: 500.5,
        apps: [
          { appType: 1, nms: [{ nmId: 101, name: 'A', sum: 300.25, sum_price: 1200 }] },
          {
            appType: 32,
            nms: [
              { nmId: 101, sum: '100.25', sum_price: '0' },
              { nmId: 102, sum: 100, sum_price: 50.5 },
            ],
          },
        ],
      },
      { date: '2026-03-09T00:00:00Z', sum: 200, apps: [{ nms: [{ nmId: 101, sum: 200, sum_price: 0 }] }] },
    ],
    unknownField: true,
  },
];

describe('advert client', () => {
  it('reads fullstats with its query, the token as the raw Authorization header', async () => {
    const f = fakeFetch(200, stats);
    const c = createAdvertClient({ baseUrl: 'http://wb.test/', token: 'T', fetch: f.fetch });
    const r = await c.fullstats([11, 12], '2026-03-02', '2026-03-08');
    expect(f.calls).toEqual([
      'GET http://wb.test/adv/v3/fullstats?ids=11%2C12&beginDate=2026-03-02&endDate=2026-03-08 T',
    ]);
    expect(r.kind).toBe('ok');
    const value = (r as { value: Fullstats }).value;
    expect(value[0]!.days![0]!.apps![1]!.nms![0]!.sum).toBe(10_025);
  });

  it('refuses more than 50 campaigns or 31 days before any request', async () => {
    const f = fakeFetch(200, []);
    const c = createAdvertClient({ baseUrl: 'http://wb.test', token: 'T', fetch: f.fetch });
    const ids = Array.from({ length: 51 }, (_, i) => i + 1);
    expect((await c.fullstats(ids, '2026-03-01', '2026-03-02')).kind).toBe('rejected');
    expect((await c.fullstats([1], '2026-03-01', '2026-04-01')).kind).toBe('rejected');
    expect((await c.upd('2026-03-01', '2026-04-01')).kind).toBe('rejected');
    expect(spanDays('2026-03-01', '2026-03-31')).toBe(31);
    expect(f.calls).toEqual([]);
  });

  it('maps 429 with X-Ratelimit-Retry, 403 (no «Продвижение») and a body off the spec', async () => {
    const limited = createAdvertClient({
      baseUrl: 'http://wb.test',
      token: 'T',
      fetch: fakeFetch(429, {}, { 'X-Ratelimit-Retry': '17' }).fetch,
    });
    expect(await limited.promotionCount()).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 17 });
    const forbidden = createAdvertClient({
      baseUrl: 'http://wb.test',
      token: 'T',
      fetch: fakeFetch(403, { detail: 'scope not allowed' }).fetch,
    });
    expect(await forbidden.promotionCount()).toEqual({ kind: 'forbidden', message: 'scope not allowed' });
    const bad = createAdvertClient({
      baseUrl: 'http://wb.test',
      token: 'T',
      fetch: fakeFetch(200, [{ advertId: 'x' }]).fetch,
    });
    expect((await bad.fullstats([1], '2026-03-01', '2026-03-01')).kind).toBe('invalid_response');
  });

  it('reads the campaign count, the adverts and the charges', async () => {
    const count = createAdvertClient({
      baseUrl: 'http://wb.test',
      token: 'T',
      fetch: fakeFetch(200, {
        adverts: [{ type: 9, status: 9, count: 1, advert_list: [{ advertId: 5, changeTime: '2026-03-01T10:00:00Z' }] }],
        all: 1,
      }).fetch,
    });
    const r = await count.promotionCount();
    expect(r).toMatchObject({ kind: 'ok', value: { adverts: [{ status: 9, advert_list: [{ advertId: 5 }] }] } });
    const none = createAdvertClient({
      baseUrl: 'http://wb.test',
      token: 'T',
      fetch: fakeFetch(200, { adverts: null }).fetch,
    });
    expect(await none.promotionCount()).toEqual({ kind: 'empty' });
    const upd = createAdvertClient({
      baseUrl: 'http://wb.test',
      token: 'T',
      fetch: fakeFetch(200, [
        { updNum: 1, updTime: '2026-03-02T10:00:00Z', updSum: 1500, advertId: 5, paymentType: 'Счет' },
      ]).fetch,
    });
    expect(await upd.upd('2026-03-02', '2026-03-08')).toMatchObject({
      kind: 'ok',
      value: [{ updSum: 150_000, advertId: 5 }],
    });
    const adverts = createAdvertClient({
      baseUrl: 'http://wb.test',
      token: 'T',
      fetch: fakeFetch(200, {
        adverts: [{ id: 5, status: 9, settings: { name: 'Весна' }, nm_settings: [{ nm_id: 101 }] }],
      }).fetch,
    });
    expect(await adverts.adverts([5])).toMatchObject({
      kind: 'ok',
      value: { adverts: [{ id: 5, nm_settings: [{ nm_id: 101 }] }] },
    });
  });

  it('turns fullstats into each card’s spend and ad orders per day, over platforms, within the period', () => {
    const f = fakeFetch(200, stats);
    return createAdvertClient({ baseUrl: 'http://wb.test', token: 'T', fetch: f.fetch })
      .fullstats([11], '2026-03-02', '2026-03-08')
      .then((r) => {
        const { costs, revenue } = fullstatsToCosts((r as { value: Fullstats }).value, '2026-03-02', '2026-03-08');
        expect(costs).toEqual([
          { date: '2026-03-02', nmId: 101, kopecks: 40_050 },
          { date: '2026-03-02', nmId: 102, kopecks: 10_000 },
        ]);
        expect(revenue).toEqual([
          { date: '2026-03-02', nmId: 101, kopecks: 120_000 },
          { date: '2026-03-02', nmId: 102, kopecks: 5_050 },
        ]);
      });
  });
});
