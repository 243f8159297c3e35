/**
 * The acquiring cost source: WB's answers (hostile ones included) parsed, pages followed by rrdId, the
 * acquiring per card and day as the sync stores it, and its attribution onto a report's articles.
 */
import { describe, expect, it } from 'vitest';
import { attributeCosts } from '../../../../engine/attribution';
import { zeroAggregates } from '../../../../engine/fields';
import type { FetchLike } from '../../wb-types';
import { acquiringPageSchema, acquiringToCosts, createAcquiringClient } from './acquiring-client';
import { acquiringNext, acquiringSource } from './acquiring-source';

const row = (rrdId: number, nmId: number, fee: string, extra: Record<string, unknown> = {}) => ({
  rrdId,
  reportId: 800000001,
  nmId,
  srid: `s${rrdId}`,
  docTypeName: 'Продажа',
  saleDate: '2026-01-06T00:00:00',
  acqDate: '2026-01-06T12:00:00',
  acquiringFee: fee,
  acquiringFeeVat: '0',
  ...extra,
});

function answering(status: number, body?: unknown): { fetch: FetchLike; sent: Array<{ url: string; body: unknown }> } {
  const sent: Array<{ url: string; body: unknown }> = [];
  return {
    sent,
    fetch: (url, init) => {
      sent.push({ url, body: JSON.parse(String(init.body)) });
      return Promise.resolve(
        new Response(body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body), { status }),
      );
    },
  };
}

describe('acquiring client', () => {
  it('asks for the period from the rrdId on and reads amounts as text or numbers', async () => {
    const a = answering(200, [row(5, 101, '12.34'), { ...row(6, 102, '0'), acquiringFee: 7.5 }]);
    const client = createAcquiringClient({ baseUrl: 'http://wb', token: 't', fetch: a.fetch });
    const out = await client.detailed({ dateFrom: '2026-01-05', dateTo: '2026-01-11', rrdId: 4 });
    expect(a.sent[0]!.url).toBe('http://wb/api/finance/v1/acquiring/detailed');
    expect(a.sent[0]!.body).toEqual({ dateFrom: '2026-01-05', dateTo: '2026-01-11', limit: 10_000, rrdId: 4 });
    expect(out).toEqual({
      kind: 'ok',
      value: [
        expect.objectContaining({ rrdId: 5, nmId: 101, acquiringFee: 1234, saleDate: '2026-01-06' }),
        expect.objectContaining({ rrdId: 6, nmId: 102, acquiringFee: 750 }),
      ],
    });
  });

  it.each([
    ['a fee in words', [row(1, 101, 'сто')]],
    ['no card', [{ ...row(1, 101, '1'), nmId: null }]],
    ['an rrdId as text', [{ ...row(1, 101, '1'), rrdId: '1' }]],
    ['an rrdId past 2^53', [{ ...row(1, 101, '1'), rrdId: 2 ** 60 }]],
    ['a date that is no date', [{ ...row(1, 101, '1'), saleDate: 'вчера' }]],
    ['an object, not a list', { data: [row(1, 101, '1')] }],
  ])('refuses %s as an invalid answer', async (_, body) => {
    const client = createAcquiringClient({ baseUrl: 'http://wb', token: 't', fetch: answering(200, body).fetch });
    const out = await client.detailed({ dateFrom: '2026-01-05', dateTo: '2026-01-11', rrdId: 0 });
    expect(out.kind).toBe('invalid_response');
  });

  it('reads broken JSON as invalid and 204 or [] as no rows', async () => {
    const q = { dateFrom: '2026-01-05', dateTo: '2026-01-11', rrdId: 0 };
    const broken = createAcquiringClient({
      baseUrl: 'http://wb',
      token: 't',
      fetch: answering(200, '[{"rrdId":').fetch,
    });
    expect((await broken.detailed(q)).kind).toBe('invalid_response');
    const none = createAcquiringClient({ baseUrl: 'http://wb', token: 't', fetch: answering(204).fetch });
    expect((await none.detailed(q)).kind).toBe('empty');
    const empty = createAcquiringClient({ baseUrl: 'http://wb', token: 't', fetch: answering(200, []).fetch });
    expect((await empty.detailed(q)).kind).toBe('empty');
  });
});

