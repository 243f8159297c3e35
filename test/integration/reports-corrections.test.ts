/**
 * Manual values and rebuilds in-process against the emulators (docs/METRICS.md, Manual values): a
 * correction changes effective values and totals but never computed ones; null removes it; a rebuild
 * re-applies it by article and lists the ones whose article is gone; no source → 409; rebuild many.
 */
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { handler as manualValueHandler } from '../../functions/reports/manual-value.handler';
import { handler as rebuildManyHandler } from '../../functions/reports/rebuild-many.handler';
import { handler as rebuildOneHandler } from '../../functions/reports/rebuild-one.handler';
import { bucketName, s3 } from '../../shared/files/client';
import { apiEvent, bodyOf } from '../support/test-event';
import { applyManualValue, DEFAULT_TAX_PROFILE, kopecksToRoubles } from '../../shared/engine';
import type { ApiItem, ApiReport, ApiValues } from '../../shared/reports/present-report';
import { rebuildMany as rebuildManyUseCase } from '../../shared/reports/rebuild/rebuild';
import { reportDeps } from '../../shared/reports/deps';
import { getItem } from '../../shared/store/items.repo';
import { createReport } from '../../shared/store/report-numbers.repo';
import { getReport } from '../../shared/store/reports.repo';
import { getUserById } from '../../shared/store/users.repo';
import { idleWorkers } from '../support/worker';
import { getReportOk, makeReport, newUser, uploadOk, type TestUser } from '../support/reports';

function putValue(token: string, itemId: string, body: unknown) {
  return manualValueHandler(
    apiEvent({
      method: 'PUT',
      path: `/api/reports/items/${itemId}/manual-value`,
      token,
      pathParameters: { item_id: itemId },
      body,
    }),
  );
}

const rebuild = (token: string, id: string) =>
  rebuildOneHandler(apiEvent({ method: 'POST', path: `/api/reports/${id}/rebuild`, token, pathParameters: { id } }));
const rebuildMany = (token: string, body: unknown) =>
  rebuildManyHandler(apiEvent({ method: 'POST', path: '/api/reports/rebuild', token, body }));

/** Σ of a money field over items, in kopecks (the totals must equal it exactly). */
const sumKopecks = (items: ApiItem[], field: string) =>
  items.reduce((s, i) => s + Math.round((i.effective[field] ?? 0) * 100), 0);
const kop = (roubles: number | null | undefined) => Math.round((roubles ?? 0) * 100);

async function reportWithSales(u: TestUser, seed: number) {
  const g = makeReport({ rows: 150, seed });
  const report = await uploadOk(u.token, g);
  const item = report.items.find((i) => i.article !== '' && (i.computed.realization ?? 0) > 0)!;
  return { g, report, item };
}

