/**
 * Own per-unit costs in-process against DynamoDB Local and s3rver: the routes (list, put with dates,
 * delete a dated amount and a line, refusals, tenant isolation), the import applied whole or not at all,
 * and a report: own costs change its profit by exactly Σ per unit × net units (defaults vs an article's
 * own line, the amount in force on the report's date), never its payout; a change applies to the reports
 * it covers without a rebuild call (their rebuild runs in the worker), corrections kept; a report being
 * rebuilt when the costs change is rebuilt again after, with them.
 */
import { describe, expect, it } from 'vitest';
import { handler as importHandler } from '../../functions/own-costs/import.handler';
import { handler as ownCostsHandler } from '../../functions/own-costs/own-costs.handler';
import { handler as listReportsHandler } from '../../functions/reports/list.handler';
import { ensureProducts } from '../../shared/store/products.repo';
import { getReportOk, makeReport, newUser, uploadOk } from '../support/reports';
import { idleWorkers } from '../support/worker';
import { markRebuildAgain, startRebuildTask } from '../../shared/store/report-lifecycle.repo';
import { getReportAnyStatus } from '../../shared/store/reports.repo';
import { handler as manualValueHandler } from '../../functions/reports/manual-value.handler';
import { apiEvent, bodyOf, multipartBody } from '../support/test-event';

const kop = (roubles: number | null | undefined) => Math.round((roubles ?? 0) * 100);

type Line = {
  article: string | null;
  name: string;
  amount: number;
  amounts: Array<{ valid_from: string | null; amount: number }>;
};

const put = (token: string, body: Record<string, unknown>) =>
  ownCostsHandler(apiEvent({ method: 'PUT', path: '/api/own-costs', token, body }));
const del = (token: string, query: Record<string, string>) =>
  ownCostsHandler(apiEvent({ method: 'DELETE', path: '/api/own-costs', token, query }));
async function list(token: string): Promise<Line[]> {
  const r = await ownCostsHandler(apiEvent({ method: 'GET', path: '/api/own-costs', token }));
  expect(r.statusCode, r.body).toBe(200);
  return bodyOf<{ items: Line[] }>(r).items;
}
function importFile(token: string, content: string, fields: Record<string, string> = {}) {
  const { body, contentType } = multipartBody({ filename: 'own.csv', content: Buffer.from(content, 'utf8') }, fields);
  return importHandler(
    apiEvent({ method: 'POST', path: '/api/own-costs/import', token, body, headers: { 'content-type': contentType } }),
  );
}
async function listedStale(token: string, id: string) {
  const r = await listReportsHandler(apiEvent({ method: 'GET', path: '/api/reports', token }));
  expect(r.statusCode).toBe(200);
  return bodyOf<{ items: Array<{ id: string; stale?: boolean; stale_reason?: string | null }> }>(r).items.find(
    (i) => i.id === id,
  );
}

