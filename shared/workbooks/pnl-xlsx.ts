/**
 * The P&L as .xlsx for an accountant (docs/API.md: GET /api/pnl/export): sheet «P&L» with the lines
 * as rows and the months as columns, a «Итого» column, net profit and margin at the bottom; sheet
 * «Источники» with every report taken and its share per month, and the period costs; the warnings and
 * the tax thresholds below the table. Money in roubles with 2 decimals, Russian titles.
 */
import ExcelJS from 'exceljs';
import { kopecksToRoubles } from '../engine/fields';
import { PERIOD_COST_CATEGORY_TITLES, PNL_LINE_ORDER, type PnlResult } from '../engine/pnl';
import type { TaxThreshold } from '../contract/pnl-shapes';
import { safeText } from './columns';
import { fitToWidthSetup } from './print';
import { monthTitle } from '../engine/months';

const ru = (d: string): string => `${d.slice(8, 10)}.${d.slice(5, 7)}.${d.slice(0, 4)}`;

function header(row: ExcelJS.Row): void {
  row.font = { bold: true };
  row.alignment = { vertical: 'middle', wrapText: true };
  row.eachCell((cell) => {
    cell.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFE8EEF7' } };
    cell.border = { bottom: { style: 'thin' } };
  });
}

/** The first data row of sheet «P&L» (title, subtitle, blank, header above it). */
const PNL_FIRST_LINE_ROW = 5;

export async function exportPnlXlsx(
  r: PnlResult,
  thresholds: readonly TaxThreshold[],
  sellerName: string | null,
): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  wb.creator = 'Report Profitability Service';
  const ws = wb.addWorksheet('P&L', {
    views: [{ state: 'frozen', xSplit: 1, ySplit: PNL_FIRST_LINE_ROW - 1 }],
    pageSetup: { ...fitToWidthSetup(PNL_FIRST_LINE_ROW - 1), orientation: 'landscape' },
  });
  ws.addRow([
    `Отчёт о прибылях и убытках: ${monthTitle(r.from)} — ${monthTitle(r.to)}${sellerName ? ` · ${safeText(sellerName)}` : ''}`,
  ]).font = { bold: true, size: 13 };
  ws.addRow(['Суммы в рублях. Расходы — положительными числами; неделя на стыке месяцев делится по дням.']).font = {
    italic: true,
    color: { argb: 'FF666666' },
  };
  ws.addRow([]);
  header(ws.addRow(['Статья', ...r.months.map((m) => monthTitle(m.month)), 'Итого']));
  for (const l of PNL_LINE_ORDER) {
    const row = ws.addRow([
      l.sign === -1 ? `− ${l.title}` : l.sign === 1 ? l.title : `   ${l.title}`,
      ...r.months.map((m) => kopecksToRoubles(m.lines[l.key] ?? 0)),
      kopecksToRoubles(r.totals.lines[l.key] ?? 0),
    ]);
    if (l.sign === 0) row.font = { italic: true, color: { argb: 'FF666666' } };
  }
  const net = ws.addRow([
    'Чистая прибыль',
    ...r.months.map((m) => kopecksToRoubles(m.net_profit)),
    kopecksToRoubles(r.totals.net_profit),
  ]);
  net.font = { bold: true };
  net.eachCell((c) => (c.border = { top: { style: 'thin' } }));
  const margin = ws.addRow(['Рентабельность, %', ...r.months.map((m) => m.margin), r.totals.margin]);
  margin.numFmt = '0.00';
  ws.addRow([
    'Дней с отчётами',
    ...r.months.map((m) => `${m.covered_days} из ${m.days}`),
    `${r.totals.covered_days} из ${r.totals.days}`,
  ]);
  ws.columns.forEach((col, i) => {
    col.width = i === 0 ? 44 : 16;
    if (i > 0) col.numFmt = '#,##0.00';
  });

  if (thresholds.length > 0 || r.warnings.length > 0) ws.addRow([]);
  for (const t of thresholds) {
    ws.addRow([`Порог НДС (${safeText(t.seller_name)}): ${t.message}`]).font = {
      bold: t.level !== 'below',
      color: { argb: t.level === 'below' ? 'FF333333' : 'FFB00020' },
    };
    for (const p of t.proposals)
      ws.addRow([`Добавьте налоговый период с ${ru(p.valid_from)}: НДС ${p.vat_rate} %, УСН ${p.usn_rate} %`]);
  }
  for (const w of r.warnings) ws.addRow([safeText(w.message)]);

  const src = wb.addWorksheet('Источники', { views: [{ state: 'frozen', ySplit: 1 }], pageSetup: fitToWidthSetup(1) });
  header(src.addRow(['Месяц', 'Отчёт', 'Период отчёта', 'Дней в месяце', 'Доля отчёта, %']));
  const byId = new Map(r.sources.map((s) => [s.report_id, s]));
  for (const m of r.months)
    for (const x of m.reports) {
      const s = byId.get(x.report_id);
      src.addRow([
        monthTitle(m.month),
        safeText(s?.title ?? x.report_id),
        s ? `${ru(s.period_from)}–${ru(s.period_to)}` : '',
        x.days,
        x.share,
      ]);
    }
  src.addRow([]);
  header(src.addRow(['Месяц', 'Расход периода', 'Категория', '', 'Сумма, ₽']));
  for (const m of r.months)
    for (const c of m.period_costs)
      src.addRow([
        monthTitle(m.month),
        safeText(c.name),
        PERIOD_COST_CATEGORY_TITLES[c.category],
        '',
        kopecksToRoubles(c.amount),
      ]);
  src.columns.forEach((col, i) => {
    col.width = [16, 40, 24, 14, 16][i] ?? 14;
  });

  return Buffer.from(await wb.xlsx.writeBuffer());
}