describe('manual value', () => {
  it('changes effective values and totals, never computed ones; null removes it', async () => {
    const u = await newUser();
    const { report, item } = await reportWithSales(u, 81);
    const newRealization = (kop(item.computed.realization) + 123_456) / 100;

    const r = await putValue(u.token, item.item_id, { field: 'realization', value: newRealization });
    expect(r.statusCode).toBe(200);
    const body = bodyOf<{ item: ApiItem; totals: ApiValues }>(r);
    expect(body.item.computed).toEqual(item.computed);
    expect(body.item.manual_values).toEqual({ realization: newRealization });
    expect(body.item.effective.realization).toBe(newRealization);

    // The engine's own answer for the same correction on the stored item (kopecks, snapshot tax).
    const stored = (await getItem(u.id, item.item_id))!;
    const engine = applyManualValue(
      { ...stored, manual_values: {}, effective: stored.computed },
      'realization',
      kop(newRealization),
      DEFAULT_TAX_PROFILE,
    );
    expect(body.item.effective.profit).toBe(kopecksToRoubles(engine.effective.profit!));
    expect(body.item.effective.usn).toBe(kopecksToRoubles(engine.effective.usn!));
    expect(body.item.effective.margin).toBe(engine.effective.margin);
    expect(stored.computed.realization).toBe(kop(item.computed.realization));

    expect(kop(body.totals.realization)).toBe(kop(report.totals.realization) + 123_456);
    const after = await getReportOk(u.token, report.id);
    expect(after.totals).toEqual(body.totals);
    expect(kop(after.totals.profit)).toBe(sumKopecks(after.items, 'profit'));
    const cat = after.commission_by_category.find((c) => c.category === item.category)!;
    const catBefore = report.commission_by_category.find((c) => c.category === item.category)!;
    expect(kop(cat.realization)).toBe(kop(catBefore.realization) + 123_456);

    const removed = await putValue(u.token, item.item_id, { field: 'realization', value: null });
    expect(removed.statusCode).toBe(200);
    const rb = bodyOf<{ item: ApiItem; totals: ApiValues }>(removed);
    expect(rb.item.manual_values).toEqual({});
    expect(rb.item.effective).toEqual(item.computed);
    expect(rb.totals).toEqual(report.totals);
  });

  it('takes counts and percents in their units and lets a derived correction win', async () => {
    const u = await newUser();
    const { item } = await reportWithSales(u, 82);
    const qty = await putValue(u.token, item.item_id, { field: 'sales_qty', value: 999 });
    expect(bodyOf<{ item: ApiItem }>(qty).item.effective.sales_qty).toBe(999);
    expect(bodyOf<{ item: ApiItem }>(qty).item.effective.net_qty).toBe(999 - (item.computed.returns_qty ?? 0));
    const margin = await putValue(u.token, item.item_id, { field: 'margin', value: 12.345 });
    expect(bodyOf<{ item: ApiItem }>(margin).item.effective.margin).toBe(12.35);
    const profit = await putValue(u.token, item.item_id, { field: 'profit', value: 100 });
    const p = bodyOf<{ item: ApiItem }>(profit).item;
    expect(p.effective.profit).toBe(100);
    expect(p.manual_values).toEqual({ sales_qty: 999, margin: 12.35, profit: 100 });
    expect((await putValue(u.token, item.item_id, { field: 'sales_qty', value: 2.5 })).statusCode).toBe(422);
  });

  it('refuses a field that takes no correction with 422 and bad ids with 404, changing nothing', async () => {
    const u = await newUser();
    const { report, item } = await reportWithSales(u, 83);
    for (const field of ['payout', 'income', 'net_qty', 'compensations', 'nonsense', '__proto__']) {
      const r = await putValue(u.token, item.item_id, { field, value: 1 });
      expect(r.statusCode, field).toBe(422);
      expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('field_not_correctable');
    }
    const other = `${report.id}.${String(Number(item.item_id.split('.')[1]) + 500_000)}`;
    for (const id of ['x', `${report.id}`, `${report.id}.1`, '../..', other, `01ARZ3NDEKTSV4RRFFQ69G5FAV.1000001`]) {
      expect((await putValue(u.token, id, { field: 'profit', value: 1 })).statusCode, id).toBe(404);
    }
    expect((await putValue(u.token, item.item_id, { field: 'profit' })).statusCode).toBe(400);
    expect((await putValue(u.token, item.item_id, { field: 'profit', value: '5' })).statusCode).toBe(400);
    expect(await getReportOk(u.token, report.id)).toEqual({ ...report, stale: false });
  });

  it('concurrent corrections of different items and of one item all count in the totals', async () => {
    const u = await newUser();
    const g = makeReport({ rows: 300, seed: 84 });
    const report = await uploadOk(u.token, g);
    const items = report.items.filter((i) => i.article !== '').slice(0, 6);
    const results = await Promise.all([
      ...items.map((i) => putValue(u.token, i.item_id, { field: 'logistics', value: 1000 })),
      putValue(u.token, items[0]!.item_id, { field: 'storage', value: 77 }),
    ]);
    expect(results.map((r) => r.statusCode)).toEqual(results.map(() => 200));
    const after = await getReportOk(u.token, report.id);
    for (const f of ['logistics', 'storage', 'profit', 'payout', 'expenses'])
      expect(kop(after.totals[f]), f).toBe(sumKopecks(after.items, f));
    expect(after.items.find((i) => i.item_id === items[0]!.item_id)?.manual_values).toEqual({
      logistics: 1000,
      storage: 77,
    });
  });
});

