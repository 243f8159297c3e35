import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as XLSX from '@e965/xlsx';
import { describe, expect, it } from 'vitest';
import type { FieldName } from '../engine/fields';
import { sampleItems, totalsOf, makeItem } from '../../test/support/sample-report.fixture';
import {
  SUMMARY_TEMPLATE_FOOTER,
  SUMMARY_TEMPLATE_HEADERS,
  SUMMARY_TEMPLATE_HEADER_ROW,
  SUMMARY_TEMPLATE_REPO_PATH,
  buildSummaryTemplate,
  loadSummaryTemplate,
} from './summary-template';
import { computeTotals } from '../engine/totals';
import type { ItemValues } from '../engine/types';
import { exportSummaryXls, summaryTotals } from './xls-summary';
import { readRecords } from './xls-print';
import type { SummaryRow } from './types';

type Grid = unknown[][];

function readBack(buf: Buffer): {
  grid: Grid;
  header: string[];
  col: (h: string) => number;
  headerRow: number;
  wb: XLSX.WorkBook;
} {
  // An .xls (BIFF8 compound file) begins with the OLE signature.
  expect(buf.subarray(0, 8).toString('hex')).toBe('d0cf11e0a1b11ae1');
  const wb = XLSX.read(buf, { type: 'buffer' });
  const grid = XLSX.utils.sheet_to_json<unknown[]>(wb.Sheets[wb.SheetNames[0]!]!, {
    header: 1,
    blankrows: true,
    defval: null,
    raw: true,
  });
  const headerRow = grid.findIndex((r) => r.includes('Номер отчёта'));
  const header = (grid[headerRow] as Array<string | null>).map((h) => h ?? '');
  const col = (h: string) => {
    const i = header.indexOf(h);
    if (i < 0) throw new Error(`no column ${h}`);
    return i;
  };
  return { grid, header, col, headerRow, wb };
}

const excelDate = (iso: string) =>
  Date.UTC(+iso.slice(0, 4), +iso.slice(5, 7) - 1, +iso.slice(8, 10)) / 86_400_000 + 25_569;
const kop = (v: unknown) => Math.round((v as number) * 100);

function reports(): SummaryRow[] {
  const a = sampleItems();
  const b = [
    makeItem(
      { article: 'ART-1', category: 'Футболки', nm_id: '11111111', brand: 'Бренд' },
      {
        sales_qty: 4,
        seller_price: 720_000,
        sales_seller_price: 720_000,
        wb_discount: 72_000,
        realization: 648_000,
        commission: 97_200,
        acquiring: 6_480,
        for_pay: 544_320,
        logistics: 20_000,
        storage: 4_321,
      },
      40_000,
    ),
  ];
  return [
    {
      report_number: '123456789',
      title: 'Отчёт 123456789',
      seller: { number: '987654', name: 'ИП Иванов' },
      period_from: '2022-12-05',
      period_to: '2022-12-11',
      rows: 49,
      totals: totalsOf(a),
    },
    {
      report_number: '123999000',
      seller: { number: '987654', name: 'ИП Иванов' },
      period_from: '2022-12-12',
      period_to: '2022-12-18',
      rows: 12,
      totals: totalsOf(b),
    },
    // a combined report: no number, no seller
    {
      report_number: null,
      title: 'Объединённый',
      seller: null,
      period_from: null,
      period_to: null,
      rows: 3,
      totals: totalsOf(b),
    },
  ];
}

const MONEY_HEADERS: Array<[string, FieldName]> = [
  ['Цена продавца, руб.', 'seller_price'],
  ['Скидка WB (СПП), руб.', 'wb_discount'],
  ['Реализация, руб.', 'realization'],
  ['Комиссия WB, руб.', 'commission'],
  ['Эквайринг, руб.', 'acquiring'],
  ['К перечислению, руб.', 'for_pay'],
  ['Логистика, руб.', 'logistics'],
  ['Хранение, руб.', 'storage'],
  ['Займы, руб.', 'loans'],
  ['К выплате, руб.', 'payout'],
  ['Себестоимость, руб.', 'cost_total'],
  ['Прибыль, руб.', 'profit'],
];

const NOT_COMPUTED = ['Себестоимость по 1С, руб.', 'Ответственный', 'Комментарий'];

