/**
 * Period analytics against the emulators (docs/API.md: GET /api/analytics, /export). One seller's weekly
 * reports uploaded for real — cost prices set before, a correction, a duplicate (xlsx, then the same week
 * as xls), a combined report, a week missing, a report still building, one left stale by a later price
 * change (the others rebuilt), a summary lost and rebuilt on read, another seller of the same user and
 * another user — and every figure compared with what the engine gives for the same files, summed and
 * ranked here independently.
 */
import { QueryCommand, DeleteCommand } from '@aws-sdk/lib-dynamodb';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as analyticsExportHandler } from '../../functions/analytics/export.handler';
import { handler as analyticsHandler } from '../../functions/analytics/get.handler';
import { handler as combineHandler } from '../../functions/reports/combine.handler';
import { handler as deleteHandler } from '../../functions/reports/delete.handler';
import { handler as manualValueHandler } from '../../functions/reports/manual-value.handler';
import { handler as putProductHandler } from '../../functions/products/put.handler';
import { handler as rebuildOneHandler } from '../../functions/reports/rebuild-one.handler';
import { apiEvent, bodyOf } from '../support/test-event';
import { applyManualValue, DEFAULT_TAX_PROFILE, percentOf, type ComputedItem } from '../../shared/engine';
import type { ApiReport } from '../../shared/reports/present-report';
import { ddb, tableName } from '../../shared/store/client';
import { summaryKey } from '../../shared/store/keys';
import { listSellers } from '../../shared/store/sellers.repo';
import {
  chargedProcessingReport,
  engineItems,
  getReportOk,
  makeReport,
  newUser,
  rub,
  uploadOk,
  type TestUser,
} from '../support/reports';

const SELLER = '777001';
const OTHER_SELLER = '888002';
const FIELDS = ['realization', 'for_pay', 'payout', 'profit', 'sales_qty', 'returns_qty', 'expenses'] as const;
const MONEY = new Set(['realization', 'for_pay', 'payout', 'profit', 'expenses']);

/** A generated week (2026 layout: seed s → the week of 2026-01-05 + 7·(s mod 20)) named for `seller`. */
function week(seed: number, seller = SELLER, format: 'xlsx' | 'xls' = 'xlsx') {
  const g = makeReport({ seed, rows: 240, articles: 12, format });
  const filename = `Еженедельный детализированный отчет №${g.expected.report_number}_${seller}.${format}`;
  return { ...g, filename };
}
const monday = (seed: number) => {
  const d = new Date(Date.UTC(2026, 0, 5 + 7 * (seed % 20)));
  return d.toISOString().slice(0, 10);
};
const sunday = (seed: number) => {
  const d = new Date(Date.UTC(2026, 0, 11 + 7 * (seed % 20)));
  return d.toISOString().slice(0, 10);
};

type Json = Record<string, unknown>;
interface ApiAnalytics {
  range: { from: string; to: string };
  previous_range: { from: string; to: string };
  weeks: Array<Json & { period_from: string; period_to: string; report_ids: string[] }>;
  totals: Json;
  previous: Json & { change: Record<string, number | null> };
  articles: Array<Json & { article: string }>;
  margin_groups: Record<string, { count: number; realization: number; profit: number }>;
  warnings: Array<{ code: string; message: string; details: Json }>;
  available: { report_count: number; first_week: string | null; last_week: string | null };
  history?: { article: string; weeks: Json[] };
}

const analytics = (token: string, query: Record<string, string> = {}) =>
  analyticsHandler(apiEvent({ method: 'GET', path: '/api/analytics', token, query }));
async function analyticsOk(token: string, query: Record<string, string> = {}): Promise<ApiAnalytics> {
  const r = await analytics(token, query);
  expect(r.statusCode, r.body).toBe(200);
  return bodyOf<ApiAnalytics>(r);
}

async function setPrice(u: TestUser, article: string, roubles: number, validFrom?: string) {
  const r = await putProductHandler(
    apiEvent({
      method: 'PUT',
      path: `/api/products/${encodeURIComponent(article)}`,
      token: u.token,
      pathParameters: { article },
      body: validFrom ? { cost_price: roubles, valid_from: validFrom } : { cost_price: roubles },
    }),
  );
  expect(r.statusCode, r.body).toBe(200);
}

async function rebuild(u: TestUser, id: string) {
  const r = await rebuildOneHandler(
    apiEvent({ method: 'POST', path: `/api/reports/${id}/rebuild`, token: u.token, pathParameters: { id } }),
  );
  expect(r.statusCode, r.body).toBe(200);
}