describe('own costs: routes', () => {
  it('put, list, date, delete; refusals; another user sees nothing', async () => {
    const u = await newUser();
    const other = await newUser();
    const first = await put(u.token, { name: 'Упаковка', amount: 12.5 });
    expect(first.statusCode, first.body).toBe(200);
    expect(bodyOf<Line>(first)).toEqual({
      article: null,
      name: 'Упаковка',
      amount: 12.5,
      amounts: [{ valid_from: null, amount: 12.5 }],
    });
    expect((await put(u.token, { name: 'Упаковка', amount: 15, valid_from: '2026-03-01' })).statusCode).toBe(200);
    expect((await put(u.token, { article: 'Платье/синее #42', name: 'Упаковка', amount: 40 })).statusCode).toBe(200);
    expect(await list(u.token)).toEqual([
      {
        article: null,
        name: 'Упаковка',
        amount: 15,
        amounts: [
          { valid_from: null, amount: 12.5 },
          { valid_from: '2026-03-01', amount: 15 },
        ],
      },
      { article: 'Платье/синее #42', name: 'Упаковка', amount: 40, amounts: [{ valid_from: null, amount: 40 }] },
    ]);
    expect(await list(other.token)).toEqual([]);

    // Refusals: fractions of a kopeck, a negative amount, an empty name, a bad date.
    const frac = await put(u.token, { name: 'Упаковка', amount: 0.001 });
    expect([frac.statusCode, bodyOf<{ error: { code: string } }>(frac).error.code]).toEqual([
      422,
      'value_out_of_range',
    ]);
    expect((await put(u.token, { name: 'Упаковка', amount: -1 })).statusCode).toBe(400);
    expect((await put(u.token, { name: ' ', amount: 1 })).statusCode).toBe(400);
    expect((await put(u.token, { name: 'x', amount: 1, valid_from: '2026-02-30' })).statusCode).toBe(400);

    // Delete one dated amount, then a line; a missing one is 404 own_cost_not_found.
    expect((await del(u.token, { name: 'Упаковка', valid_from: '2026-03-01' })).statusCode).toBe(204);
    expect((await list(u.token))[0]!.amounts).toEqual([{ valid_from: null, amount: 12.5 }]);
    expect((await del(u.token, { name: 'Упаковка', article: 'Платье/синее #42' })).statusCode).toBe(204);
    const gone = await del(u.token, { name: 'Упаковка', article: 'Платье/синее #42' });
    expect([gone.statusCode, bodyOf<{ error: { code: string } }>(gone).error.code]).toEqual([
      404,
      'own_cost_not_found',
    ]);
    expect((await del(other.token, { name: 'Упаковка' })).statusCode).toBe(404);
    expect((await list(u.token)).map((l) => l.article)).toEqual([null]);
  });

  it('the import is applied whole or not at all', async () => {
    const u = await newUser();
    await ensureProducts(u.id, ['A-1', 'B-2']);
    const bad = await importFile(
      u.token,
      'Артикул;Статья;Сумма за шт\nA-1;Упаковка;40\nB-2;Упаковка;12,345\nZZ-9;Упаковка;5\n',
    );
    expect(bad.statusCode).toBe(200);
    expect(bodyOf(bad)).toEqual({
      applied: false,
      created: 0,
      updated: 0,
      unknown: { count: 1, articles: ['ZZ-9'] },
      errors: [{ row: 3, message: 'Сумма «12,345»: больше 2 знаков после запятой' }],
    });
    expect(await list(u.token)).toEqual([]);
    const good = await importFile(
      u.token,
      'Артикул;Статья;Сумма за шт;Действует с\n;Упаковка;12,50;\nA-1;Упаковка;40;01.02.2026\nB-2;Маркировка;3\n',
    );
    expect(bodyOf(good)).toMatchObject({ applied: true, created: 3, updated: 0, errors: [] });
    expect((await list(u.token)).map((l) => [l.article, l.name, l.amount])).toEqual([
      [null, 'Упаковка', 12.5],
      ['A-1', 'Упаковка', 40],
      ['B-2', 'Маркировка', 3],
    ]);
    const missing = await importFile(u.token, 'Артикул;Цена\nA-1;5\n');
    expect([missing.statusCode, bodyOf<{ error: { code: string } }>(missing).error.code]).toEqual([
      422,
      'own_cost_columns_missing',
    ]);
  });
});