describe('summary template', () => {
  it('is the file scripts/make-summary-template.ts writes', () => {
    const committed = readFileSync(path.resolve(__dirname, '..', '..', SUMMARY_TEMPLATE_REPO_PATH));
    expect(loadSummaryTemplate().equals(committed)).toBe(true);
    // Compared by content: SheetJS keeps number formats it has seen in a process-wide table, so the bytes
    // written after other exports in the same process may carry extra (unused) format records.
    const content = (buf: Buffer) => {
      const ws = XLSX.read(buf, { type: 'buffer', cellStyles: true }).Sheets['Сводная']!;
      return {
        cells: XLSX.utils.sheet_to_json(ws, { header: 1, blankrows: true }),
        merges: ws['!merges'],
        cols: ws['!cols'],
      };
    };
    expect(content(committed)).toEqual(content(buildSummaryTemplate()));
  });

  it('is an .xls with a title, the header row and a signature line', () => {
    const { grid, header, headerRow } = readBack(loadSummaryTemplate());
    expect(headerRow).toBe(SUMMARY_TEMPLATE_HEADER_ROW);
    expect(header).toEqual(SUMMARY_TEMPLATE_HEADERS);
    expect(String(grid[0]![0])).toContain('Сводная ведомость');
    expect(grid[headerRow + 2]![0]).toBe(SUMMARY_TEMPLATE_FOOTER);
    for (const h of NOT_COMPUTED) expect(header).toContain(h);
  });
});

