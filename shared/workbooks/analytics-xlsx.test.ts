import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { addDays, computeAnalytics, type ReportFigures, type ReportInfo } from '../engine/analytics/compute';
import { emptyWeekFigures } from '../engine/analytics/summary';
import { exportAnalyticsXlsx } from './analytics-xlsx';

const info = (id: string, from: string, extra: Partial<ReportInfo> = {}): ReportInfo => ({
  id,
  title: `Отчёт ${id}`,
  status: 'ready',
  is_combined: false,
  seller_id: null,
  period_from: from,
  period_to: addDays(from, 6),
  created_at: `2026-01-01T00:00:0${id}Z`,
  identity: `i-${id}`,
  stale: false,
  ...extra,
});

function figures(article: string, realization: number, profit: number): ReportFigures {
  const totals = emptyWeekFigures();
  totals.realization = realization;
  totals.profit = profit;
  return { totals, articles: [{ article, realization, profit, sales_qty: 1, returns_qty: 0, cost_price: 0 }] };
}

describe('analytics workbook', () => {
  it('prints every sheet A4 landscape at 80 %, never fitted to one page, its header row repeated and frozen', async () => {
    const result = computeAnalytics({
      from: '2026-01-05',
      to: '2026-01-25',
      reports: [info('1', '2026-01-05'), info('2', '2026-01-19', { status: 'processing' })],
      figures: new Map([['1', figures('Длинное название артикула', 100_00, 20_00)]]),
    });
    expect(result.warnings.length).toBeGreaterThan(0);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await exportAnalyticsXlsx(result, 'ИП Иванов')) as unknown as ArrayBuffer);
    const headerRow: Record<string, number> = {
      Недели: 3,
      Артикулы: 1,
      'Группы маржи': 1,
      Предупреждения: 1,
    };
    expect(wb.worksheets.map((w) => w.name)).toEqual(Object.keys(headerRow));
    for (const ws of wb.worksheets) {
      const row = headerRow[ws.name]!;
      expect(ws.pageSetup, ws.name).toMatchObject({
        orientation: 'landscape',
        paperSize: 9,
        fitToPage: false,
        scale: 80,
        printTitlesRow: `${row}:${row}`,
      });
      expect(ws.views[0], ws.name).toMatchObject({ state: 'frozen', ySplit: row });
    }
    const arts = wb.getWorksheet('Артикулы')!;
    expect(arts.pageSetup.printTitlesColumn).toBe('A:A');
    expect(wb.getWorksheet('Недели')!.pageSetup.printTitlesColumn).toBe('A:B');
    expect(arts.getColumn(1).width).toBe('Длинное название артикула'.length + 2);
    expect(wb.getWorksheet('Недели')!.getRow(3).getCell(1).value).toBe('Неделя с');
  });
});