describe('acquiringToCosts', () => {
  it('sums per day and card, returns negative, days kept inside the period', () => {
    const rows = acquiringPageSchema.parse([
      row(1, 101, '10.00'),
      row(2, 101, '5.50'),
      row(3, 101, '2.00', { docTypeName: 'Возврат' }),
      row(4, 102, '3.00', { saleDate: '2026-01-01T00:00:00' }),
      row(5, 103, '1.00', { saleDate: undefined, acqDate: '2026-01-08T10:00:00' }),
      row(6, 104, '0'),
    ]);
    expect(acquiringToCosts(rows, '2026-01-05', '2026-01-11')).toEqual([
      { date: '2026-01-06', nmId: 101, kopecks: 1350 },
      { date: '2026-01-05', nmId: 102, kopecks: 300 },
      { date: '2026-01-08', nmId: 103, kopecks: 100 },
    ]);
  });
});

describe('acquiringNext', () => {
  const first = acquiringSource({ baseUrl: () => 'http://wb', intervalMs: () => 60_000 }).first(
    '2026-01-05',
    '2026-01-11',
  );
  const rows = acquiringPageSchema.parse([row(7, 101, '1.00'), row(9, 102, '2.00')]);

  it('stores a page as its own part over the whole period and asks for the next from its last rrdId', () => {
    const r = acquiringNext(first, { kind: 'ok', value: rows }, '2026-01-05', '2026-01-11', 60_000);
    expect(r.state.call).toEqual({ from: '2026-01-05', to: '2026-01-11', rrdId: 9 });
    expect(r.batches).toEqual([
      {
        part: 'r0',
        from: '2026-01-05',
        to: '2026-01-11',
        costs: [
          { date: '2026-01-06', nmId: 101, kopecks: 100 },
          { date: '2026-01-06', nmId: 102, kopecks: 200 },
        ],
      },
    ]);
    expect(r.waitMs).toBe(60_000);
  });

  it('ends at 204, storing an empty part (the period is fetched even with nothing billed)', () => {
    const r = acquiringNext(first, { kind: 'empty' }, '2026-01-05', '2026-01-11', 60_000);
    expect(r.state.call).toBeNull();
    expect(r.batches).toEqual([{ part: 'r0', from: '2026-01-05', to: '2026-01-11', costs: [] }]);
  });

  it('retries a page that does not move the cursor on, and WB trouble; gives up a refused request', () => {
    const at9 = { call: { from: '2026-01-05', to: '2026-01-11', rrdId: 9 }, memo: {} };
    expect(acquiringNext(at9, { kind: 'ok', value: rows }, '2026-01-05', '2026-01-11', 1000)).toMatchObject({
      retry: true,
      batches: [],
      state: at9,
    });
    expect(
      acquiringNext(first, { kind: 'invalid_response', message: 'x' }, '2026-01-05', '2026-01-11', 1000),
    ).toMatchObject({ retry: true, waitMs: 2000, batches: [] });
    expect(
      acquiringNext(
        first,
        { kind: 'rate_limited', retryAfterSeconds: 30, limit: 1, remaining: 0, resetSeconds: 30 },
        '2026-01-05',
        '2026-01-11',
        1000,
      ),
    ).toMatchObject({ retry: true, waitMs: 30_000 });
    expect(acquiringNext(first, { kind: 'forbidden', message: 'no' }, '2026-01-05', '2026-01-11', 1000).refused).toBe(
      'forbidden',
    );
    expect(
      acquiringNext(first, { kind: 'rejected', status: 400, message: 'bad' }, '2026-01-05', '2026-01-11', 1000),
    ).toMatchObject({ gaveUp: 'bad', state: { call: null } });
  });
});

describe('attribution of the acquiring report', () => {
  const article = (name: string, nm: string, billed: number) => ({
    article: name,
    category: '',
    nm_id: nm,
    brand: '',
    aggregates: { ...zeroAggregates(), acquiring_billed: billed, for_pay: 10_000 },
  });

  it("each article's acquiring billed separately is the acquiring report's for its card; the payout's for_pay untouched", () => {
    const out = attributeCosts([article('A', '101', 900), article('B', '102', 100), article('C', '103', 0)], {
      acquiring_billed: { byNm: { '101': 700, '102': 300 }, days: 7 },
    });
    expect(out.articles.map((a) => a.aggregates.acquiring_billed)).toEqual([700, 300, 0]);
    expect(out.articles.map((a) => a.aggregates.for_pay)).toEqual([10_000, 10_000, 10_000]);
    expect(out.summary.acquiring_billed).toMatchObject({ report: 1000, api: 1000, attributed: 1000, remainder: 0 });
  });

  it('a report whose rows bill no acquiring separately (acquiring inside for_pay) keeps its rows', () => {
    const out = attributeCosts([article('A', '101', 0)], { acquiring_billed: { byNm: { '101': 700 }, days: 7 } });
    expect(out.articles[0]!.aggregates.acquiring_billed).toBe(0);
    expect(out.summary.acquiring_billed).toBeUndefined();
  });
});
