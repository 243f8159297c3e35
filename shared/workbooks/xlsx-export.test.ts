import ExcelJS from 'exceljs';
import yauzl from 'yauzl';
import { describe, expect, it, beforeAll } from 'vitest';
import { FIELDS, type FieldName } from '../engine/fields';
import { PAYOUT_LINES } from '../engine/payout';
import { isUnknownRate } from '../engine/fields';
import {
  ALL_FIELD_NAMES,
  EXPORT_FIELD_ORDER,
  MAIN_EXPORT_FIELDS,
  MAIN_EXPORT_TITLES,
  columnTitle,
  fieldDef,
} from './columns';
import { FORMULA_ARTICLE, sampleReport } from '../../test/support/sample-report.fixture';
import {
  MANUAL_FILL_ARGB,
  PAYOUT_LABEL,
  RECONCILIATION_TITLE,
  SHEET_COMMISSION,
  SHEET_ITEMS,
  SHEET_SUMMARY,
  exportReportXlsx,
  ITEM_COLUMNS,
} from './xlsx-export';
import type { ExportReport } from './types';
import type { ItemValues } from '../engine/types';

/** Reads one entry of a zip (the xlsx) as text, to look at the XML Excel will see. */
function zipEntry(buf: Buffer, name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buf, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName !== name) return zip.readEntry();
        zip.openReadStream(entry, (e2, stream) => {
          if (e2 || !stream) return reject(e2);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        });
      });
      zip.on('end', () => reject(new Error(`${name} not in zip`)));
      zip.readEntry();
    });
  });
}

async function load(buf: Buffer): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(buf as unknown as ArrayBuffer);
  return wb;
}

const kop = (roubles: unknown) => Math.round((roubles as number) * 100);

function rowValues(ws: ExcelJS.Worksheet, r: number, count: number): unknown[] {
  const out: unknown[] = [];
  for (let c = 1; c <= count; c++) out.push(ws.getRow(r).getCell(c).value);
  return out;
}

describe('export column order', () => {
  it('lists every field of FIELDS exactly once', () => {
    expect([...EXPORT_FIELD_ORDER].sort()).toEqual([...ALL_FIELD_NAMES].sort());
    expect(new Set(EXPORT_FIELD_ORDER).size).toBe(FIELDS.length);
  });

  it('starts with the main figures (the first printed page), then every other field', () => {
    expect(EXPORT_FIELD_ORDER.slice(0, MAIN_EXPORT_FIELDS.length)).toEqual(MAIN_EXPORT_FIELDS);
    // The first page across: «Расходы WB» (not a field) between realization and the cost.
    expect(MAIN_EXPORT_TITLES).toEqual([
      'Продажи, шт',
      'Реализация, ₽',
      'Расходы WB, ₽',
      'Себестоимость, ₽',
      'Прибыль, ₽',
      'Маржа, %',
      'К выплате, ₽',
    ]);
  });

  it("the other fields follow the way from the seller's price to profit", () => {
    const rest = EXPORT_FIELD_ORDER.slice(MAIN_EXPORT_FIELDS.length);
    const pos = (f: FieldName) => rest.indexOf(f);
    const way: FieldName[] = [
      'seller_price',
      'wb_discount',
      'realization',
      'commission',
      'acquiring',
      'attorney_services',
      'for_pay',
      'compensations',
      'additional_payments',
      'loyalty',
      'logistics',
      'reverse_logistics',
      'rebill_logistics',
      'storage',
      'acceptance',
      'penalties',
      'deductions',
      'ads',
      'vat',
      'usn',
    ].filter((f) => !MAIN_EXPORT_FIELDS.includes(f as FieldName)) as FieldName[];
    for (let i = 1; i < way.length; i++)
      expect(pos(way[i]!), `${way[i - 1]} before ${way[i]}`).toBeGreaterThan(pos(way[i - 1]!));
  });
});