async function combine(u: TestUser, ids: string[]): Promise<string> {
  let job = bodyOf<{ job_id: string; status: string; report_id?: string }>(
    await combineHandler(
      apiEvent({ method: 'POST', path: '/api/reports/combine', token: u.token, body: { report_ids: ids } }),
    ),
  );
  for (let i = 0; i < 300 && job.status !== 'done' && job.status !== 'failed'; i++) {
    await new Promise((res) => setTimeout(res, 100));
    job = bodyOf(
      await combineHandler(
        apiEvent({
          method: 'GET',
          path: `/api/reports/combine-status/${job.job_id}`,
          token: u.token,
          pathParameters: { job_id: job.job_id },
        }),
      ),
    );
  }
  expect(job.status).toBe('done');
  return job.report_id as string;
}

// ---------------------------------------------------------------------------------------------
// The expected figures, computed here from the engine's items.

type Figures = Record<(typeof FIELDS)[number], number>;
function weekFigures(items: ComputedItem[]): Figures {
  const f = Object.fromEntries(FIELDS.map((k) => [k, 0])) as Figures;
  for (const it of items) for (const k of FIELDS) f[k] += it.effective[k] ?? 0;
  return f;
}
function sum(list: Figures[]): Figures {
  const f = Object.fromEntries(FIELDS.map((k) => [k, 0])) as Figures;
  for (const x of list) for (const k of FIELDS) f[k] += x[k];
  return f;
}
/** The API's rendering of kopeck figures: roubles for money, margin from the sums. */
function asApi(f: Figures): Json {
  const out: Json = {};
  for (const k of FIELDS) out[k] = MONEY.has(k) ? rub(f[k]) : f[k];
  out.margin = f.realization > 0 ? percentOf(f.profit, f.realization) : null;
  return out;
}
function expectedAbc(values: Array<[string, number]>): Map<string, string> {
  const ranked = values.filter(([a]) => a !== '').sort((x, y) => (y[1] !== x[1] ? y[1] - x[1] : x[0] < y[0] ? -1 : 1));
  const positive = ranked.filter(([, v]) => v > 0).reduce((s, [, v]) => s + v, 0);
  const out = new Map<string, string>();
  let above = 0;
  for (const [a, v] of ranked) {
    const share = above / positive;
    out.set(a, v <= 0 ? 'C' : share < 0.8 ? 'A' : share < 0.95 ? 'B' : 'C');
    if (v > 0) above += v;
  }
  return out;
}

