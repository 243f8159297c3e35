/**
 * list, get and delete in-process against the emulators: newest first with cursor paging and the
 * seller filter; get with items, totals, commission by category, warnings and the stale flag; delete
 * removes items, record and source but refunds nothing; another user gets 404 everywhere.
 */
import { gunzipSync } from 'node:zlib';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as deleteHandler } from '../../functions/reports/delete.handler';
import { handler as getHandler } from '../../functions/reports/get.handler';
import { handler as listHandler } from '../../functions/reports/list.handler';
import { handler as manualValueHandler } from '../../functions/reports/manual-value.handler';
import { handler as rebuildManyHandler } from '../../functions/reports/rebuild-many.handler';
import { handler as rebuildOneHandler } from '../../functions/reports/rebuild-one.handler';
import { apiEvent, bodyOf } from '../support/test-event';
import { kopecksToRoubles } from '../../shared/engine';
import type { ApiReport, ApiReportColumns, ApiReportSummary } from '../../shared/reports/present-report';
import { WHOLE_CATALOG_FROM_ITEMS } from '../../shared/reports/worker/report-settings';
import { ddb, tableName } from '../../shared/store/client';
import { putProduct } from '../../shared/store/products.repo';
import { listSellers, updateSeller } from '../../shared/store/sellers.repo';
import { getUserById, updateTax } from '../../shared/store/users.repo';
import { getReportOk, makeReport, newUser, objectExists, uploadMultipart, uploadOk } from '../support/reports';

const get = (token: string, id: string) =>
  getHandler(apiEvent({ method: 'GET', path: `/api/reports/${id}`, token, pathParameters: { id } }));
const del = (token: string, id: string) =>
  deleteHandler(apiEvent({ method: 'DELETE', path: `/api/reports/${id}`, token, pathParameters: { id } }));
const list = (token: string, query: Record<string, string> = {}) =>
  listHandler(apiEvent({ method: 'GET', path: '/api/reports', token, query }));

