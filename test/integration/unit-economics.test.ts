/**
 * An article's unit economics and its what-if against DynamoDB Local (docs/API.md «Unit economics»):
 * three weekly reports of one seller uploaded for real (cost prices set before, one article left
 * without), the middle week uploaded again as .xls and kept (it must count once), then GET over the last
 * two weeks compared with the sums of the reports' own items, POST what-if both ways, and the 404/422s.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/analytics/get.handler';
import { handler as putProductHandler } from '../../functions/products/put.handler';
import type { ArticleUnitEconomics, WhatIf } from '../../shared/contract';
import type { ApiReport } from '../../shared/reports/present-report';
import { apiEvent, bodyOf } from '../support/test-event';
import { getReportOk, makeReport, newUser, uploadOk, type TestUser } from '../support/reports';

const SELLER = '777034';
/** Seed s → the week of 2026-01-05 + 7·(s mod 20) (2026 layout). */
function week(seed: number, format: 'xlsx' | 'xls' = 'xlsx') {
  const g = makeReport({ seed, rows: 240, articles: 8, format });
  return { ...g, filename: `Еженедельный детализированный отчет №${g.expected.report_number}_${SELLER}.${format}` };
}

type ErrorBody = { error: { code: string; message: string; details?: Record<string, unknown> } };
const path = (article: string, tail: string) => `/api/articles/${encodeURIComponent(article)}/${tail}`;
const get = (u: TestUser, article: string, query: Record<string, string> = {}) =>
  handler(
    apiEvent({
      method: 'GET',
      path: path(article, 'unit-economics'),
      token: u.token,
      pathParameters: { article },
      query,
    }),
  );
const post = (u: TestUser, article: string, body: Record<string, unknown>) =>
  handler(
    apiEvent({ method: 'POST', path: path(article, 'what-if'), token: u.token, pathParameters: { article }, body }),
  );
const kop = (roubles: number | null | undefined) => Math.round((roubles ?? 0) * 100);