describe('exportSummaryXls', () => {
  const input = reports();
  const out = readBack(exportSummaryXls(input));
  const { grid, col, headerRow } = out;
  const rowOf = (i: number) => grid[headerRow + 1 + i];
  const totalsRow = grid[headerRow + 1 + input.length]!;

  it('prints A4 landscape, one page wide, with the rows down to the header frozen; keeps the column widths', () => {
    const buf = exportSummaryXls(input);
    const cfb = XLSX.CFB.read(buf, { type: 'buffer' });
    const stream = Buffer.from((XLSX.CFB.find(cfb, 'Workbook') as { content: Uint8Array }).content);
    const records = readRecords(stream);
    const sheet = records.slice(records.findIndex((r) => r.type === 0x000a) + 1);
    const setup = sheet.find((r) => r.type === 0x00a1)!.data;
    expect(setup.readUInt16LE(0)).toBe(9); // A4
    expect([setup.readUInt16LE(6), setup.readUInt16LE(8)]).toEqual([1, 0]); // 1 page wide, any down
    expect(setup.readUInt16LE(10) & 0x0002).toBe(0); // not portrait
    expect(setup.readUInt16LE(10) & 0x0044).toBe(0); // orientation and paper valid
    expect(sheet.find((r) => r.type === 0x0081)!.data.readUInt16LE(0) & 0x0100).toBe(0x0100); // fit to page
    expect(sheet.find((r) => r.type === 0x023e)!.data.readUInt16LE(0) & 0x0108).toBe(0x0108); // frozen
    const pane = sheet.find((r) => r.type === 0x0041)!.data;
    expect(pane.readUInt16LE(2)).toBe(headerRow + 1);
    // The template's widths survive, and the file still reads.
    const template = XLSX.read(loadSummaryTemplate(), { type: 'buffer', cellStyles: true });
    const written = XLSX.read(buf, { type: 'buffer', cellStyles: true });
    const widths = (wb: XLSX.WorkBook) => (wb.Sheets[wb.SheetNames[0]!]!['!cols'] ?? []).map((c) => c?.wch);
    expect(widths(written)).toEqual(widths(template));
    expect(widths(written).length).toBeGreaterThan(20);
  });

  it('keeps the template: title, header, sheet name', () => {
    expect(String(grid[0]![0])).toContain('Сводная ведомость');
    expect(grid[headerRow]).toEqual(SUMMARY_TEMPLATE_HEADERS);
    expect(out.wb.SheetNames).toEqual(['Сводная']);
  });

  it('writes one row per report with number, seller, period, rows and totals in roubles', () => {
    const r0 = rowOf(0);
    expect(r0![col('№ п/п')]).toBe(1);
    expect(r0![col('Номер отчёта')]).toBe('123456789');
    expect(r0![col('Наименование')]).toBe('Отчёт 123456789');
    expect(r0![col('Продавец')]).toBe('ИП Иванов');
    expect(r0![col('Код продавца WB')]).toBe('987654');
    expect(r0![col('Период с')]).toBe(excelDate('2022-12-05'));
    expect(r0![col('Период по')]).toBe(excelDate('2022-12-11'));
    expect(r0![col('Кол-во строк')]).toBe(49);
    expect(r0![col('Продано, шт.')]).toBe(14);
    expect(r0![col('Возвраты, шт.')]).toBe(1);
    expect(r0![col('Реализация, руб.')]).toBe(24499.5);
    expect(r0![col('Займы, руб.')]).toBe(1000);
    for (const [h, f] of MONEY_HEADERS) {
      for (let i = 0; i < input.length; i++)
        expect(kop(rowOf(i)![col(h)]), `${h} of report ${i}`).toBe(input[i]!.totals[f]);
    }
    expect(rowOf(0)![col('Маржа, %')]).toBe(input[0]!.totals.margin);
    const r2 = rowOf(2);
    expect(r2![col('№ п/п')]).toBe(3);
    expect(r2![col('Номер отчёта')]).toBeNull();
    expect(r2![col('Продавец')]).toBeNull();
    expect(r2![col('Период с')]).toBeNull();
  });

  it('writes a totals row whose sums equal the column sums and whose margin comes from the sums', () => {
    expect(totalsRow[col('№ п/п')]).toBe('Итого');
    for (const [h] of MONEY_HEADERS) {
      const sum = input.reduce((s, _r, i) => s + kop(rowOf(i)![col(h)]), 0);
      expect(kop(totalsRow[col(h)]), h).toBe(sum);
    }
    expect(totalsRow[col('Кол-во строк')]).toBe(64);
    expect(totalsRow[col('Продано, шт.')]).toBe(14 + 4 + 4);
    expect(totalsRow[col('Период с')]).toBe(excelDate('2022-12-05'));
    expect(totalsRow[col('Период по')]).toBe(excelDate('2022-12-18'));
    const profit = kop(totalsRow[col('Прибыль, руб.')]);
    const realization = kop(totalsRow[col('Реализация, руб.')]);
    expect(totalsRow[col('Маржа, %')]).toBe(Math.round((profit / realization) * 10000) / 100);
  });

  it('leaves the columns the product does not compute empty', () => {
    for (let i = 0; i <= input.length; i++) {
      for (const h of NOT_COMPUTED) expect(grid[headerRow + 1 + i]![col(h)], `${h} row ${i}`).toBeNull();
    }
  });

  it('moves the signature line below the totals', () => {
    expect(grid[headerRow + 1 + input.length + 1]!.every((v) => v === null)).toBe(true);
    expect(grid[headerRow + 1 + input.length + 3]![0]).toBe(SUMMARY_TEMPLATE_FOOTER);
  });

  it('maps columns by header text, not by position', () => {
    const shuffled = ['Комментарий', 'Прибыль, руб.', 'Реализация, ₽', 'Номер отчёта', 'Продавец', 'Ответственный'];
    const res = readBack(exportSummaryXls(input, buildSummaryTemplate(shuffled)));
    const r0 = res.grid[res.headerRow + 1];
    expect(r0).toEqual([null, input[0]!.totals.profit! / 100, 24499.5, '123456789', 'ИП Иванов', null]);
    const t = res.grid[res.headerRow + 1 + input.length]!;
    // No "№" column: the label goes to the leftmost column without a total of its own.
    expect(t[res.col('Номер отчёта')]).toBe('Итого');
    expect(t[res.col('Комментарий')]).toBeNull();
    expect(kop(t[res.col('Реализация, ₽')])).toBe(input.reduce((s, r) => s + (r.totals.realization ?? 0), 0));
  });

  it('writes a formula-looking report number and seller name as text', () => {
    const wb = XLSX.read(
      exportSummaryXls([{ ...input[0]!, report_number: '=1+1', seller: { number: '@x', name: '=HYPERLINK("x")' } }]),
      { type: 'buffer', cellFormula: true },
    );
    const ws = wb.Sheets[wb.SheetNames[0]!]!;
    const cells = Object.entries(ws).filter(([k]) => !k.startsWith('!')) as Array<[string, XLSX.CellObject]>;
    expect(cells.filter(([, c]) => c.f !== undefined)).toEqual([]);
    const texts = cells.map(([, c]) => c.v);
    expect(texts).toContain('=1+1');
    expect(texts).toContain('=HYPERLINK("x")');
  });

  it('refuses a template without a report-number header', () => {
    expect(() => exportSummaryXls(input, buildSummaryTemplate(['Продавец', 'Реализация, руб.']))).toThrow(
      /Номер отчёта/,
    );
  });
});

describe('summaryTotals', () => {
  const row = (n: string, totals: Partial<ItemValues>): SummaryRow => ({
    report_number: n,
    seller: null,
    period_from: null,
    period_to: null,
    rows: 1,
    totals: totals as ItemValues,
  });

  it('is the engine’s report-level rule over the reports’ totals: a returns-heavy week carries no commission weight', () => {
    const reports = [
      row('1', { realization: 100_000, category_commission_percent: 20, profit: 30_000, cost_total: 50_000 }),
      row('2', { realization: -10_000, category_commission_percent: 25, profit: -4_000, cost_total: -5_000 }),
    ];
    const t = summaryTotals(reports);
    expect(t).toEqual(computeTotals(reports.map((r) => r.totals)));
    expect(t.category_commission_percent).toBe(20);
    expect(t.realization).toBe(90_000);
    expect(t.margin).toBe(Math.round((26_000 / 90_000) * 10_000) / 100);
  });
});
