/**
 * The cash flow against DynamoDB Local (docs/API.md: GET /api/cash-flow): two weeks uploaded for real,
 * one formed before 2026-03-20 (7 days held) and one after (21 days, its payout crossing into April),
 * period costs and purchases entered through their routes, the use case run on an injected clock with the
 * real stores; every month, the forecast weeks and the USN due date computed by hand here from the
 * reports' own totals. A balance reading after the first payout's day turns it `paid` (before the history)
 * and shows on the answer; WB's balance read by the sync: test/integration/wb-balance.test.ts.
 */
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as exportHandler } from '../../functions/cashflow/export.handler';
import { handler as costsHandler } from '../../functions/pnl/period-costs.handler';
import { handler as purchasesHandler } from '../../functions/cashflow/purchases.handler';
import { handler as cashFlowHandler } from '../../functions/cashflow/get.handler';
import { getCashFlow } from '../../shared/cashflow/cashflow';
import { cashFlowDeps } from '../../shared/cashflow/deps';
import { manualClock } from '../../shared/deps';
import { getUserById } from '../../shared/store/users.repo';
import { putBalance } from '../../shared/store/wb-balance.repo';
import { apiEvent, bodyOf } from '../support/test-event';
import { getReportOk, makeReport, newUser, uploadOk, type TestUser } from '../support/reports';
import type { CashFlow } from '../../shared/contract';

const SELLER = '555777';
/** Weeks of the 2026 layout: week 8 = 02–08.03, week 10 = 16–22.03. */
function week(w: number) {
  const g = makeReport({ seed: 70 + w, week: w, rows: 80, articles: 6 });
  return {
    filename: `Еженедельный детализированный отчет №${g.expected.report_number}_${SELLER}.xlsx`,
    file: g.file,
  };
}
const kop = (roubles: number) => Math.round(roubles * 100);
const rub = (kopecks: number) => kopecks / 100;