describe('get', () => {
  it('answers the uploaded report with items, totals, commission by category and warnings', async () => {
    const u = await newUser();
    const g = makeReport({ rows: 200, seed: 41, unknownOperations: ['Загадочная операция'] });
    const uploaded = await uploadOk(u.token, g);
    const report = await getReportOk(u.token, uploaded.id);
    expect(report).toEqual({ ...uploaded, stale: false });
    expect(report.items).toHaveLength(g.expected.articles.length);
    expect(report.warnings.map((w) => w.code)).toContain('unknown_operation');
    const sum = (f: string) => report.items.reduce((s, i) => s + Math.round((i.effective[f] ?? 0) * 100), 0);
    expect(Math.round(report.totals.profit! * 100)).toBe(sum('profit'));
    expect(Math.round(report.totals.payout! * 100)).toBe(sum('payout'));
    for (const c of report.commission_by_category) {
      const inCat = report.items.filter((i) => i.category === c.category);
      expect(Math.round(c.realization * 100)).toBe(
        inCat.reduce((s, i) => s + Math.round(i.effective.realization! * 100), 0),
      );
      expect(Math.round(c.commission * 100)).toBe(
        inCat.reduce((s, i) => s + Math.round(i.effective.commission! * 100), 0),
      );
    }
  });

  it('is stale once a cost price or the tax profile changes, and fresh again after a rebuild', async () => {
    const u = await newUser();
    const g = makeReport({ rows: 80, seed: 42 });
    const { id } = await uploadOk(u.token, g);
    const article = g.expected.articles.find(
      (a) => a.article !== '' && a.aggregates.sales_qty > a.aggregates.returns_qty,
    )!;
    await putProduct(u.id, article.article, 12_345);
    expect((await getReportOk(u.token, id)).stale).toBe(true);

    const rebuilt = await rebuildOneHandler(
      apiEvent({ method: 'POST', path: `/api/reports/${id}/rebuild`, token: u.token, pathParameters: { id } }),
    );
    expect(rebuilt.statusCode).toBe(200);
    const fresh = await getReportOk(u.token, id);
    expect(fresh.stale).toBe(false);
    const item = fresh.items.find((i) => i.article === article.article)!;
    expect(item.computed.cost_price).toBe(123.45);
    const net = article.aggregates.sales_qty - article.aggregates.returns_qty;
    expect(item.computed.cost_total).toBe(kopecksToRoubles(12_345 * net));

    // The report has a seller: the seller's own profile counts, the user's default only without one.
    const [seller] = await listSellers(u.id);
    await updateTax(u.id, { tax_system: 'none', usn_rate: 0, vat_rate: 0 });
    expect((await getReportOk(u.token, id)).stale).toBe(true);
    await updateSeller(u.id, seller!.id, { tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 } });
    expect((await getReportOk(u.token, id)).stale).toBe(false);
    expect((await getUserById(u.id))?.tax.tax_system).toBe('none');
  });

  it('sends a big report gzip-encoded to a client that accepts it (Lambda answers are capped at 6 MB)', async () => {
    const u = await newUser();
    const report = await uploadOk(u.token, makeReport({ rows: 1200, articles: 300, seed: 43 }));
    const plain = await get(u.token, report.id);
    expect(plain.headers?.['Content-Encoding']).toBeUndefined();
    const zipped = await getHandler(
      apiEvent({
        method: 'GET',
        path: `/api/reports/${report.id}`,
        token: u.token,
        pathParameters: { id: report.id },
        headers: { 'accept-encoding': 'gzip, deflate, br' },
      }),
    );
    expect(zipped.statusCode).toBe(200);
    expect(zipped.headers?.['Content-Encoding']).toBe('gzip');
    expect(zipped.isBase64Encoded).toBe(true);
    const bytes = Buffer.from(zipped.body!, 'base64');
    expect(bytes.length).toBeLessThan(plain.body!.length / 4);
    expect(JSON.parse(gunzipSync(bytes).toString('utf8'))).toEqual(JSON.parse(plain.body!));
  });

  it('?items=columns carries the same items as columns; a big report is checked against the whole catalog for stale', async () => {
    const u = await newUser();
    const up = await uploadMultipart(u.token, makeReport({ rows: 1400, articles: 340, seed: 44 }));
    expect([201, 202]).toContain(up.statusCode);
    // A busy machine may answer 202 (processing): follow the report until the worker made it ready.
    let report = bodyOf<{ report: ApiReport }>(up).report;
    for (let i = 0; i < 240 && report.status !== 'ready'; i++) {
      await new Promise((r) => setTimeout(r, 250));
      report = await getReportOk(u.token, report.id);
    }
    expect(report.items.length).toBeGreaterThanOrEqual(WHOLE_CATALOG_FROM_ITEMS);
    const columnsOf = async () => {
      const r = await getHandler(
        apiEvent({
          method: 'GET',
          path: `/api/reports/${report.id}`,
          token: u.token,
          pathParameters: { id: report.id },
          query: { items: 'columns' },
        }),
      );
      expect(r.statusCode).toBe(200);
      return bodyOf<{ report: ApiReportColumns }>(r).report;
    };
    // A correction, so computed and effective differ somewhere.
    const target = report.items[3]!;
    const corrected = await manualValueHandler(
      apiEvent({
        method: 'PUT',
        path: `/api/reports/items/${target.item_id}/manual-value`,
        token: u.token,
        pathParameters: { item_id: target.item_id },
        body: { field: 'logistics', value: 4321.5 },
      }),
    );
    expect(corrected.statusCode).toBe(200);
    const objects = await getReportOk(u.token, report.id);
    const { item_columns: c, ...rest } = await columnsOf();
    const { items, ...restObjects } = objects;
    expect(rest).toEqual(restObjects);
    expect(c.count).toBe(items.length);
    const rebuilt = Array.from({ length: c.count }, (_, r) => {
      const effective: Record<string, number | null> = {};
      c.fields.forEach((f, k) => (effective[f] = c.effective[k]![r]!));
      const computed = { ...effective };
      const manual: Record<string, number | null> = {};
      for (const [f, rows] of Object.entries(c.computed)) if (r in rows) computed[f] = rows[r]!;
      for (const [f, rows] of Object.entries(c.manual_values)) if (r in rows) manual[f] = rows[r]!;
      const reasons: Record<string, string> = {};
      for (const [f, rows] of Object.entries(c.null_reasons)) if (rows && r in rows) reasons[f] = rows[r]!;
      return {
        item_id: c.item_id[r],
        article: c.article[r],
        category: c.category[r],
        nm_id: c.nm_id[r],
        brand: c.brand[r],
        computed,
        manual_values: manual,
        effective,
        null_reasons: reasons,
      };
    });
    expect(rebuilt).toEqual(items);
    expect(rebuilt[3]!.manual_values).toEqual({ logistics: 4321.5 });
    expect(c.computed.logistics).toEqual({ 3: target.computed.logistics });

    // Stale: a price of an article outside the report changes nothing; one inside does.
    expect(rest.stale).toBe(false);
    await putProduct(u.id, 'Не из этого отчёта', 100);
    expect((await columnsOf()).stale).toBe(false);
    const sold = items.find((i) => i.article !== '' && (i.computed.sales_qty ?? 0) > 0)!;
    await putProduct(u.id, sold.article, 77_77);
    expect((await columnsOf()).stale).toBe(true);
    expect((await getReportOk(u.token, report.id)).stale).toBe(true);
  });

  it('malformed and unknown ids are 404, an id over its bound 400', async () => {
    const u = await newUser();
    for (const id of ['nope', '../x', '01ARZ3NDEKTSV4RRFFQ69G5FAV', 'a'.repeat(64)]) {
      const r = await get(u.token, id);
      expect(r.statusCode, id).toBe(404);
      expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('report_not_found');
    }
    // An id longer than any record's is refused before it reaches a store key (over 2 KB DynamoDB would 500).
    for (const id of ['a'.repeat(65), 'a'.repeat(2_100)]) {
      const r = await get(u.token, id);
      expect(r.statusCode, `${id.length} characters`).toBe(400);
      expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('validation_error');
    }
  });
});

