/**
 * The P&L, the tax thresholds and the period costs against DynamoDB Local (docs/API.md, «P&L and
 * period costs»): weeks uploaded for real (one straddling January and February, one stored twice with
 * allow_duplicate), period costs added, replaced, deleted and imported, the P&L checked against the
 * test's own computation (test/support/pnl-expect.ts), the export opened with ExcelJS, the thresholds
 * crossed by a corrected realization, another user kept out.
 */
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as pnlHandler } from '../../functions/pnl/get.handler';
import { handler as pnlExportHandler } from '../../functions/pnl/export.handler';
import { handler as costsHandler } from '../../functions/pnl/period-costs.handler';
import { handler as manualValueHandler } from '../../functions/reports/manual-value.handler';
import { apiEvent, bodyOf, multipartBody } from '../support/test-event';
import { expectedPnl, type ExpectedCost } from '../support/pnl-expect';
import { getReportOk, makeReport, newUser, uploadOk, type TestUser } from '../support/reports';
import type { Pnl, PeriodCost, TaxThreshold } from '../../shared/contract';

const SELLER = '555123';
/** Weeks of the 2026 layout: week 2 = 19–25.01, week 3 = 26.01–01.02 (straddles), week 4 = 02–08.02. */
function week(w: number, seed = 40 + w, format: 'xlsx' | 'xls' = 'xlsx') {
  const g = makeReport({ seed, week: w, rows: 200, articles: 10, format });
  return {
    filename: `Еженедельный детализированный отчет №${g.expected.report_number}_${SELLER}.${format}`,
    file: g.file,
  };
}

const call = (token: string, method: string, path: string, extra: Record<string, unknown> = {}) =>
  costsHandler(apiEvent({ method, path, token, ...extra }));
const pnl = (token: string, query: Record<string, string>) =>
  pnlHandler(apiEvent({ method: 'GET', path: '/api/pnl', token, query }));
const kop = (roubles: number) => Math.round(roubles * 100);