describe('rebuild', () => {
  it('re-reads the source, keeps corrections and charges nothing', async () => {
    const u = await newUser(1000);
    const { report, item } = await reportWithSales(u, 91);
    await putValue(u.token, item.item_id, { field: 'ads', value: 500.5 });
    const limits = (await getUserById(u.id))?.limits;

    const r = await rebuild(u.token, report.id);
    expect(r.statusCode).toBe(200);
    const body = bodyOf<{ report: ApiReport; dropped_manual_values: unknown[] }>(r);
    expect(body.dropped_manual_values).toEqual([]);
    expect(body.report.rebuilt_at).toBeDefined();
    const again = body.report.items.find((i) => i.article === item.article)!;
    expect(again.manual_values).toEqual({ ads: 500.5 });
    expect(again.effective.ads).toBe(500.5);
    expect(again.computed).toEqual(item.computed);
    expect(kop(body.report.totals.ads)).toBe(sumKopecks(body.report.items, 'ads'));
    expect((await getUserById(u.id))?.limits).toBe(limits);

    // The rebuilt report is what GET shows; the old item ids are gone, the new ones take corrections.
    const got = await getReportOk(u.token, report.id);
    expect(got.items.map((i) => i.item_id)).toEqual(body.report.items.map((i) => i.item_id));
    expect((await putValue(u.token, item.item_id, { field: 'ads', value: 1 })).statusCode).toBe(404);
    expect((await putValue(u.token, again.item_id, { field: 'ads', value: null })).statusCode).toBe(200);
  });

  it('lists corrections whose article is no longer in the source as dropped', async () => {
    const u = await newUser();
    const report = await uploadOk(u.token, makeReport({ rows: 150, seed: 92 }));
    // A different report stored in place of the source: the corrected article is not in it.
    const replacement = makeReport({ rows: 150, seed: 93, articles: 3 });
    const inReplacement = new Set(replacement.expected.articles.map((a) => a.article));
    const item = report.items.find((i) => i.article !== '' && !inReplacement.has(i.article))!;
    expect(item).toBeDefined();
    await putValue(u.token, item.item_id, { field: 'cost_price', value: 321.09 });
    await putValue(u.token, item.item_id, { field: 'sales_qty', value: 4 });
    await s3().send(new PutObjectCommand({ Bucket: bucketName(), Key: report.source_path!, Body: replacement.file }));

    const r = await rebuild(u.token, report.id);
    expect(r.statusCode).toBe(200);
    const body = bodyOf<{ report: ApiReport; dropped_manual_values: unknown[] }>(r);
    expect(body.dropped_manual_values).toEqual(
      expect.arrayContaining([
        { article: item.article, field: 'cost_price', value: 321.09 },
        { article: item.article, field: 'sales_qty', value: 4 },
      ]),
    );
    expect(body.dropped_manual_values).toHaveLength(2);
    expect(body.report.rows).toBe(replacement.expected.rows);
    expect(body.report.items.map((i) => i.article).sort()).toEqual(
      replacement.expected.articles.map((a) => a.article).sort(),
    );
    expect(body.report.items.every((i) => Object.keys(i.manual_values).length === 0)).toBe(true);
  });

  it('409 source_missing without a stored source (file gone, combined report)', async () => {
    const u = await newUser();
    const { report } = await reportWithSales(u, 94);
    await s3().send(new DeleteObjectCommand({ Bucket: bucketName(), Key: report.source_path! }));
    const r = await rebuild(u.token, report.id);
    expect(r.statusCode).toBe(409);
    expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('source_missing');
    const record = (await getReport(u.id, report.id))!;
    expect(record.version).toBe(1);

    const combined = await createCombined(u.id, report.id);
    const c = await rebuild(u.token, combined);
    expect(c.statusCode).toBe(409);
    expect(bodyOf<{ error: { code: string } }>(c).error.code).toBe('source_missing');
  });
});

async function createCombined(userId: string, sourceId: string): Promise<string> {
  const src = (await getReport(userId, sourceId))!;
  const id = `C${Date.now()}${Math.floor(Math.random() * 1e6)}`;
  await createReport(
    {
      ...src,
      id,
      title: 'Сводный',
      is_combined: true,
      source_report_ids: [sourceId],
      source_path: null,
      source_name: null,
      source_size: null,
      format: null,
      created_at: new Date().toISOString(),
    },
    [],
  );
  return id;
}

describe('rebuild many', () => {
  it('rebuilds the listed reports and says why others were skipped; without ids every report with a source', async () => {
    const u = await newUser();
    const a = await uploadOk(u.token, makeReport({ rows: 40, seed: 95 }));
    const b = await uploadOk(u.token, makeReport({ rows: 40, seed: 96 }));
    const combined = await createCombined(u.id, a.id);
    const foreign = await uploadOk((await newUser()).token, makeReport({ rows: 20, seed: 97 }));

    const r = await rebuildMany(u.token, {
      report_ids: [a.id, 'bad/id', foreign.id, combined, '01ARZ3NDEKTSV4RRFFQ69G5FAV'],
    });
    expect(r.statusCode).toBe(200);
    expect(bodyOf(r)).toEqual({
      rebuilt: [a.id],
      processing: [],
      skipped: [
        { id: 'bad/id', reason: 'not_found' },
        { id: foreign.id, reason: 'not_found' },
        { id: combined, reason: 'source_missing' },
        { id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', reason: 'not_found' },
      ],
    });
    const all = bodyOf<{ rebuilt: string[]; skipped: unknown[] }>(await rebuildMany(u.token, {}));
    expect(all.rebuilt.sort()).toEqual([a.id, b.id].sort());
    expect(all.skipped).toEqual([]);
    expect((await getReportOk(u.token, b.id)).rebuilt_at).toBeDefined();
    expect((await rebuildMany(u.token, { report_ids: 'x' })).statusCode).toBe(400);
  });

  it('with no time to wait, hands every report to the worker and answers 202 naming them as processing; they end rebuilt', async () => {
    const u = await newUser();
    const a = await uploadOk(u.token, makeReport({ rows: 30, seed: 98 }));
    const b = await uploadOk(u.token, makeReport({ rows: 30, seed: 99 }));
    const user = await getUserById(u.id);
    const r = await rebuildManyUseCase(reportDeps, user!, [a.id, b.id], 0);
    expect(r).toEqual({ rebuilt: [], processing: [a.id, b.id], skipped: [] });
    // Readable (with their items) while the worker is on them.
    const during = await getReportOk(u.token, a.id);
    expect(during.items.length).toBeGreaterThan(0);
    await idleWorkers();
    for (const id of [a.id, b.id]) {
      const after = await getReportOk(u.token, id);
      expect(after).toMatchObject({ status: 'ready' });
      expect(after.rebuilt_at).toBeDefined();
      expect(after.last_rebuild).toMatchObject({ dropped_manual_values: [] });
    }
  });
});
