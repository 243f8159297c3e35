import { describe, expect, it } from 'vitest';
import { advertNext, campaignsFor, windowsOf } from './advert-source';
import type { CostFetchState } from './costs';

const FROM = '2026-03-02';
const TO = '2026-03-08';
const first: CostFetchState = { call: { op: 'count' }, memo: {} };

describe('the ads cost source', () => {
  it('keeps campaigns that can have spend in the period', () => {
    const ids = campaignsFor(
      {
        adverts: [
          { type: 8, status: 9, advert_list: [{ advertId: 3 }, { advertId: 1 }] },
          {
            type: 8,
            status: 7,
            advert_list: [
              { advertId: 7, changeTime: '2026-02-01T00:00:00Z' },
              { advertId: 8, changeTime: '2026-03-05T00:00:00Z' },
            ],
          },
          { type: 8, status: 4, advert_list: [{ advertId: 9 }] },
        ],
      },
      FROM,
    );
    expect(ids).toEqual([1, 3, 8]);
  });

  it('count → fullstats in batches of 50 → done; every answer stored per campaign, the period marked', () => {
    const list = Array.from({ length: 60 }, (_, i) => ({ advertId: i + 1 }));
    const count = advertNext(
      first,
      { kind: 'ok', value: { adverts: [{ type: 9, status: 9, advert_list: list }] } },
      FROM,
      TO,
      20_000,
    );
    expect(count.batches).toEqual([{ part: 'count', from: FROM, to: TO, costs: [], revenue: [] }]);
    expect(count.waitMs).toBe(20_000);
    expect(count.state.call).toEqual({
      op: 'fullstats',
      ids: list.slice(0, 50).map((a) => a.advertId),
      from: FROM,
      to: TO,
    });
    const stats = [
      {
        advertId: 2,
        days: [{ date: '2026-03-03T00:00:00Z', apps: [{ nms: [{ nmId: 101, sum: 12_345, sum_price: 50_000 }] }] }],
      },
    ];
    const one = advertNext(count.state, { kind: 'ok', value: stats }, FROM, TO, 20_000);
    expect(one.batches).toHaveLength(50);
    expect(one.batches[1]).toEqual({
      part: 'c2',
      from: FROM,
      to: TO,
      costs: [{ date: '2026-03-03', nmId: 101, kopecks: 12_345 }],
      revenue: [{ date: '2026-03-03', nmId: 101, kopecks: 50_000 }],
    });
    expect(one.batches[0]).toMatchObject({ part: 'c1', costs: [] });
    expect(one.state.call).toMatchObject({ op: 'fullstats', ids: list.slice(50).map((a) => a.advertId) });
    const two = advertNext(one.state, { kind: 'empty' }, FROM, TO, 20_000);
    expect(two.batches).toHaveLength(10);
    expect(two.state.call).toBeNull();
  });

  it('no campaign: only the marker, done at once', () => {
    const r = advertNext(first, { kind: 'empty' }, FROM, TO, 1000);
    expect(r.state.call).toBeNull();
    expect(r.batches.map((b) => b.part)).toEqual(['count']);
  });

  it('a period longer than 31 days is read window by window', () => {
    expect(windowsOf('2026-01-01', '2026-02-15')).toEqual([
      ['2026-01-01', '2026-01-31'],
      ['2026-02-01', '2026-02-15'],
    ]);
    const count = advertNext(
      first,
      { kind: 'ok', value: { adverts: [{ type: 9, status: 9, advert_list: [{ advertId: 5 }] }] } },
      '2026-01-01',
      '2026-02-15',
      10,
    );
    expect(count.state.call).toMatchObject({ ids: [5], from: '2026-01-01', to: '2026-01-31' });
    const next = advertNext(count.state, { kind: 'empty' }, '2026-01-01', '2026-02-15', 10);
    expect(next.state.call).toMatchObject({ ids: [5], from: '2026-02-01', to: '2026-02-15' });
    expect(advertNext(next.state, { kind: 'empty' }, '2026-01-01', '2026-02-15', 10).state.call).toBeNull();
  });

  it('waits out a 429, retries trouble, stops on a refused token, gives up on a refused request', () => {
    const limited = advertNext(
      first,
      { kind: 'rate_limited', retryAfterSeconds: 45, limit: null, remaining: null, resetSeconds: null },
      FROM,
      TO,
      20_000,
    );
    expect(limited).toMatchObject({ retry: true, waitMs: 45_000, state: first, batches: [] });
    expect(advertNext(first, { kind: 'server_error', status: 502, message: 'x' }, FROM, TO, 20_000)).toMatchObject({
      retry: true,
      waitMs: 40_000,
    });
    expect(advertNext(first, { kind: 'forbidden', message: 'scope' }, FROM, TO, 20_000)).toMatchObject({
      refused: 'forbidden',
    });
    expect(advertNext(first, { kind: 'rejected', status: 400, message: 'bad' }, FROM, TO, 20_000)).toMatchObject({
      gaveUp: 'bad',
      state: { call: null },
    });
  });
});