describe('P&L over two months with a straddling week', () => {
  let u: TestUser;
  let other: TestUser;
  let reports: Awaited<ReturnType<typeof getReportOk>>[];
  const costs: ExpectedCost[] = [];

  beforeAll(async () => {
    u = await newUser(1_000_000, 'pnl');
    other = await newUser(1_000_000, 'pnl-other');
    const ids: string[] = [];
    for (const w of [2, 3, 4]) ids.push((await uploadOk(u.token, week(w))).id);
    // The same week 2 again as .xls, stored on purpose: the P&L must count its rows once.
    await uploadOk(u.token, week(2, 42, 'xls'), { allow_duplicate: 'true' });
    reports = await Promise.all(ids.map((id) => getReportOk(u.token, id)));
  }, 120_000);

  it('the weeks are where the test expects them', () => {
    expect(reports.map((r) => [r.period_from, r.period_to])).toEqual([
      ['2026-01-19', '2026-01-25'],
      ['2026-01-26', '2026-02-01'],
      ['2026-02-02', '2026-02-08'],
    ]);
  });

  it('period costs: create, list, replace, delete, refuse bad input, keep other users out', async () => {
    const rent = await call(u.token, 'POST', '/api/period-costs', {
      body: { name: 'Аренда склада', category: 'rent', amount: 45_000.5, kind: 'monthly', from_month: '2026-01' },
    });
    expect(rent.statusCode, rent.body).toBe(201);
    const rentCost = bodyOf<PeriodCost>(rent);
    expect(rentCost).toMatchObject({ amount: 45_000.5, to_month: null, seller_id: null });
    costs.push({ amount: 45_000.5, kind: 'monthly', from_month: '2026-01' });

    const audit = bodyOf<PeriodCost>(
      await call(u.token, 'POST', '/api/period-costs', {
        body: { name: 'Аудит', category: 'services', amount: 1, kind: 'one_off', date: '2026-02-10' },
      }),
    );
    const replaced = await call(u.token, 'PUT', `/api/period-costs/${audit.id}`, {
      pathParameters: { id: audit.id },
      body: { name: 'Аудит', category: 'services', amount: 12_000, kind: 'one_off', date: '2026-02-10' },
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    costs.push({ amount: 12_000, kind: 'one_off', date: '2026-02-10' });

    const gone = bodyOf<PeriodCost>(
      await call(u.token, 'POST', '/api/period-costs', {
        body: {
          name: 'Ошибка',
          category: 'other',
          amount: 999,
          kind: 'monthly',
          from_month: '2026-01',
          to_month: '2026-02',
        },
      }),
    );
    expect(
      (await call(u.token, 'DELETE', `/api/period-costs/${gone.id}`, { pathParameters: { id: gone.id } })).statusCode,
    ).toBe(204);

    // Another user can neither see, change nor delete them.
    expect(bodyOf<{ costs: PeriodCost[] }>(await call(other.token, 'GET', '/api/period-costs')).costs).toEqual([]);
    const foreign = await call(other.token, 'DELETE', `/api/period-costs/${rentCost.id}`, {
      pathParameters: { id: rentCost.id },
    });
    expect(foreign.statusCode).toBe(404);
    expect(bodyOf<{ error: { code: string } }>(foreign).error.code).toBe('period_cost_not_found');

    const bad = await call(u.token, 'POST', '/api/period-costs', {
      body: {
        name: 'Зарплата',
        category: 'salaries',
        amount: 10,
        kind: 'monthly',
        from_month: '2026-03',
        to_month: '2026-01',
      },
    });
    expect(bad.statusCode).toBe(422);
    expect(bodyOf<{ error: { code: string; message: string } }>(bad).error.code).toBe('invalid_period_cost');
    const noDate = await call(u.token, 'POST', '/api/period-costs', {
      body: { name: 'Разовый', category: 'other', amount: 10, kind: 'one_off' },
    });
    expect(bodyOf<{ error: { code: string } }>(noDate).error.code).toBe('invalid_period_cost');

    const list = bodyOf<{ costs: PeriodCost[] }>(await call(u.token, 'GET', '/api/period-costs')).costs;
    expect(list.map((c) => c.name)).toEqual(['Аренда склада', 'Аудит']);
  });

  it('imports costs from a csv: good rows added, bad rows listed with their numbers', async () => {
    const csv = [
      'Название;Категория;Сумма;Месяц;По месяц;Дата;Тип',
      'Зарплата менеджера;зарплаты;60 000,00;01.2026;02.2026;;ежемесячный',
      'Фотосъёмка;услуги;7500;;;15.01.2026;разовый',
      'Без суммы;прочее;;2026-01;;;',
      'Странная категория;налоги;100;2026-01;;;',
    ].join('\n');
    const form = multipartBody({ filename: 'costs.csv', content: Buffer.from(csv, 'utf8') });
    const r = await call(u.token, 'POST', '/api/period-costs/import', {
      body: form.body,
      headers: { 'content-type': form.contentType },
    });
    expect(r.statusCode, r.body).toBe(200);
    const out = bodyOf<{ created: number; errors: Array<{ row: number; message: string }> }>(r);
    expect(out.created).toBe(2);
    expect(out.errors.map((e) => e.row)).toEqual([4, 5]);
    expect(out.errors[0]!.message).toContain('Сумма');
    costs.push({ amount: 60_000, kind: 'monthly', from_month: '2026-01', to_month: '2026-02' });
    costs.push({ amount: 7_500, kind: 'one_off', date: '2026-01-15' });

    const noColumns = multipartBody({ filename: 'x.csv', content: Buffer.from('a;b\n1;2\n', 'utf8') });
    const refused = await call(u.token, 'POST', '/api/period-costs/import', {
      body: noColumns.body,
      headers: { 'content-type': noColumns.contentType },
    });
    expect(refused.statusCode).toBe(422);
    expect(bodyOf<{ error: { code: string } }>(refused).error.code).toBe('period_cost_columns_missing');
  });

  it('the P&L equals the test’s own computation, month by month, each week once', async () => {
    const r = await pnl(u.token, { from: '2026-01', to: '2026-02' });
    expect(r.statusCode, r.body).toBe(200);
    const body = bodyOf<Pnl>(r);
    const want = expectedPnl(reports, costs, ['2026-01', '2026-02']);
    for (const m of body.months) {
      const w = want[m.month]!;
      for (const key of Object.keys(w).filter((x) => x !== 'net_profit'))
        expect(kop(m.lines[key]!), `${m.month} ${key}`).toBe(w[key]);
      expect(kop(m.net_profit), `${m.month} net_profit`).toBe(w.net_profit);
    }
    // The straddling week: 6 days in January, 1 in February, and both months name it with its share.
    const straddle = reports[1]!.id;
    expect(body.months[0]!.reports.find((x) => x.report_id === straddle)).toEqual({
      report_id: straddle,
      days: 6,
      share: 85.71,
    });
    expect(body.months[1]!.reports.find((x) => x.report_id === straddle)).toEqual({
      report_id: straddle,
      days: 1,
      share: 14.29,
    });
    // The copy of week 2 is left out, with a warning naming it.
    expect(body.sources).toHaveLength(3);
    expect(body.warnings.filter((w) => w.code === 'duplicate_report')).toHaveLength(1);
    // Totals: sums of the months; margin from the totals.
    expect(kop(body.totals.net_profit)).toBe(want['2026-01']!.net_profit! + want['2026-02']!.net_profit!);
    expect(body.totals.margin).toBeCloseTo((body.totals.net_profit / body.totals.lines.revenue!) * 100, 1);
    expect(body.split_rule).toBe('days');
    // Below the threshold: a USN seller with a small income gets its status, no warning level.
    expect(body.thresholds).toHaveLength(1);
    expect(body.thresholds[0]!.level).toBe('below');

    // Another user sees an empty P&L; a foreign seller is a 404.
    const foreign = bodyOf<Pnl>(await pnl(other.token, { from: '2026-01', to: '2026-02' }));
    expect(foreign.totals.lines.revenue).toBe(0);
    const bad = await pnl(u.token, { from: '2026-03', to: '2026-01' });
    expect(bad.statusCode).toBe(400);
    expect(bodyOf<{ error: { code: string } }>(bad).error.code).toBe('invalid_range');
  });

  it('the export opens with the expected cells', async () => {
    const json = bodyOf<Pnl>(await pnl(u.token, { from: '2026-01', to: '2026-02' }));
    const r = await pnlExportHandler(
      apiEvent({ method: 'GET', path: '/api/pnl/export', token: u.token, query: { from: '2026-01', to: '2026-02' } }),
    );
    expect(r.statusCode).toBe(200);
    expect(r.headers?.['Content-Type'] ?? r.headers?.['content-type']).toContain('spreadsheetml');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(r.body ?? '', 'base64') as unknown as ArrayBuffer);
    const ws = wb.getWorksheet('P&L')!;
    expect(ws.getCell('A4').value).toBe('Статья');
    expect(ws.getCell('B4').value).toBe('Январь 2026');
    expect(ws.getCell('C4').value).toBe('Февраль 2026');
    expect(ws.getCell('D4').value).toBe('Итого');
    expect(ws.getCell('A5').value).toBe('Выручка (реализация)');
    expect(ws.getCell('B5').value).toBe(json.months[0]!.lines.revenue);
    expect(ws.getCell('D5').value).toBe(json.totals.lines.revenue);
    const rows = ws.getSheetValues() as unknown[][];
    const netRow = rows.find((row) => Array.isArray(row) && row[1] === 'Чистая прибыль')!;
    expect(netRow[2]).toBe(json.months[0]!.net_profit);
    expect(netRow[4]).toBe(json.totals.net_profit);
    const costRow = rows.find((row) => Array.isArray(row) && row[1] === '− Расходы периода')!;
    expect(costRow[3]).toBe(json.months[1]!.lines.period_costs);
    expect(wb.getWorksheet('Источники')!.getCell('A1').value).toBe('Месяц');
  });
});

describe('tax thresholds', () => {
  it('a USN seller whose 2026 income passes 20 M ₽ in January gets VAT from February 1st and a proposal', async () => {
    const u = await newUser(1_000_000, 'pnl-vat');
    const rep = await uploadOk(u.token, week(2, 77));
    const full = await getReportOk(u.token, rep.id);
    const item = full.items.find((i) => i.article !== '')!;
    const put = await manualValueHandler(
      apiEvent({
        method: 'PUT',
        path: `/api/reports/items/${item.item_id}/manual-value`,
        token: u.token,
        pathParameters: { item_id: item.item_id },
        body: { field: 'realization', value: 21_000_000 },
      }),
    );
    expect(put.statusCode, put.body).toBe(200);
    const body = bodyOf<Pnl>(await pnl(u.token, { from: '2026-01', to: '2026-02' }));
    const t = body.thresholds[0] as TaxThreshold;
    expect(t.level).toBe('crossed');
    expect(t.vat_from).toEqual({ month: '2026-01', from: '2026-02-01' });
    expect(t.exemption_threshold).toBe(20_000_000);
    expect(t.proposals).toEqual([{ valid_from: '2026-02-01', tax_system: 'usn_income', usn_rate: 6, vat_rate: 5 }]);
    expect(t.message).toContain('01.02.2026');
    const alone = bodyOf<{ thresholds: TaxThreshold[] }>(
      await pnlHandler(
        apiEvent({ method: 'GET', path: '/api/tax-thresholds', token: u.token, query: { year: '2026' } }),
      ),
    );
    expect(alone.thresholds[0]!.vat_from).toEqual(t.vat_from);
  });
});