describe('own costs in a report', () => {
  it('profit moves by Σ per unit × net units, the payout never; a change applies without pressing «Пересобрать»', async () => {
    const u = await newUser();
    const g = makeReport({ rows: 300, layout: '2026', seed: 41 });
    const sold = g.expected.articles.filter(
      (x) => x.article !== '' && x.aggregates.sales_qty > x.aggregates.returns_qty,
    );
    const special = sold[0]!.article;
    const before = await uploadOk(u.token, g);
    expect(kop(before.totals.own_costs)).toBe(0);

    // Defaults: packaging 12,50 (15,00 from a day after the report), fulfilment 30; the special article
    // packs for 40 and needs no fulfilment (0 switches the default off for it).
    await put(u.token, { name: 'Упаковка', amount: 12.5 });
    await put(u.token, { name: 'Упаковка', amount: 15, valid_from: '2027-01-01' });
    await put(u.token, { name: 'Фулфилмент', amount: 30 });
    await put(u.token, { article: special, name: 'Упаковка', amount: 40 });
    await put(u.token, { article: special, name: 'Фулфилмент', amount: 0 });
    // No rebuild call: the covered report's rebuild ran in the worker.
    await idleWorkers();
    const after = await getReportOk(u.token, before.id);
    expect(after.status).toBe('ready');
    expect(after.stale).toBe(false);
    expect(await listedStale(u.token, before.id)).toMatchObject({ stale: false });
    let expectedTotal = 0;
    const was = new Map(before.items.map((i) => [i.article, i]));
    for (const it of after.items) {
      const net = (it.computed.sales_qty ?? 0) - (it.computed.returns_qty ?? 0);
      const perUnit = it.article === '' ? 0 : it.article === special ? 4_000 : 1_250 + 3_000;
      expect(kop(it.computed.own_cost_price), it.article).toBe(perUnit);
      expect(kop(it.computed.own_costs), it.article).toBe(perUnit * net);
      expectedTotal += perUnit * net;
      const old = was.get(it.article)!;
      // usn_income (the default profile): the tax does not depend on expenses, so profit moves by exactly own_costs.
      expect(kop(it.computed.profit), it.article).toBe(kop(old.computed.profit) - perUnit * net);
      expect(kop(it.computed.expenses), it.article).toBe(kop(old.computed.expenses) + perUnit * net);
      expect(it.computed.payout, it.article).toBe(old.computed.payout);
    }
    expect(expectedTotal).toBeGreaterThan(0);
    expect(kop(after.totals.own_costs)).toBe(expectedTotal);
    expect(kop(after.totals.profit)).toBe(kop(before.totals.profit) - expectedTotal);
    expect(after.totals.payout).toBe(before.totals.payout);
  });

  it('a correction survives the automatic rebuild; a report rebuilding when the costs change is rebuilt again after', async () => {
    const u = await newUser();
    const g = makeReport({ rows: 200, layout: '2026', seed: 43 });
    const before = await uploadOk(u.token, g);
    const item = before.items.find((i) => i.article !== '' && (i.computed.sales_qty ?? 0) > 0)!;
    const corrected = await manualValueHandler(
      apiEvent({
        method: 'PUT',
        path: `/api/reports/items/${item.item_id}/manual-value`,
        token: u.token,
        pathParameters: { item_id: item.item_id },
        body: { field: 'cost_price', value: 123.45 },
      }),
    );
    expect(corrected.statusCode, corrected.body).toBe(200);
    await put(u.token, { name: 'Упаковка', amount: 10 });
    await idleWorkers();
    const once = await getReportOk(u.token, before.id);
    const again = once.items.find((i) => i.article === item.article)!;
    expect(again.manual_values.cost_price).toBe(123.45);
    expect(kop(again.computed.own_cost_price)).toBe(1_000);

    // The report is being rebuilt (a task of its own, held by nobody yet) when packaging changes: it is
    // marked, and when that task ends the worker rebuilds it again with the new amount.
    const started = await startRebuildTask(u.id, before.id, `t-${Date.now()}`, 60_000);
    expect(started?.status).toBe('processing');
    // From the beginning: the report's day is covered (a new amount without a date starts today: not).
    await put(u.token, { name: 'Упаковка', amount: 25, valid_from: null });
    expect((await getReportAnyStatus(u.id, before.id))?.rebuild_again).toBe(true);
    // The held task is the worker's to run: recovery's invoke, here the in-process worker's event.
    const { runWorkerEvent } = await import('../../shared/reports/worker/worker');
    const { reportDeps } = await import('../../shared/reports/deps');
    await runWorkerEvent(reportDeps, {
      kind: 'report',
      user_id: u.id,
      report_id: before.id,
      task_id: started!.task_id!,
    });
    await idleWorkers();
    const twice = await getReportOk(u.token, before.id);
    expect(twice.status).toBe('ready');
    expect((await getReportAnyStatus(u.id, before.id))?.rebuild_again).toBeUndefined();
    const last = twice.items.find((i) => i.article === item.article)!;
    expect(kop(last.computed.own_cost_price)).toBe(2_500);
    expect(last.manual_values.cost_price).toBe(123.45);
    expect(twice.stale).toBe(false);
    // A report not being built when marked: nothing to mark (its rebuild is started instead).
    expect(await markRebuildAgain(u.id, before.id)).toBe(false);
  });
});
