/**
 * Own per-unit costs over real HTTP (serverless-offline, DynamoDB Local, s3rver): the seller imports
 * own cost lines (multipart) and sets one by PUT, uploads the real 2022 fixture by presigned URL, and
 * each article's own costs, expenses, profit and payout are checked against a computation in this test
 * (the engine's numbers without own costs, then per unit × net units by hand); the export carries the
 * column.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TAX_PROFILE, buildItems, readReport } from '../../shared/engine';
import { SHEET_ITEMS, TOTALS_LABEL } from '../../shared/workbooks/xlsx-export';
import { startE2eStack, uploadFile, type E2eStack } from '../support/e2e-stack';
import { signUpByMail } from '../support/sign-up';

let stack: E2eStack;
beforeAll(async () => {
  stack = await startE2eStack();
});
afterAll(async () => {
  await stack?.stop();
});

const FIXTURE = {
  filename: 'wb-detail-2022-49col.xlsx',
  file: readFileSync(path.join(__dirname, '../../fixtures/wb-detail-2022-49col.xlsx')),
};
const kop = (roubles: number | null | undefined) => Math.round((roubles ?? 0) * 100);

const uploadByUrl = (token: string, file: { filename: string; file: Buffer }) => uploadFile(stack.call, token, file);

describe('own per-unit costs over HTTP', () => {
  it('enter each article’s profit and the report’s, never the payout', async () => {
    const { call, offline, emulators } = stack;
    const token = (
      await signUpByMail(offline.apiUrl, emulators.env.SES_ENDPOINT!, `own-costs-e2e-${randomUUID()}@example.com`)
    ).token;

    // The computation of this test starts from the engine's numbers without own costs.
    const parsed = await readReport({ buffer: FIXTURE.file, filename: FIXTURE.filename });
    const baseline = new Map(
      buildItems(parsed, { tax: DEFAULT_TAX_PROFILE, costPrices: {} }).items.map((i) => [i.article, i.effective]),
    );
    const special = parsed.articles.find(
      (a) => a.article !== '' && a.aggregates.sales_qty > a.aggregates.returns_qty,
    )!.article;

    // Lines: packaging 12,50 for every article (99,00 from 2023: the 2022 week keeps 12,50), fulfilment
    // 30,00; the special article packs for 40,00 (its own line replaces the default one of that name).
    const csv =
      'Артикул;Статья;Сумма за шт;Действует с\n' +
      ';Упаковка;12,50;\n' +
      ';Упаковка;99;01.01.2023\n' +
      `${special};Упаковка;40;\n`;
    const form = new FormData();
    form.append('allow_unknown', 'true');
    form.append('file', new Blob([Buffer.from(csv, 'utf8')]), 'свои расходы.csv');
    const imported = await fetch(`${offline.apiUrl}/own-costs/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(imported.status).toBe(200);
    expect(await imported.json()).toEqual({
      applied: true,
      created: 2,
      updated: 0,
      unknown: { count: 1, articles: [special] },
      errors: [],
    });
    const put = await call('PUT', '/own-costs', { token, body: { article: null, name: 'Фулфилмент', amount: 30 } });
    expect(put.status).toBe(200);
    const listed = await call<{ items: Array<{ article: string | null; name: string; amount: number }> }>(
      'GET',
      '/own-costs',
      { token },
    );
    expect(listed.body.items.map((l) => [l.article, l.name, l.amount])).toEqual([
      [null, 'Упаковка', 99],
      [null, 'Фулфилмент', 30],
      [special, 'Упаковка', 40],
    ]);

    const report = await uploadByUrl(token, FIXTURE);
    expect(report.period_from?.startsWith('2022')).toBe(true);
    let total = 0;
    for (const it of report.items) {
      const base = baseline.get(it.article)!;
      const net = (base.sales_qty ?? 0) - (base.returns_qty ?? 0);
      const perUnit = it.article === '' ? 0 : it.article === special ? 4_000 + 3_000 : 1_250 + 3_000;
      const own = perUnit * net;
      total += own;
      expect(kop(it.effective.own_cost_price), it.article).toBe(perUnit);
      expect(kop(it.effective.own_costs), it.article).toBe(own);
      expect(kop(it.effective.expenses), it.article).toBe((base.expenses ?? 0) + own);
      // The default profile is USN «доходы»: the tax does not move, profit falls by exactly the own costs.
      expect(kop(it.effective.usn), it.article).toBe(base.usn);
      expect(kop(it.effective.profit), it.article).toBe((base.profit ?? 0) - own);
      expect(kop(it.effective.payout), it.article).toBe(base.payout);
    }
    expect(total).toBeGreaterThan(0);
    const baseTotals = [...baseline.values()];
    const sum = (f: 'profit' | 'payout') => baseTotals.reduce((s, v) => s + (v[f] ?? 0), 0);
    expect(kop(report.totals.own_costs)).toBe(total);
    expect(kop(report.totals.profit)).toBe(sum('profit') - total);
    expect(kop(report.totals.payout)).toBe(sum('payout'));

    // The export has the column, with the report's total.
    const res = await fetch(`${offline.apiUrl}/reports/${report.id}/export`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await res.arrayBuffer()) as ArrayBuffer);
    const ws = wb.getWorksheet(SHEET_ITEMS)!;
    const header = Array.from(ws.getRow(1).values as unknown[], (v) => String(v ?? ''));
    const col = header.findIndex((h) => h.startsWith('Свои расходы') && !h.includes('за шт'));
    expect(col).toBeGreaterThan(0);
    let seen = false;
    ws.eachRow((row) => {
      if (String(row.getCell(1).value ?? '') !== TOTALS_LABEL) return;
      seen = true;
      expect(row.getCell(col).value).toBe(report.totals.own_costs);
    });
    expect(seen).toBe(true);
  });
});