describe('GET /api/analytics', () => {
  let u: TestUser;
  let other: TestUser;
  const ids: Record<string, string> = {};
  const expectedItems: Record<string, ComputedItem[]> = {};
  let sellerId = '';
  let otherSellerId = '';
  let a1 = '';
  let a2 = '';

  beforeAll(async () => {
    u = await newUser(1_000_000, 'analytics');
    other = await newUser(1_000_000, 'analytics-other');
    const tax = DEFAULT_TAX_PROFILE;
    // Cost prices before the uploads: two articles with sales.
    const w2 = week(2);
    const sold = w2.expected.articles.filter((a) => a.article !== '' && a.aggregates.sales_qty > 0);
    [a1, a2] = [sold[0]!.article, sold[1]!.article];
    await setPrice(u, a1, 350);
    await setPrice(u, a2, 120);
    const before = { [a1]: 35000, [a2]: 12000 };
    const after = { [a1]: 40000, [a2]: 12000 };

    // Weeks 2, 3 (the previous range), 4, 6 (twice: xlsx, then xls), 7 with a correction; week 5 missing.
    for (const s of [2, 3, 4]) ids[`w${s}`] = (await uploadOk(u.token, week(s))).id;
    ids.w6old = (await uploadOk(u.token, week(6))).id;
    const w6 = week(6, SELLER, 'xls');
    ids.w6 = (await uploadOk(u.token, w6, { allow_duplicate: 'true' })).id;
    const w7report = await uploadOk(u.token, week(7));
    ids.w7 = w7report.id;

    // A correction on week 7 (counted) and one on the older week 6 (left out: must not count).
    const corrected = w7report.items.find((i) => i.article === a1) as ApiReport['items'][number];
    const newRealization = Math.round((corrected.computed.realization as number) * 100 + 150_000) / 100;
    const put = await manualValueHandler(
      apiEvent({
        method: 'PUT',
        path: `/api/reports/items/${corrected.item_id}/manual-value`,
        token: u.token,
        pathParameters: { item_id: corrected.item_id },
        body: { field: 'realization', value: newRealization },
      }),
    );
    expect(put.statusCode, put.body).toBe(200);
    const old6 = await getReportOk(u.token, ids.w6old);
    const oldItem = old6.items.find((i) => i.article === a2) as ApiReport['items'][number];
    expect(
      (
        await manualValueHandler(
          apiEvent({
            method: 'PUT',
            path: `/api/reports/items/${oldItem.item_id}/manual-value`,
            token: u.token,
            pathParameters: { item_id: oldItem.item_id },
            body: { field: 'profit', value: 99_999 },
          }),
        )
      ).statusCode,
    ).toBe(200);

    // A combined report of weeks 4 and 6: left out, its sources count.
    ids.combined = await combine(u, [ids.w4!, ids.w6]);

    // The price of a1 changes for the whole year; every report but week 6 is rebuilt with it, so week 6
    // stays stale.
    await setPrice(u, a1, 400, '2026-01-01');
    for (const k of ['w2', 'w3', 'w4', 'w7']) await rebuild(u, ids[k]!);

    // Another seller of the same user in week 4, and a report still building in week 4.
    // Its own rows (seed 44 is week 4 too): the same rows under another name would be the same report.
    const otherSeller = await uploadOk(u.token, week(44, OTHER_SELLER));
    ids.otherSeller = otherSeller.id;
    otherSellerId = otherSeller.seller?.id as string;
    ids.building = (await chargedProcessingReport(u.id, makeReport({ seed: 24, rows: 40 }))).id;
    // Another user, same week.
    const foreign = await uploadOk(other.token, week(4, '999003'));
    ids.foreign = foreign.id;

    sellerId = w7report.seller?.id as string;

    // The summary of week 4 is lost (a write that failed): analytics rebuilds it from the items.
    await ddb().send(new DeleteCommand({ TableName: tableName(), Key: summaryKey(u.id, ids.w4!, 0) }));

    for (const s of [2, 3, 4]) expectedItems[`w${s}`] = await engineItems(week(s), tax, after);
    expectedItems.w6 = await engineItems(w6, tax, before);
    const w7items = await engineItems(week(7), tax, after);
    expectedItems.w7 = w7items.map((it) =>
      it.article === a1 ? applyManualValue(it, 'realization', Math.round(newRealization * 100), tax) : it,
    );
    expectedItems.otherSeller = await engineItems(week(44, OTHER_SELLER), tax, after);
  }, 300_000);

  it('answers the weeks, totals, previous range, ABC and margin groups of the counted reports, exactly', async () => {
    const r = await analyticsOk(u.token, { from: monday(4), to: sunday(7), seller_id: sellerId });
    expect(r.range).toEqual({ from: monday(4), to: sunday(7) });
    expect(r.previous_range).toEqual({ from: monday(0), to: sunday(3) });

    const weekOf: Record<string, string[]> = { 4: ['w4'], 5: [], 6: ['w6'], 7: ['w7'] };
    expect(r.weeks.map((w) => [w.period_from, w.period_to, w.report_ids])).toEqual(
      [4, 5, 6, 7].map((s) => [monday(s), sunday(s), weekOf[s]!.map((k) => ids[k])]),
    );
    const figs: Record<string, Figures> = Object.fromEntries(
      Object.entries(expectedItems).map(([k, items]) => [k, weekFigures(items)]),
    );
    for (const [i, s] of [4, 5, 6, 7].entries()) {
      const { period_from: _f, period_to: _t, report_ids: _r, ...values } = r.weeks[i]!;
      expect(values, `week ${s}`).toEqual(asApi(sum(weekOf[s]!.map((k) => figs[k]!))));
    }
    const total = sum([figs.w4!, figs.w6!, figs.w7!]);
    expect(r.totals).toEqual(asApi(total));
    const prev = sum([figs.w2!, figs.w3!]);
    const { change, ...previous } = r.previous;
    expect(previous).toEqual(asApi(prev));
    for (const k of FIELDS)
      expect(change[k], k).toBe(prev[k] === 0 ? null : percentOf(total[k] - prev[k], Math.abs(prev[k])));
    const m = (f: Figures) => percentOf(f.profit, f.realization);
    expect(change.margin).toBe(Math.round((m(total) - m(prev)) * 100) / 100);

    // Articles over the range, ranked here.
    const perArticle = new Map<
      string,
      { realization: number; profit: number; sales_qty: number; returns_qty: number }
    >();
    for (const k of ['w4', 'w6', 'w7'])
      for (const it of expectedItems[k]!) {
        const x = perArticle.get(it.article) ?? { realization: 0, profit: 0, sales_qty: 0, returns_qty: 0 };
        x.realization += it.effective.realization ?? 0;
        x.profit += it.effective.profit ?? 0;
        x.sales_qty += it.effective.sales_qty ?? 0;
        x.returns_qty += it.effective.returns_qty ?? 0;
        perArticle.set(it.article, x);
      }
    const abcR = expectedAbc([...perArticle].map(([a, x]) => [a, x.realization]));
    const abcP = expectedAbc([...perArticle].map(([a, x]) => [a, x.profit]));
    expect(new Set([...abcR.values()])).toEqual(new Set(['A', 'B', 'C']));
    const groups: Record<string, { count: number; realization: number; profit: number }> = {
      high: { count: 0, realization: 0, profit: 0 },
      low: { count: 0, realization: 0, profit: 0 },
      loss: { count: 0, realization: 0, profit: 0 },
    };
    expect(r.articles).toHaveLength(perArticle.size);
    const got = new Map(r.articles.map((a) => [a.article, a]));
    for (const [a, x] of perArticle) {
      const margin = x.realization > 0 ? percentOf(x.profit, x.realization) : null;
      const group =
        a === ''
          ? null
          : margin === null
            ? x.profit < 0
              ? 'loss'
              : 'low'
            : margin >= 20
              ? 'high'
              : margin >= 0
                ? 'low'
                : 'loss';
      if (group) {
        groups[group]!.count++;
        groups[group]!.realization += x.realization;
        groups[group]!.profit += x.profit;
      }
      expect(got.get(a), a).toEqual({
        article: a,
        realization: rub(x.realization),
        profit: rub(x.profit),
        margin,
        sales_qty: x.sales_qty,
        returns_qty: x.returns_qty,
        abc_revenue: abcR.get(a) ?? null,
        abc_profit: abcP.get(a) ?? null,
        margin_group: group,
      });
    }
    expect(r.margin_groups).toEqual(
      Object.fromEntries(
        Object.entries(groups).map(([g, v]) => [
          g,
          { count: v.count, realization: rub(v.realization), profit: rub(v.profit) },
        ]),
      ),
    );

    // Warnings: the missing week, the duplicate, the building report, the stale week 6.
    const codes = r.warnings.map((w) => [w.code, w.details]);
    expect(codes).toContainEqual([
      'missing_week',
      {
        period_from: monday(5),
        period_to: sunday(5),
        weeks: 1,
        ranges: [{ period_from: monday(5), period_to: sunday(5) }],
      },
    ]);
    expect(r.warnings.find((w) => w.code === 'missing_week')?.message).toBe(
      `нет отчёта за ${monday(5).slice(8)}.${monday(5).slice(5, 7)}–${sunday(5).slice(8)}.${sunday(5).slice(5, 7)}`,
    );
    expect(codes).toContainEqual(['duplicate_report', { report_id: ids.w6old, kept_report_id: ids.w6 }]);
    expect(codes).toContainEqual(['stale_report', { report_id: ids.w6 }]);
    expect(r.warnings.filter((w) => w.code === 'stale_report')).toHaveLength(1);
    expect(r.warnings.map((w) => w.code).sort()).toEqual(['duplicate_report', 'missing_week', 'stale_report']);
  });

  it('counts every seller without the filter, and says what is still building', async () => {
    const r = await analyticsOk(u.token, { from: monday(4), to: sunday(7) });
    expect(r.weeks[0]!.report_ids.sort()).toEqual([ids.w4, ids.otherSeller].sort());
    const total = sum([...['w4', 'w6', 'w7', 'otherSeller'].map((k) => weekFigures(expectedItems[k]!))]);
    expect(r.totals).toEqual(asApi(total));
    expect(r.warnings.map((w) => [w.code, w.details])).toContainEqual([
      'report_processing',
      { report_id: ids.building },
    ]);
    const bySeller = await analyticsOk(u.token, { from: monday(4), to: sunday(7), seller_id: otherSellerId });
    expect(bySeller.weeks.flatMap((w) => w.report_ids)).toEqual([ids.otherSeller]);
  });

  it('defaults to the last 12 weeks with reports and gives one article its weekly history', async () => {
    const r = await analyticsOk(u.token, { seller_id: sellerId, article: a1 });
    expect(r.range).toEqual({ from: monday(2), to: sunday(7) });
    expect(r.available).toEqual({ report_count: 5, first_week: monday(2), last_week: monday(7) });
    const profitOf = (k: string) => expectedItems[k]!.find((i) => i.article === a1)?.effective.profit ?? 0;
    expect(r.history?.weeks.map((w) => [w.period_from, w.profit])).toEqual([
      [monday(2), rub(profitOf('w2'))],
      [monday(3), rub(profitOf('w3'))],
      [monday(4), rub(profitOf('w4'))],
      [monday(5), 0],
      [monday(6), rub(profitOf('w6'))],
      [monday(7), rub(profitOf('w7'))],
    ]);
  });

  it('keeps users apart: a foreign seller is 404, nothing of another user in any figure', async () => {
    const foreignSeller = (await analyticsOk(other.token)).weeks.flatMap((w) => w.report_ids);
    expect(foreignSeller).toEqual([ids.foreign]);
    const otherMe = await analyticsOk(other.token, { from: monday(4), to: sunday(7) });
    expect(otherMe.totals).toEqual(asApi(weekFigures(await engineItems(week(4, '999003'), DEFAULT_TAX_PROFILE, {}))));
    const [theirSeller] = await listSellers(other.id);
    const r = await analytics(u.token, { seller_id: theirSeller!.id });
    expect(r.statusCode).toBe(404);
    expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('seller_not_found');
    const mine = await analyticsOk(u.token, { from: monday(4), to: sunday(7) });
    expect(mine.weeks.flatMap((w) => w.report_ids)).not.toContain(ids.foreign);
  });

  it('refuses a malformed range with a stable code', async () => {
    for (const q of [
      { from: '2026-02-30', to: '2026-03-01' },
      { from: '2026-03-01', to: '2026-02-01' },
      { from: '2026-03-01' },
    ]) {
      const r = await analytics(u.token, q as Record<string, string>);
      expect(r.statusCode).toBe(400);
      expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('invalid_range');
    }
  });

  it('exports the same figures as XLSX with weeks, articles and margin groups', async () => {
    const r = await analyticsExportHandler(
      apiEvent({
        method: 'GET',
        path: '/api/analytics/export',
        token: u.token,
        query: { from: monday(4), to: sunday(7), seller_id: sellerId },
      }),
    );
    expect(r.statusCode).toBe(200);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(r.body ?? '', r.isBase64Encoded ? 'base64' : 'utf8') as never);
    const json = await analyticsOk(u.token, { from: monday(4), to: sunday(7), seller_id: sellerId });
    const weeks = wb.getWorksheet('Недели');
    expect(weeks).toBeDefined();
    // Header on row 3, one row per week, then the totals.
    expect(weeks?.getRow(4 + 4).getCell(1).value).toBe('Итого');
    expect(weeks?.getRow(4 + 4).getCell(4).value).toBe(json.totals.realization);
    expect(weeks?.getRow(4 + 4).getCell(8).value).toBe(json.totals.profit);
    const arts = wb.getWorksheet('Артикулы');
    expect(arts?.rowCount).toBe(json.articles.length + 1);
    const first = json.articles[0]!;
    expect(arts?.getRow(2).getCell(2).value).toBe(first.realization);
    expect(arts?.getRow(2).getCell(7).value).toBe(first.abc_revenue ?? '');
    expect(wb.getWorksheet('Группы маржи')?.getRow(2).getCell(2).value).toBe(json.margin_groups.high!.count);
  });

  it('removes a deleted report summary and its duplicate warning', async () => {
    const r = await deleteHandler(
      apiEvent({
        method: 'DELETE',
        path: `/api/reports/${ids.w6old}`,
        token: u.token,
        pathParameters: { id: ids.w6old! },
      }),
    );
    expect(r.statusCode).toBe(204);
    const left = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
        ExpressionAttributeValues: { ':pk': `USER#${u.id}`, ':sk': `SUMMARY#${ids.w6old}#` },
      }),
    );
    expect(left.Items).toEqual([]);
    const after = await analyticsOk(u.token, { from: monday(4), to: sunday(7), seller_id: sellerId });
    expect(after.warnings.map((w) => w.code)).not.toContain('duplicate_report');
  });
});
