/**
 * The cash flow as .xlsx (docs/API.md: GET /api/cash-flow/export), laid out like the P&L's: sheet
 * «Деньги» with the lines as rows and the months as columns, «Итого», money in, out, net and the running
 * position, WB's balance with its time above; sheet «Выплаты WB» with each payout's dates and status;
 * sheet «Прогноз» with the next 8 weeks and the USN due dates. Money in roubles, Russian titles.
 */
import ExcelJS from 'exceljs';
import type { CashFlow } from '../contract/cashflow-shapes';
import { monthTitle } from '../engine/months';
import { safeText } from './columns';
import { printSetup, styleHeaderRow as header } from './print';

const ru = (d: string): string => `${d.slice(8, 10)}.${d.slice(5, 7)}.${d.slice(0, 4)}`;
/** How the balance history shows a payout arrived (the «Деньги» page says the same). */
function paidBy(p: CashFlow['payouts'][number]): string {
  if (p.paid_by === 'balance_rise' && p.paid_on) return `«Можно вывести» выросло на сумму ${ru(p.paid_on)}`;
  if (p.paid_by === 'before_history') return 'срок выплаты прошёл до первого чтения баланса';
  return '';
}

const STATUS: Record<CashFlow['payouts'][number]['status'], string> = {
  held: 'на проверке WB',
  approved: 'одобрен, к выплате',
  paid: 'выплачен',
};
const TAX_KIND: Record<CashFlow['tax_calendar'][number]['kind'], string> = {
  usn_advance: 'Аванс по УСН',
  usn_year: 'УСН за год',
};

const sum = (xs: readonly number[]) => Math.round(xs.reduce((s, x) => s + x * 100, 0)) / 100;

/** The first data row of sheet «Деньги» (title, subtitle, balance, blank, header above it). */
const FIRST_LINE_ROW = 6;

export async function exportCashFlowXlsx(cf: CashFlow, sellerName: string | null): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  wb.creator = 'Report Profitability Service';
  const ws = wb.addWorksheet('Деньги', {
    views: [{ state: 'frozen', xSplit: 1, ySplit: FIRST_LINE_ROW - 1 }],
    pageSetup: { ...printSetup(FIRST_LINE_ROW - 1), orientation: 'landscape' },
  });
  ws.addRow([
    `Движение денег: ${monthTitle(cf.from)} — ${monthTitle(cf.to)}${sellerName ? ` · ${safeText(sellerName)}` : ''}`,
  ]).font = { bold: true, size: 13 };
  ws.addRow([
    'Суммы в рублях. Поступления — выплаты WB по дню выплаты; расходы — положительными числами; УСН — по срокам уплаты.',
  ]).font = { italic: true, color: { argb: 'FF666666' } };
  ws.addRow([
    cf.balance
      ? `Баланс WB на ${cf.balance.as_of}: на балансе ${cf.balance.current.toFixed(2)}, можно вывести ${cf.balance.for_withdraw.toFixed(2)}`
      : 'Баланс WB: нет данных (нет подключения WB или баланс ещё не прочитан)',
  ]);
  ws.addRow([]);
  header(ws.addRow(['Статья', ...cf.months.map((m) => monthTitle(m.month)), 'Итого']));
  const keys = cf.months[0]?.lines ?? [];
  for (const [i, l] of keys.entries()) {
    const values = cf.months.map((m) => m.lines[i]!.amount);
    ws.addRow([l.sign === -1 ? `− ${l.title}` : l.title, ...values, sum(values)]);
  }
  const total = (label: string, pick: (m: CashFlow['months'][number]) => number, bold = false, withSum = true) => {
    const values = cf.months.map(pick);
    const row = ws.addRow([label, ...values, ...(withSum ? [sum(values)] : [])]);
    if (bold) row.font = { bold: true };
    return row;
  };
  total('Поступления', (m) => m.inflow).eachCell((c) => (c.border = { top: { style: 'thin' } }));
  total('Расходы', (m) => m.outflow);
  total('Чистый поток', (m) => m.net, true);
  total('Накопленный итог с начала периода', (m) => m.position, false, false);
  ws.columns.forEach((col, i) => {
    col.width = i === 0 ? 44 : 16;
    if (i > 0) col.numFmt = '#,##0.00';
  });

  const payouts = wb.addWorksheet('Выплаты WB', {
    views: [{ state: 'frozen', ySplit: 1 }],
    pageSetup: { ...printSetup(1), orientation: 'landscape' },
  });
  header(
    payouts.addRow([
      'Отчёт WB',
      'Период с',
      'по',
      'Сумма',
      'Откуда сумма',
      'Сформирован',
      'Одобрен',
      'Ожидаемая выплата',
      'Статус',
      'Как видно, что пришла',
    ]),
  );
  for (const p of cf.payouts)
    payouts.addRow([
      p.wb_report_id ?? p.report_id,
      ru(p.period_from),
      ru(p.period_to),
      p.amount,
      p.amount_source === 'wb_bank_payment' ? '«Итого к оплате» WB' : 'выплата по отчёту',
      ru(p.formed_date),
      ru(p.approved_date),
      ru(p.expected_date),
      STATUS[p.status],
      paidBy(p),
    ]);
  payouts.columns.forEach((col, i) => {
    col.width = i === 9 ? 28 : i === 4 || i === 8 ? 22 : 14;
    if (i === 9) col.alignment = { wrapText: true, vertical: 'top' };
    if (i === 3) col.numFmt = '#,##0.00';
  });
  payouts.addRow([]);
  for (const r of cf.rules)
    payouts.addRow([`С ${ru(r.valid_from)}: проверка ${r.objection_days} дн. Источник: ${safeText(r.source)}`]);

  const forecast = wb.addWorksheet('Прогноз', { pageSetup: printSetup(1) });
  header(forecast.addRow(['Неделя с', 'Поступления', 'Расходы', 'Итог недели']));
  for (const w of cf.forecast) forecast.addRow([ru(w.week_start), w.inflow, w.outflow, sum([w.inflow, -w.outflow])]);
  forecast.addRow([]);
  header(forecast.addRow(['Срок уплаты', 'Налог', 'Период', 'Сумма']));
  for (const t of cf.tax_calendar) forecast.addRow([ru(t.due_date), TAX_KIND[t.kind], t.period, t.amount]);
  forecast.columns.forEach((col, i) => {
    col.width = i === 1 ? 18 : 16;
  });
  for (const c of [2, 3, 4]) forecast.getColumn(c).numFmt = '#,##0.00';
  return Buffer.from(await wb.xlsx.writeBuffer());
}