describe('exportReportXlsx', () => {
  let report: ExportReport;
  let buf: Buffer;
  let wb: ExcelJS.Workbook;
  let ws: ExcelJS.Worksheet;
  const width = ITEM_COLUMNS.length;
  const col = (f: FieldName) => 1 + ITEM_COLUMNS.findIndex((c) => c.kind === 'field' && c.field === f);
  const CATEGORY = 3 + MAIN_EXPORT_FIELDS.length;

  beforeAll(async () => {
    report = sampleReport();
    buf = await exportReportXlsx(report);
    wb = await load(buf);
    ws = wb.getWorksheet(SHEET_ITEMS)!;
  });

  it('has the three sheets', () => {
    expect(wb.worksheets.map((w) => w.name)).toEqual([SHEET_ITEMS, SHEET_COMMISSION, SHEET_SUMMARY]);
    expect(SHEET_ITEMS).toBe('Отчёт');
  });

  it('writes the header: text columns, then every field with its unit in the way order', () => {
    const header = rowValues(ws, 1, width);
    const titles = EXPORT_FIELD_ORDER.map((f) => columnTitle(fieldDef(f)));
    const main = MAIN_EXPORT_FIELDS.length;
    expect(header).toEqual([
      'Артикул',
      ...MAIN_EXPORT_TITLES,
      'Категория',
      'Артикул WB',
      'Бренд',
      ...titles.slice(main),
    ]);
    expect(header).toContain('Цена продавца, ₽');
    expect(header).toContain('Продажи, шт');
    expect(header).toContain('Маржа, %');
    expect(header.indexOf('Прибыль, ₽')).toBeGreaterThan(header.indexOf('Себестоимость, ₽'));
  });

  it('writes one row per item with effective values in roubles', () => {
    expect(ws.rowCount).toBe(1 + report.items.length + 1);
    const art1 = ws.getRow(2);
    expect(art1.getCell(1).value).toBe('ART-1');
    expect(art1.getCell(CATEGORY).value).toBe('Футболки');
    expect(art1.getCell(CATEGORY + 1).value).toBe('11111111');
    expect(art1.getCell(col('realization')).value).toBe(15499.5);
    expect(art1.getCell(col('seller_price')).value).toBe(18000);
    expect(art1.getCell(col('sales_qty')).value).toBe(10);
    expect(art1.getCell(col('net_qty')).value).toBe(9);
    expect(art1.getCell(col('loyalty')).value).toBe(-12);
    expect(art1.getCell(col('category_commission_percent')).value).toBe(25);
    expect(art1.getCell(col('realization')).numFmt).toBe('#,##0.00');
    expect(art1.getCell(col('sales_qty')).numFmt).toBe('0');
    expect(art1.getCell(col('margin')).numFmt).toBe('0.00');
    // ART-2: effective (corrected) logistics and profit, not the computed ones
    const art2 = ws.getRow(3);
    expect(art2.getCell(col('logistics')).value).toBe(175);
    expect(art2.getCell(col('profit')).value).toBe(1000);
    expect(ws.getRow(5).getCell(1).value).toBe('Без артикула');
    expect(ws.getRow(5).getCell(col('loans')).value).toBe(1000);
  });

  it('«Расходы WB»: each item’s expenses without its cost and own costs; the totals row their sum', () => {
    const wbCol = 1 + ITEM_COLUMNS.findIndex((c) => c.kind === 'wb_costs');
    expect(wbCol).toBe(4); // article, sold, realization, «Расходы WB»
    expect(ws.getRow(1).getCell(wbCol).value).toBe('Расходы WB, ₽');
    let sum = 0;
    report.items.forEach((item, i) => {
      const e = item.effective;
      const expected = (e.expenses ?? 0) - (e.cost_total ?? 0) - (e.own_costs ?? 0);
      expect(kop(ws.getRow(2 + i).getCell(wbCol).value), item.article).toBe(expected);
      sum += expected;
    });
    expect(sum).not.toBe(0);
    expect(kop(ws.getRow(2 + report.items.length).getCell(wbCol).value)).toBe(sum);
  });

  it('marks corrected cells with a fill and a note with the computed value', () => {
    const logistics = ws.getRow(3).getCell(col('logistics'));
    expect(logistics.note).toBe('Рассчитано: 350,00 ₽');
    expect((logistics.fill as ExcelJS.FillPattern).fgColor?.argb).toBe(MANUAL_FILL_ARGB);
    // computed profit of ART-2: 8 100 − 486 (УСН 6 %) − 5 286,50 (expenses) + 50 (additional payments)
    expect(report.items[1]!.computed.profit).toBe(237_750);
    expect(ws.getRow(3).getCell(col('profit')).note).toBe('Рассчитано: 2 377,50 ₽');
    // an uncorrected cell carries neither
    const realization = ws.getRow(3).getCell(col('realization'));
    expect(realization.note).toBeUndefined();
    expect((realization.fill as ExcelJS.FillPattern | undefined)?.fgColor?.argb).not.toBe(MANUAL_FILL_ARGB);
  });

  it('writes a totals row whose additive cells equal the column sums and whose ratios come from the totals', () => {
    const totalsRow = ws.getRow(2 + report.items.length);
    expect(totalsRow.getCell(1).value).toBe('Итого');
    for (const f of EXPORT_FIELD_ORDER) {
      const def = fieldDef(f);
      const cell = totalsRow.getCell(col(f));
      expect(cell.formula, f).toBeUndefined();
      if (['avg_seller_price', 'cost_price', 'category_commission_percent', 'margin', 'roi'].includes(f)) continue;
      let sum = 0;
      for (let r = 2; r < 2 + report.items.length; r++) {
        const v = ws.getRow(r).getCell(col(f)).value;
        sum += def.unit === 'money' ? kop(v ?? 0) : ((v as number) ?? 0);
      }
      const total = cell.value as number;
      expect(def.unit === 'money' ? kop(total) : total, f).toBe(sum);
    }
    const profit = kop(totalsRow.getCell(col('profit')).value);
    const realization = kop(totalsRow.getCell(col('realization')).value);
    expect(totalsRow.getCell(col('margin')).value).toBe(Math.round((profit / realization) * 10000) / 100);
    expect(totalsRow.getCell(col('realization')).value).toBe(15499.5 + 8100 + 900);
  });

  it('freezes the header and the article column and filters the item rows', () => {
    const view = ws.views[0] as ExcelJS.WorksheetViewFrozen;
    expect(view.state).toBe('frozen');
    expect(view.ySplit).toBe(1);
    expect(view.xSplit).toBe(1);
    const lastCol = ws.getRow(1).getCell(width).address.replace(/\d+/, '');
    expect(ws.autoFilter).toBe(`A1:${lastCol}${1 + report.items.length}`);
    expect(ws.getColumn(1).width).toBeGreaterThanOrEqual(12);
    expect(ws.getColumn(col('realization')).width).toBeGreaterThanOrEqual(12);
  });

  it('prints A4 landscape at full size (never fitted to one page), header row and article repeated', () => {
    for (const name of [SHEET_ITEMS, SHEET_COMMISSION, SHEET_SUMMARY]) {
      const setup = wb.getWorksheet(name)!.pageSetup;
      expect(setup, name).toMatchObject({ orientation: 'landscape', paperSize: 9, scale: 80 });
      expect(setup.fitToPage, name).toBeFalsy();
    }
    expect(ws.pageSetup.printTitlesRow).toBe('1:1');
    expect(ws.pageSetup.printTitlesColumn).toBe('A:A');
    expect(wb.getWorksheet(SHEET_COMMISSION)!.pageSetup.printTitlesRow).toBe('1:1');
    expect((wb.getWorksheet(SHEET_COMMISSION)!.views[0] as ExcelJS.WorksheetViewFrozen).ySplit).toBe(1);
  });

  it('leaves the kVV rate of an article without sales or returns empty (unknown, not 0)', async () => {
    const base = sampleReport();
    const first = base.items[0]!;
    const none = { ...first.effective, sales_qty: 0, returns_qty: 0, category_commission_percent: 0 };
    const r: ExportReport = { ...base, items: [{ ...first, computed: none, effective: none }] };
    const sheet = (await load(await exportReportXlsx(r))).getWorksheet(SHEET_ITEMS)!;
    expect(sheet.getRow(2).getCell(col('category_commission_percent')).value).toBeNull();
    expect(
      isUnknownRate('category_commission_percent', { sales_qty: 0, returns_qty: 1, category_commission_percent: 0 }),
    ).toBe(false);
    expect(isUnknownRate('margin', none)).toBe(false);
  });

  it('writes «—» with the reason for the margin and ROI of an article without a cost price', async () => {
    const base = sampleReport();
    const first = base.items[0]!;
    const bare = { ...first.effective, cost_price: 0, cost_total: 0, margin: null, roi: null };
    expect((bare.realization ?? 0) > 0).toBe(true);
    const r: ExportReport = { ...base, items: [{ ...first, computed: bare, effective: bare }, base.items[1]!] };
    const sheet = (await load(await exportReportXlsx(r))).getWorksheet(SHEET_ITEMS)!;
    const margin = sheet.getRow(2).getCell(col('margin'));
    expect(margin.value).toBe('—');
    expect(margin.note).toBe('Нет себестоимости: маржа не считается — укажите её в каталоге');
    expect(sheet.getRow(2).getCell(col('roi')).value).toBe('—');
    expect(sheet.getRow(2).getCell(col('roi')).note).toBe(
      'Нет себестоимости: ROI не считается — укажите её в каталоге',
    );
    // A priced article keeps its number and no note.
    expect(typeof sheet.getRow(3).getCell(col('margin')).value).toBe('number');
    expect(sheet.getRow(3).getCell(col('margin')).note).toBeUndefined();
  });

  it('names the rouble once in every header («Себестоимость за шт, ₽», never «…, ₽, ₽»)', () => {
    const header = rowValues(ws, 1, width).map(String);
    expect(header).toContain('Себестоимость за шт, ₽');
    expect(header.filter((h) => (h.match(/₽/g) ?? []).length > 1)).toEqual([]);
  });

  it('writes text from the file as text: a formula-looking article stays a string', async () => {
    const row = ws.getRow(4);
    for (const [c, text] of [
      [1, FORMULA_ARTICLE],
      [CATEGORY, '+Категория'],
      [CATEGORY + 1, '-33'],
      [CATEGORY + 2, '@brand'],
    ] as const) {
      const cell = row.getCell(c);
      expect(cell.type).toBe(ExcelJS.ValueType.String);
      expect(cell.value).toBe(text);
      expect(cell.formula).toBeUndefined();
    }
    // What Excel reads: no formula element anywhere, the article in the shared strings.
    const sheetXml = await zipEntry(buf, 'xl/worksheets/sheet1.xml');
    expect(sheetXml).not.toMatch(/<f[ >]/);
    const strings = await zipEntry(buf, 'xl/sharedStrings.xml');
    expect(strings).toContain('=HYPERLINK(&quot;x&quot;)');
  });

  it('writes commission by category with a totals row', () => {
    const cs = wb.getWorksheet(SHEET_COMMISSION)!;
    expect(rowValues(cs, 1, 4)).toEqual(['Категория', 'Реализация, ₽', 'Комиссия WB, ₽', 'Комиссия, % от реализации']);
    expect(rowValues(cs, 2, 4)).toEqual(['Футболки', 15499.5, 2324.93, 15]);
    expect(rowValues(cs, 3, 4)).toEqual(['Платья', 8100, 1215, 15]);
    expect(rowValues(cs, 4, 4)).toEqual(['+Категория', 900, 135, 15]);
    expect(rowValues(cs, 5, 4)).toEqual(['Без категории', 0, 0, null]);
    expect(rowValues(cs, 6, 4)).toEqual(['Итого', 24499.5, 3674.93, 15]);
  });

  it('summarises the metadata and reconciles the payout line by line', () => {
    const ss = wb.getWorksheet(SHEET_SUMMARY)!;
    const byLabel = new Map<string, unknown>();
    ss.eachRow((row) => byLabel.set(String(row.getCell(1).value), row.getCell(2).value));
    expect(byLabel.get('Номер отчёта')).toBe('123456789');
    expect(byLabel.get('Продавец')).toBe('ИП Иванов');
    expect(byLabel.get('Номер продавца')).toBe('987654');
    expect(byLabel.get('Период')).toBe('05.12.2022 — 11.12.2022');
    expect(byLabel.get('Строк в отчёте')).toBe(49);
    expect(byLabel.get('Налоговый профиль')).toBe('УСН «Доходы», ставка 6 %; без НДС');
    expect(byLabel.get('Объединённый отчёт')).toBe('нет');
    // 10:15 UTC is 13:15 in Moscow, and the file says so.
    expect(byLabel.get('Создан')).toBe('21.11.2026 13:15 (МСК)');

    let start = 0;
    let end = 0;
    ss.eachRow((row, n) => {
      if (row.getCell(1).value === RECONCILIATION_TITLE) start = n + 2;
      if (row.getCell(1).value === PAYOUT_LABEL) end = n;
    });
    expect(start).toBeGreaterThan(0);
    expect(end - start).toBe(PAYOUT_LINES.length);
    let sum = 0;
    for (let r = start; r < end; r++) {
      const sign = ss.getRow(r).getCell(2).value === '+' ? 1 : -1;
      expect(ss.getRow(r).getCell(2).value).toMatch(/^[+−]$/);
      sum += sign * kop(ss.getRow(r).getCell(3).value);
    }
    expect(ss.getRow(start).getCell(1).value).toBe('К перечислению');
    expect(ss.getRow(end - 1).getCell(1).value).toBe('Займы');
    const payout = kop(ss.getRow(end).getCell(3).value);
    expect(sum).toBe(payout);
    // Below «Итого к оплате», for reference only: the rebill netted in WB's reward, the loyalty discount.
    expect(ss.getRow(end + 1).getCell(1).value).toBe('Ребилл логистики, зачтён в вознаграждении ВБ');
    expect(ss.getRow(end + 1).getCell(2).value).toBe('справочно');
    expect(kop(ss.getRow(end + 1).getCell(3).value)).toBe(report.totals.rebill_logistics);
    expect(ss.getRow(end + 2).getCell(2).value).toBe('справочно');
    expect(payout).toBe(report.totals.payout);
    // and the reconciliation's total is the items sheet's payout total
    expect(kop(ws.getRow(2 + report.items.length).getCell(col('payout')).value)).toBe(payout);

    const texts: string[] = [];
    ss.eachRow((row) => texts.push(String(row.getCell(1).value)));
    expect(texts).toContain('Неизвестная операция «Пересчёт» (2 строки, 15,00 ₽)');
  });

  it('describes a combined report and flags report totals that disagree with the item sums', async () => {
    const base = sampleReport();
    const buf2 = await exportReportXlsx({
      ...base,
      report_number: null,
      seller: null,
      is_combined: true,
      source_report_ids: ['a1', 'b2'],
      tax_profile: { tax_system: 'usn_income_expenses', usn_rate: 15, vat_rate: 5 },
      totals: { ...base.totals, realization: (base.totals.realization ?? 0) + 1 },
      warnings: [],
    });
    const ss = (await load(buf2)).getWorksheet(SHEET_SUMMARY)!;
    const texts = new Map<string, unknown>();
    ss.eachRow((row) => texts.set(String(row.getCell(1).value), row.getCell(2).value));
    expect(texts.get('Номер отчёта')).toBe('—');
    expect(texts.get('Продавец')).toBe('—');
    expect(texts.get('Объединённый отчёт')).toBe('да, из отчётов: a1, b2');
    expect(texts.get('Налоговый профиль')).toBe('УСН «Доходы минус расходы», ставка 15 %; НДС 5 %');
    expect([...texts.keys()].some((t) => t.startsWith('Итог отчёта по полю «Реализация» (24 499,51 ₽)'))).toBe(true);
  });

  it('exports a report without items: header, an empty totals row, zero payout', async () => {
    const nullTotals = Object.fromEntries(ALL_FIELD_NAMES.map((f) => [f, null])) as ItemValues;
    const empty = await load(
      await exportReportXlsx(sampleReport({ items: [], commission_by_category: [], totals: nullTotals })),
    );
    const items = empty.getWorksheet(SHEET_ITEMS)!;
    expect(items.rowCount).toBe(2);
    expect(items.getRow(2).getCell(1).value).toBe('Итого');
    expect(items.getRow(2).getCell(col('realization')).value).toBe(0);
  });
});