describe('list', () => {
  it('pages newest first and filters by seller', async () => {
    const u = await newUser();
    const a = makeReport({ rows: 30, seed: 51 });
    const b = makeReport({ rows: 30, seed: 52 });
    expect(a.expected.seller_number).not.toBe(b.expected.seller_number);
    const ids: string[] = [];
    // The second copy of a is a duplicate on purpose (issue 9: allowed only when asked).
    for (const g of [a, b, a]) ids.push((await uploadOk(u.token, g, { allow_duplicate: 'true' })).id);

    const all: ApiReportSummary[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await listHandler(
        apiEvent({ method: 'GET', path: '/api/reports', token: u.token, query: cursor ? { cursor } : {} }),
      );
      expect(r.statusCode).toBe(200);
      const page = bodyOf<{ items: ApiReportSummary[]; next_cursor: string | null }>(r);
      all.push(...page.items);
      cursor = page.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(all.map((s) => s.id)).toEqual([...ids].reverse());
    const first = all[2]!;
    expect(first).toMatchObject({
      rows: 30,
      is_combined: false,
      source_available: true,
      report_number: a.expected.report_number,
    });
    expect(first.seller?.number).toBe(a.expected.seller_number);
    expect(first).not.toHaveProperty('items');

    const sellerA = (await listSellers(u.id)).find((s) => s.number === a.expected.seller_number)!;
    const bySeller = bodyOf<{ items: ApiReportSummary[] }>(await list(u.token, { seller_id: sellerA.id }));
    expect(bySeller.items.map((s) => s.id)).toEqual([ids[2], ids[0]]);
    expect(bodyOf<{ items: unknown[] }>(await list(u.token, { seller_id: 'unknown' })).items).toEqual([]);
    expect((await list(u.token, { cursor: '!!' })).statusCode).toBe(400);
  });

  it('pages with a small page size without losing or repeating reports', async () => {
    const { listReports } = await import('../../shared/store/reports.repo');
    const u = await newUser();
    const g = makeReport({ rows: 20, seed: 53 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await uploadOk(u.token, g, { allow_duplicate: 'true' })).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof listReports>> = await listReports(u.id, { cursor, limit: 2 });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((r) => r.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });
});

describe('delete', () => {
  it('removes items, record and source; limits are not refunded', async () => {
    const u = await newUser(1000);
    const g = makeReport({ rows: 40, seed: 61 });
    const report = await uploadOk(u.token, g);
    const r = await del(u.token, report.id);
    expect(r.statusCode).toBe(204);
    expect((await get(u.token, report.id)).statusCode).toBe(404);
    expect(await objectExists(report.source_path!)).toBe(false);
    const items = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `ITEMS#${u.id}#${report.id}` },
      }),
    );
    expect(items.Items).toEqual([]);
    expect((await getUserById(u.id))?.limits).toBe(960);
    expect((await del(u.token, report.id)).statusCode).toBe(404);
  });
});

describe('tenant isolation', () => {
  it('another user gets 404 on get, delete, manual value and rebuild, and the owner’s report is untouched', async () => {
    const owner = await newUser();
    const other = await newUser();
    const report = await uploadOk(owner.token, makeReport({ rows: 40, seed: 71 }));
    const item = report.items.find((i) => i.article !== '')!;
    const id = report.id;

    expect((await get(other.token, id)).statusCode).toBe(404);
    expect((await del(other.token, id)).statusCode).toBe(404);
    const mv = await manualValueHandler(
      apiEvent({
        method: 'PUT',
        path: `/api/reports/items/${item.item_id}/manual-value`,
        token: other.token,
        pathParameters: { item_id: item.item_id },
        body: { field: 'profit', value: 1 },
      }),
    );
    expect(mv.statusCode).toBe(404);
    const rb = await rebuildOneHandler(
      apiEvent({ method: 'POST', path: `/api/reports/${id}/rebuild`, token: other.token, pathParameters: { id } }),
    );
    expect(rb.statusCode).toBe(404);
    const many = await rebuildManyHandler(
      apiEvent({ method: 'POST', path: '/api/reports/rebuild', token: other.token, body: { report_ids: [id] } }),
    );
    expect(bodyOf(many)).toEqual({ rebuilt: [], processing: [], skipped: [{ id, reason: 'not_found' }] });
    expect(bodyOf<{ items: unknown[] }>(await list(other.token)).items).toEqual([]);
    expect(
      bodyOf<{ items: unknown[] }>(await list(other.token, { cursor: Buffer.from(id).toString('base64url') })).items,
    ).toEqual([]);

    const still = await getReportOk(owner.token, id);
    expect(still.items.find((i) => i.item_id === item.item_id)?.manual_values).toEqual({});
    expect(still.rebuilt_at).toBeUndefined();
    expect(await objectExists(report.source_path!)).toBe(true);
  });
});
