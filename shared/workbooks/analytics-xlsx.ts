/**
 * Period analytics as .xlsx (docs/API.md: GET /api/analytics/export): a «Недели» sheet (one row per
 * week, the range's totals, the previous range and the change in %), an «Артикулы» sheet (per article
 * with ABC letters and margin group) and the warnings. Money in roubles with 2 decimals.
 */
import ExcelJS from 'exceljs';
import type { AnalyticsResult, Totals } from '../engine/analytics/compute';
import { kopecksToRoubles } from '../engine/fields';
import { safeText } from './columns';
import { printSetup, styleHeaderRow as header } from './print';

const GROUP_TITLE = { high: 'Маржа ≥ 20 %', low: 'Маржа 0–20 %', loss: 'Убыточные (< 0)' } as const;

const WEEK_COLUMNS: Array<{ key: keyof Totals; title: string; money: boolean }> = [
  { key: 'realization', title: 'Реализация, ₽', money: true },
  { key: 'for_pay', title: 'К перечислению, ₽', money: true },
  { key: 'payout', title: 'К выплате, ₽', money: true },
  { key: 'expenses', title: 'Расходы, ₽', money: true },
  { key: 'profit', title: 'Прибыль, ₽', money: true },
  { key: 'margin', title: 'Маржа, %', money: false },
  { key: 'sales_qty', title: 'Продажи, шт', money: false },
  { key: 'returns_qty', title: 'Возвраты, шт', money: false },
];

const ru = (d: string): string => `${d.slice(8, 10)}.${d.slice(5, 7)}.${d.slice(0, 4)}`;
const figure = (t: Totals, c: (typeof WEEK_COLUMNS)[number]): number | null => {
  const v = t[c.key];
  return v === null ? null : c.money ? kopecksToRoubles(v) : v;
};

export async function exportAnalyticsXlsx(r: AnalyticsResult, sellerName: string | null): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  wb.creator = 'Report Profitability Service';

  // The week table's header is row 3 (a title and a blank row above it).
  const weeks = wb.addWorksheet('Недели', {
    views: [{ state: 'frozen', ySplit: 3 }],
    pageSetup: printSetup(3, 'A:B'),
  });
  weeks.addRow([
    `Аналитика за ${ru(r.range.from)}–${ru(r.range.to)}${sellerName ? ` · ${safeText(sellerName)}` : ''}`,
  ]).font = { bold: true, size: 13 };
  weeks.addRow([]);
  header(weeks.addRow(['Неделя с', 'по', 'Отчётов', ...WEEK_COLUMNS.map((c) => c.title)]));
  for (const w of r.weeks)
    weeks.addRow([ru(w.period_from), ru(w.period_to), w.report_ids.length, ...WEEK_COLUMNS.map((c) => figure(w, c))]);
  const total = weeks.addRow([
    'Итого',
    '',
    r.weeks.reduce((n, w) => n + w.report_ids.length, 0),
    ...WEEK_COLUMNS.map((c) => figure(r.totals, c)),
  ]);
  total.font = { bold: true };
  weeks.addRow([
    `Прошлый период ${ru(r.previous_range.from)}–${ru(r.previous_range.to)}`,
    '',
    '',
    ...WEEK_COLUMNS.map((c) => figure(r.previous, c)),
  ]);
  weeks.addRow(['Изменение, % (маржа — п.п.)', '', '', ...WEEK_COLUMNS.map((c) => r.previous.change[c.key])]);
  weeks.columns.forEach((col, i) => {
    col.width = i === 0 ? 16 : i < 3 ? 11 : 17;
    if (i >= 3) col.numFmt = '#,##0.00';
  });

  const arts = wb.addWorksheet('Артикулы', {
    views: [{ state: 'frozen', ySplit: 1 }],
    pageSetup: printSetup(1, 'A:A'),
  });
  header(
    arts.addRow([
      'Артикул',
      'Реализация, ₽',
      'Прибыль, ₽',
      'Маржа, %',
      'Продажи, шт',
      'Возвраты, шт',
      'ABC по выручке',
      'ABC по прибыли',
      'Группа маржи',
    ]),
  );
  for (const a of r.articles)
    arts.addRow([
      safeText(a.article === '' ? 'Без артикула' : a.article),
      kopecksToRoubles(a.realization),
      kopecksToRoubles(a.profit),
      a.margin,
      a.sales_qty,
      a.returns_qty,
      a.abc_revenue ?? '',
      a.abc_profit ?? '',
      a.margin_group ? GROUP_TITLE[a.margin_group] : '',
    ]);
  const longest = r.articles.reduce((n, a) => Math.max(n, a.article.length), 'Без артикула'.length);
  arts.columns.forEach((col, i) => {
    // One A4 landscape page across at the print scale: the article wraps past 30 characters.
    col.width = i === 0 ? Math.min(30, Math.max(14, longest + 2)) : i <= 2 ? 14 : i <= 5 ? 11 : i <= 7 ? 10 : 16;
    if (i >= 1 && i <= 3) col.numFmt = '#,##0.00';
  });
  arts.getColumn(1).alignment = { wrapText: true, vertical: 'top' };

  const groups = wb.addWorksheet('Группы маржи', {
    views: [{ state: 'frozen', ySplit: 1 }],
    pageSetup: printSetup(1),
  });
  header(groups.addRow(['Группа', 'Артикулов', 'Реализация, ₽', 'Прибыль, ₽']));
  for (const g of ['high', 'low', 'loss'] as const)
    groups.addRow([
      GROUP_TITLE[g],
      r.margin_groups[g].count,
      kopecksToRoubles(r.margin_groups[g].realization),
      kopecksToRoubles(r.margin_groups[g].profit),
    ]);
  groups.columns.forEach((col) => (col.width = 18));

  if (r.warnings.length > 0) {
    const warn = wb.addWorksheet('Предупреждения', {
      views: [{ state: 'frozen', ySplit: 1 }],
      pageSetup: printSetup(1),
    });
    header(warn.addRow(['Код', 'Что']));
    for (const w of r.warnings) warn.addRow([w.code, safeText(w.message)]);
    warn.columns.forEach((col, i) => (col.width = i === 0 ? 20 : 90));
    warn.getColumn(2).alignment = { wrapText: true, vertical: 'top' };
  }
  return Buffer.from(await wb.xlsx.writeBuffer());
}