describe('unit economics over an article’s last weeks', () => {
  let u: TestUser;
  let priced: string;
  let unpriced: string;
  let reports: ApiReport[];
  /** The middle week's .xls copy: of two copies of a week the newer counts (as analytics and the P&L count). */
  let copy: string;

  beforeAll(async () => {
    u = await newUser(1_000_000, 'unit-economics');
    const weeks = [3, 4, 5].map((s) => week(s));
    const selling = (w: (typeof weeks)[number]) =>
      new Set(w.expected.articles.filter((a) => a.article !== '' && a.aggregates.sales_qty > 2).map((a) => a.article));
    const sets = weeks.map(selling);
    const common = [...sets[0]!].filter((a) => sets[1]!.has(a) && sets[2]!.has(a)).sort();
    expect(common.length).toBeGreaterThanOrEqual(2);
    [priced, unpriced] = common as [string, string];
    // Cost prices first, so the reports are built with them: every article but `unpriced`.
    const all = new Set(weeks.flatMap((w) => w.expected.articles.map((a) => a.article)).filter((a) => a !== ''));
    for (const article of all) {
      if (article === unpriced) continue;
      const r = await putProductHandler(
        apiEvent({
          method: 'PUT',
          path: `/api/products/${encodeURIComponent(article)}`,
          token: u.token,
          pathParameters: { article },
          body: { cost_price: article === priced ? 350.5 : 200 },
        }),
      );
      expect(r.statusCode, r.body).toBe(200);
    }
    const ids: string[] = [];
    for (const w of weeks) ids.push((await uploadOk(u.token, w)).id);
    // The middle week again, as .xls, kept on purpose: its rows must count once.
    copy = (await uploadOk(u.token, week(4, 'xls'), { allow_duplicate: 'true' })).id;
    reports = await Promise.all([ids[0]!, copy, ids[2]!].map((id) => getReportOk(u.token, id)));
  }, 180_000);

  it('the per-unit lines are the sums of the last two weeks’ items divided by the units sold', async () => {
    const r = await get(u, priced, { weeks: '2' });
    expect(r.statusCode, r.body).toBe(200);
    const ue = bodyOf<ArticleUnitEconomics>(r);
    const newest = [reports[2]!, reports[1]!];
    expect(ue.weeks.map((w) => [w.report_id, w.period_from])).toEqual(newest.map((x) => [x.id, x.period_from]));
    expect(ue.weeks_asked).toBe(2);

    const items = newest.map((x) => x.items.find((i) => i.article === priced)!.effective);
    const sum = (f: string) => items.reduce((s, v) => s + kop(v[f]), 0);
    const units = items.reduce((s, v) => s + (v.net_qty ?? 0), 0);
    expect(ue.units).toBe(units);
    expect(ue.sales_qty).toBe(items.reduce((s, v) => s + (v.sales_qty ?? 0), 0));
    const perUnit = (k: number) => Math.round(k / units) / 100;
    expect(ue.price).toBe(perUnit(sum('realization')));
    expect(ue.price_before_discount).toBe(perUnit(sum('seller_price')));
    expect(ue.per_unit).toMatchObject({
      commission: perUnit(sum('commission')),
      logistics: perUnit(sum('logistics')),
      usn: perUnit(sum('usn')),
      cost_price: 350.5,
      profit: perUnit(sum('profit')),
    });
    expect(ue.commission_rate).toBe(Math.round((sum('commission') / sum('realization')) * 10000) / 100);
    expect(ue.margin).toBe(Math.round((sum('profit') / sum('realization')) * 10000) / 100);

    // Four weeks asked, three exist: the duplicate .xls is not a fourth.
    const all = bodyOf<ArticleUnitEconomics>(await get(u, priced));
    expect(all.weeks_asked).toBe(4);
    expect(all.weeks.map((w) => w.report_id)).toEqual([reports[2]!.id, reports[1]!.id, reports[0]!.id]);
    expect(all.units).toBe(
      reports.reduce((s, x) => s + (x.items.find((i) => i.article === priced)!.effective.net_qty ?? 0), 0),
    );
  });

  it('what-if: the price for 20 % gives 20 % back; a typed price gives its margin', async () => {
    const target = await post(u, priced, { margin: 20, weeks: 2 });
    expect(target.statusCode, target.body).toBe(200);
    const t = bodyOf<WhatIf>(target);
    expect(t.reason).toBeNull();
    expect(t.margin).toBe(20);
    expect(t.report_ids).toEqual([reports[2]!.id, copy]);
    expect(t.price_before_discount!).toBeGreaterThanOrEqual(t.price!);

    const at = bodyOf<WhatIf>(await post(u, priced, { price: t.price_before_discount, weeks: 2 }));
    expect(at.margin).toBeGreaterThanOrEqual(20);
    expect(at.margin).toBeLessThan(20.05);
    // At today's price before WB's discount the margin is the weeks' own.
    const ue = bodyOf<ArticleUnitEconomics>(await get(u, priced, { weeks: '2' }));
    const today = bodyOf<WhatIf>(await post(u, priced, { price: ue.price_before_discount, weeks: 2 }));
    expect(Math.abs(today.margin! - ue.margin!)).toBeLessThan(0.1);

    const none = bodyOf<WhatIf>(await post(u, priced, { margin: 99.9 }));
    expect(none).toMatchObject({ price: null, price_before_discount: null, margin: null, reason: 'unreachable' });
  });

  it('an article without a cost price: 422 cost_price_missing naming it, in Russian', async () => {
    for (const r of [await get(u, unpriced), await post(u, unpriced, { margin: 20 })]) {
      expect(r.statusCode).toBe(422);
      const e = bodyOf<ErrorBody>(r).error;
      expect(e.code).toBe('cost_price_missing');
      expect(e.message).toContain(`«${unpriced}»`);
      expect(e.message).toContain('себестоимост');
      expect(e.details?.article).toBe(unpriced);
    }
  });

  it('unknown article 404; bad weeks, price and margin 422 naming the field; another user sees nothing', async () => {
    const unknown = await get(u, 'НЕТ-ТАКОГО/артикула');
    expect(unknown.statusCode).toBe(404);
    expect(bodyOf<ErrorBody>(unknown).error).toMatchObject({
      code: 'article_not_found',
      details: { article: 'НЕТ-ТАКОГО/артикула' },
    });
    for (const [r, field] of [
      [await get(u, priced, { weeks: '0' }), 'weeks'],
      [await get(u, priced, { weeks: '53' }), 'weeks'],
      [await get(u, priced, { weeks: 'four' }), 'weeks'],
      [await post(u, priced, { price: 0 }), 'price'],
      [await post(u, priced, { price: 100, margin: 10 }), 'price'],
      [await post(u, priced, {}), 'price'],
      [await post(u, priced, { margin: 100 }), 'margin'],
    ] as const) {
      expect(r.statusCode, r.body).toBe(422);
      expect(bodyOf<ErrorBody>(r).error).toMatchObject({ code: 'invalid_unit_input', details: { field } });
    }
    const other = await newUser(1000, 'unit-economics-other');
    expect((await get(other, priced)).statusCode).toBe(404);
    expect(bodyOf<ErrorBody>(await get(u, priced, { seller_id: 'no-such-seller' })).error.code).toBe(
      'seller_not_found',
    );
  });
});
