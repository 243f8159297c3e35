import * as XLSX from '@e965/xlsx';
import { describe, expect, it } from 'vitest';
import { ReportError } from '../errors';
import { scanReport, type ReportSource } from './index';
import { columnLetter, outOfRange } from './values';
import { collectSink } from '../../../test/support/read/collect-sink';
import { sheetXml, wbXlsx, xlsxPackage, type CellInput } from '../../../scripts/fixtures/xlsx-writer';
import { writeZip } from '../../../scripts/fixtures/zip-writer';
import { BASIC_HEADER } from '../../../test/support/read/basic-header';

/** Header, one good row, then `bad` (columns of BASIC_HEADER: H quantity, I retail_amount, J ppvz_for_pay, K delivery_rub). */
function rows(bad: CellInput[]): CellInput[][] {
  return [
    [...BASIC_HEADER],
    [1, 'Бумага', 74672028, 'A-1', 'Продажа', 'Продажа', '2022-10-27', 1, 1609, 1557.71, 0],
    bad,
  ];
}
const row = (over: Record<number, CellInput>): CellInput[] => {
  const r: CellInput[] = [2, 'Бумага', 74672028, 'A-1', 'Продажа', 'Продажа', '2022-10-28', 1, 1609, 1557.71, 0];
  for (const [k, v] of Object.entries(over)) r[Number(k)] = v;
  return r;
};

async function refusal(source: ReportSource): Promise<ReportError> {
  try {
    await scanReport(source, collectSink());
  } catch (e) {
    if (e instanceof ReportError) return e;
    throw e;
  }
  throw new Error('expected a ReportError');
}

/** An xlsx whose cell I3 holds `raw` as a number cell, exactly as written (e.g. "1E+309"). */
function xlsxWithRaw(raw: string, options: { prefix?: string; omitRefs?: boolean } = {}): Buffer {
  const { sheet } = sheetXml(rows(row({ 8: 424242 })), options);
  return xlsxPackage({ sheet: sheet.replace('>424242<', `>${raw}<`), dataDescriptors: true });
}

function biff8(data: CellInput[][]): Buffer {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(data.map((r) => r.map((c) => c ?? undefined))), 'Sheet1');
  return XLSX.write(wb, { type: 'buffer', bookType: 'biff8' }) as Buffer;
}

const RETAIL = 'Вайлдберриз реализовал Товар (Пр)';

describe('number cells out of range (value_out_of_range)', () => {
  it('refuses 1E+20 and 1E+309 in a money cell of an .xlsx, naming the cell in Russian', async () => {
    for (const raw of ['1E+20', '100000000000000000000', '1E+309', '-1e309']) {
      const err = await refusal({ buffer: xlsxWithRaw(raw) });
      expect(err.code, raw).toBe('value_out_of_range');
      expect(err.message).toBe(`Ячейка I3 (${RETAIL}): число вне допустимого диапазона`);
      expect(err.details).toMatchObject({ cell: 'I3', column: RETAIL, value: raw, max: 1e11 });
    }
  });

  it('names the same cell when the row is read tag by tag (prefixed tags) or has no r= attributes', async () => {
    expect((await refusal({ buffer: xlsxWithRaw('1E+20', { prefix: 'x:' }) })).details).toMatchObject({ cell: 'I3' });
    expect((await refusal({ buffer: xlsxWithRaw('1E+20', { omitRefs: true }) })).details).toMatchObject({
      cell: 'I3',
    });
  });

  it('names the sheet row, not the data row, when empty rows come first', async () => {
    const data = [[], [], ...rows(row({ 9: 'NaN' }))];
    const err = await refusal({ buffer: wbXlsx(data) });
    expect(err.details).toMatchObject({ cell: 'J5', value: 'NaN' });
  });

  it('refuses NaN and Infinity written as text in a number column, keeps "-" and "н/д" for the warning', async () => {
    for (const text of ['NaN', 'Infinity', '-Infinity', 'inf']) {
      expect((await refusal({ buffer: wbXlsx(rows(row({ 10: text }))) })).details, text).toMatchObject({ cell: 'K3' });
    }
    const sink = collectSink();
    const r = await scanReport({ buffer: wbXlsx(rows(row({ 9: '-', 10: 'н/д' }))) }, sink);
    expect(r.rows).toBe(2);
    expect(sink.rows[1]).toMatchObject({ ppvz_for_pay: '-', delivery_rub: 'н/д' });
  });

  it('accepts amounts up to 10^11 roubles and counts up to 10^9, refuses beyond', async () => {
    const ok = rows(row({ 7: 1e9, 8: '99 999 999 999,99', 9: -1e11 }));
    expect((await scanReport({ buffer: wbXlsx(ok) }, collectSink())).rows).toBe(2);
    expect((await refusal({ buffer: wbXlsx(rows(row({ 9: 100000000000.01 }))) })).details).toMatchObject({
      cell: 'J3',
    });
    const qty = await refusal({ buffer: wbXlsx(rows(row({ 7: 1e10 }))) });
    expect(qty.details).toMatchObject({ cell: 'H3', column: 'Кол-во', max: 1e9 });
  });

  it('only counting (the upload) does not decode values, so it does not refuse them', async () => {
    expect((await scanReport({ buffer: xlsxWithRaw('1E+309') }, null)).rows).toBe(2);
  });

  it('refuses 1e20, 1e308 and NaN text in an .xls (SheetJS writes Infinity as #DIV/0!, an error cell)', async () => {
    const big = await refusal({ buffer: biff8(rows(row({ 8: 1e20 }))) });
    expect(big).toMatchObject({
      code: 'value_out_of_range',
      message: `Ячейка I3 (${RETAIL}): число вне допустимого диапазона`,
    });
    const inf = await refusal({ buffer: biff8([[], ...rows(row({ 9: 1e308 }))]) });
    expect(inf.details).toMatchObject({ cell: 'J4' });
    const text = await refusal({ buffer: biff8(rows(row({ 10: 'NaN' }))) });
    expect(text.details).toMatchObject({ cell: 'K3', value: 'NaN' });
  });

  it('refuses 1E+309 in an .xlsx or .xls inside a zip', async () => {
    const inXlsx = writeZip([{ name: '№1_2.xlsx', data: xlsxWithRaw('1E+309') }]);
    expect((await refusal({ buffer: inXlsx })).details).toMatchObject({ cell: 'I3' });
    const inXls = writeZip([{ name: '№1_2.xls', data: biff8(rows(row({ 8: 1e20 }))) }]);
    expect((await refusal({ buffer: inXls })).details).toMatchObject({ cell: 'I3' });
  });
});

describe('outOfRange and columnLetter', () => {
  it('parses only long text or text with letters, and bounds it', () => {
    expect(outOfRange('99999999999', 2, 1e13, 11)).toBe(false);
    expect(outOfRange('1E+3', 2, 1e13, 11)).toBe(false);
    expect(outOfRange('1E+12', 2, 1e13, 11)).toBe(true);
    expect(outOfRange('Infinity', 2, 1e13, 11)).toBe(true);
    expect(outOfRange('н/д', 2, 1e13, 11)).toBe(false);
    expect(outOfRange('-', 2, 1e13, 11)).toBe(false);
    expect(outOfRange('1000000000', 0, 1e9, 9)).toBe(false);
    expect(outOfRange('1000000001', 0, 1e9, 9)).toBe(true);
  });

  it('writes spreadsheet column names', () => {
    expect([0, 25, 26, 51, 52, 701, 702].map(columnLetter)).toEqual(['A', 'Z', 'AA', 'AZ', 'BA', 'ZZ', 'AAA']);
  });
});