describe('cash flow of March–May 2026 on 1 April 2026', () => {
  let u: TestUser;
  let w8: { id: string; payout: number; usn: number };
  let w10: { id: string; payout: number; usn: number };
  const clock = manualClock('2026-04-01T09:00:00Z');
  const run = async (q: { from: string; to: string }) =>
    getCashFlow({ ...cashFlowDeps, clock }, (await getUserById(u.id))!, q);

  beforeAll(async () => {
    u = await newUser(1_000_000, 'cashflow');
    const got = [];
    for (const w of [8, 10]) {
      const r = await getReportOk(u.token, (await uploadOk(u.token, week(w))).id);
      got.push({
        id: r.id,
        from: r.period_from,
        to: r.period_to,
        payout: kop(r.totals.payout!),
        usn: kop(r.totals.usn!),
      });
    }
    expect(got.map((g) => [g.from, g.to])).toEqual([
      ['2026-03-02', '2026-03-08'],
      ['2026-03-16', '2026-03-22'],
    ]);
    [w8, w10] = [got[0]!, got[1]!];
    const post = (path: string, body: unknown, h = costsHandler) =>
      h(apiEvent({ method: 'POST', path, token: u.token, body })).then((r) => expect(r.statusCode, r.body).toBe(201));
    await post('/api/period-costs', {
      name: 'Аренда',
      category: 'rent',
      amount: 30_000,
      kind: 'monthly',
      from_month: '2026-03',
    });
    await post('/api/period-costs', {
      name: 'Аудит',
      category: 'services',
      amount: 5_000,
      kind: 'one_off',
      date: '2026-04-10',
    });
    await post('/api/purchases', { date: '2026-03-25', amount: 100_000.5, comment: 'Фабрика' }, purchasesHandler);
    await post('/api/purchases', { date: '2026-05-05', amount: 20_000 }, purchasesHandler);
  }, 120_000);

  it('the payout calendar: 7 days before 2026-03-20, 21 after; held and approved on the clock', async () => {
    const cf = await run({ from: '2026-03', to: '2026-05' });
    expect(cf.today).toBe('2026-04-01');
    expect(cf.balance).toBeNull();
    // Uploads alone: no WB connection, the page says why there is no balance.
    expect(cf.balance_status).toEqual({
      connected: 0,
      notes: [
        { wb_seller_id: null, code: 'wb_not_connected', message: expect.stringMatching(/^WB не подключён/), at: null },
      ],
    });
    expect(cf.payouts).toEqual([
      {
        report_id: w8.id,
        wb_report_id: expect.any(String),
        period_from: '2026-03-02',
        period_to: '2026-03-08',
        amount: rub(w8.payout),
        amount_source: 'report_payout',
        formed_date: '2026-03-09',
        approved_date: '2026-03-16',
        expected_date: '2026-03-16',
        status: 'approved',
        paid_by: null,
        paid_on: null,
      },
      {
        report_id: w10.id,
        wb_report_id: expect.any(String),
        period_from: '2026-03-16',
        period_to: '2026-03-22',
        amount: rub(w10.payout),
        amount_source: 'report_payout',
        formed_date: '2026-03-23',
        approved_date: '2026-04-13',
        expected_date: '2026-04-13',
        status: 'held',
        paid_by: null,
        paid_on: null,
      },
    ]);
    expect(cf.rules.map((r) => [r.valid_from, r.objection_days])).toEqual([
      ['2019-01-01', 7],
      ['2026-03-20', 21],
    ]);
  });

  it('months: payouts by their day, costs, purchases and the Q1 USN advance on 28 April', async () => {
    const cf = await run({ from: '2026-03', to: '2026-05' });
    const q1 = w8.usn + w10.usn; // both weeks lie wholly in March
    expect(cf.tax_calendar).toEqual([
      { due_date: '2026-04-28', kind: 'usn_advance', period: '2026-Q1', amount: rub(q1) },
    ]);
    const march = { in: w8.payout, out: 3_000_000 + 10_000_050 };
    const april = { in: w10.payout, out: 3_000_000 + 500_000 + q1 };
    const may = { in: 0, out: 3_000_000 + 2_000_000 };
    expect(cf.months.map((m) => [m.month, m.inflow, m.outflow, m.net, m.position])).toEqual([
      ['2026-03', rub(march.in), rub(march.out), rub(march.in - march.out), rub(march.in - march.out)],
      [
        '2026-04',
        rub(april.in),
        rub(april.out),
        rub(april.in - april.out),
        rub(march.in - march.out + april.in - april.out),
      ],
      ['2026-05', 0, rub(may.out), rub(-may.out), rub(march.in - march.out + april.in - april.out - may.out)],
    ]);
    const april2 = Object.fromEntries(cf.months[1]!.lines.map((l) => [l.key, l.amount]));
    expect(april2).toEqual({
      payouts: rub(w10.payout),
      own_costs: 0,
      period_costs: 35_000,
      purchases: 0,
      usn: rub(q1),
    });
  });

  it('the next 8 weeks from Monday 30 March: the held payout, rent by its days, the one-off, the purchase, the USN', async () => {
    const cf = await run({ from: '2026-03', to: '2026-05' });
    expect(cf.forecast.map((w) => w.week_start)).toEqual([
      '2026-03-30',
      '2026-04-06',
      '2026-04-13',
      '2026-04-20',
      '2026-04-27',
      '2026-05-04',
      '2026-05-11',
      '2026-05-18',
    ]);
    // Rent 30,000 ₽ a month by its days: April 1,000 ₽ a day; March 31 days: 30 and 31 March are
    // ⌊31·3,000,000/31⌋ − ⌊29·3,000,000/31⌋ = 193,549 kopecks; 1–3 May ⌊3·3,000,000/31⌋ = 290,322;
    // 4–10 May ⌊10·3,000,000/31⌋ − 290,322 = 677,419.
    const q1 = w8.usn + w10.usn;
    expect(cf.forecast.map((w) => [w.inflow, w.outflow])).toEqual([
      [0, rub(193_549 + 500_000)],
      [0, rub(700_000 + 500_000)],
      [rub(w10.payout), 7_000],
      [0, 7_000],
      [0, rub(400_000 + 290_322 + q1)],
      [0, rub(677_419 + 2_000_000)],
      [0, rub(Math.floor((17 * 3_000_000) / 31) - Math.floor((10 * 3_000_000) / 31))],
      [0, rub(Math.floor((24 * 3_000_000) / 31) - Math.floor((17 * 3_000_000) / 31))],
    ]);
  });

  it('a payout due before the balance was first read is paid «before_history»; the balance with its time', async () => {
    await putBalance(u.id, {
      wb_seller_id: '4242',
      connection_id: 'c1',
      currency: 'RUB',
      current: 12_345_67,
      for_withdraw: 10_000_00,
      as_of: '2026-03-31T08:00:00.000Z',
    });
    const cf = await run({ from: '2026-03', to: '2026-05' });
    expect(cf.balance).toEqual({
      currency: 'RUB',
      current: 12_345.67,
      for_withdraw: 10_000,
      as_of: '2026-03-31T08:00:00.000Z',
      accounts: 1,
    });
    // w8's payout day (16 March) and its window ended before the first reading: WB had transferred it.
    expect(cf.payouts.map((p) => [p.status, p.paid_by])).toEqual([
      ['paid', 'before_history'],
      ['held', null],
    ]);
  });

  it('through the route: 200 with the contract’s shape; a bad range is 400 invalid_range', async () => {
    const ok = await cashFlowHandler(
      apiEvent({ method: 'GET', path: '/api/cash-flow', token: u.token, query: { from: '2026-03', to: '2026-05' } }),
    );
    expect(ok.statusCode, ok.body).toBe(200);
    expect(bodyOf<CashFlow>(ok).months).toHaveLength(3);
    const bad = await cashFlowHandler(
      apiEvent({ method: 'GET', path: '/api/cash-flow', token: u.token, query: { from: '2026-05', to: '2026-03' } }),
    );
    expect(bad.statusCode).toBe(400);
    expect(bodyOf<{ error: { code: string } }>(bad).error.code).toBe('invalid_range');
  });

  it('the export opens with the answer’s figures: months as columns, the payouts, the forecast and the USN', async () => {
    const q = { from: '2026-03', to: '2026-05' };
    const json = bodyOf<CashFlow>(
      await cashFlowHandler(apiEvent({ method: 'GET', path: '/api/cash-flow', token: u.token, query: q })),
    );
    const r = await exportHandler(apiEvent({ method: 'GET', path: '/api/cash-flow/export', token: u.token, query: q }));
    expect(r.statusCode).toBe(200);
    expect(r.headers?.['Content-Type'] ?? r.headers?.['content-type']).toContain('spreadsheetml');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(r.body ?? '', 'base64') as unknown as ArrayBuffer);
    const ws = wb.getWorksheet('Деньги')!;
    expect(ws.getCell('A3').value).toBe(
      'Баланс WB на 2026-03-31T08:00:00.000Z: на балансе 12345.67, можно вывести 10000.00',
    );
    expect([ws.getCell('A5').value, ws.getCell('B5').value, ws.getCell('D5').value, ws.getCell('E5').value]).toEqual([
      'Статья',
      'Март 2026',
      'Май 2026',
      'Итого',
    ]);
    expect([ws.getCell('A6').value, ws.getCell('B6').value, ws.getCell('C6').value]).toEqual([
      'Выплаты WB',
      rub(w8.payout),
      rub(w10.payout),
    ]);
    expect(ws.getCell('A10').value).toBe('− УСН (авансы и налог за год)');
    expect(ws.getCell('C10').value).toBe(rub(w8.usn + w10.usn));
    expect(ws.getCell('A13').value).toBe('Чистый поток');
    expect([2, 3, 4].map((c) => ws.getRow(13).getCell(c).value)).toEqual(json.months.map((m) => m.net));
    const payouts = wb.getWorksheet('Выплаты WB')!;
    expect(payouts.getRow(2).values).toEqual([
      undefined,
      json.payouts[0]!.wb_report_id,
      '02.03.2026',
      '08.03.2026',
      rub(w8.payout),
      'выплата по отчёту',
      '09.03.2026',
      '16.03.2026',
      '16.03.2026',
      'выплачен',
      'срок выплаты прошёл до первого чтения баланса',
    ]);
    const forecast = wb.getWorksheet('Прогноз')!;
    expect(forecast.getCell('A1').value).toBe('Неделя с');
    expect(forecast.rowCount).toBe(1 + 8 + 1 + 1 + json.tax_calendar.length);
  });
});
