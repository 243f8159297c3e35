import * as XLSX from '@e965/xlsx';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ReportError } from '../errors';
import { scanReport, type ReportSource, type ScanOptions } from './index';
import { DEFAULT_READ_LIMITS, inflateCap, type ReadLimits } from './limits';
import { collectSink } from '../../../test/support/read/collect-sink';
import { sheetXml, wbXlsx, xlsxPackage, type CellInput } from '../../../scripts/fixtures/xlsx-writer';
import { writeZip } from '../../../scripts/fixtures/zip-writer';
import { BASIC_HEADER } from '../../../test/support/read/basic-header';

const FIXTURE = path.resolve(__dirname, '../../../fixtures/wb-detail-2022-49col.xlsx');

async function read(source: ReportSource, limits?: Partial<ReadLimits>, options?: ScanOptions) {
  const sink = collectSink();
  const result = await scanReport(source, sink, limits, options);
  return { ...result, present: sink.present, data: sink.rows };
}

async function failure(promise: Promise<unknown>): Promise<ReportError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ReportError) return err;
    throw err;
  }
  throw new Error('expected a ReportError');
}

/** Three data rows of the basic layout, with Cyrillic, an empty cell and numbers. */
const BASIC_ROWS: CellInput[][] = [
  [...BASIC_HEADER],
  [1, 'Бумага для оргтехники', 74672028, 'MFG1BUM001-w', 'Продажа', 'Продажа', '2022-10-27', 1, 1609, 1557.71, 0],
  [2, 'Бумага для оргтехники', 74672028, 'MFG1BUM001-w', 'Возврат', 'Возврат', '2022-10-28', 1, 1609, 1557.71, null],
  [3, null, null, null, null, 'Логистика', '2022-10-29', 0, 0, 0, 45.5],
];

const BASIC_EXPECTED = [
  {
    rrd_no: '1',
    subject_name: 'Бумага для оргтехники',
    nm_id: '74672028',
    sa_name: 'MFG1BUM001-w',
    doc_type_name: 'Продажа',
    supplier_oper_name: 'Продажа',
    sale_dt: '2022-10-27',
    quantity: '1',
    retail_amount: '1609',
    ppvz_for_pay: '1557.71',
    delivery_rub: '0',
  },
  {
    rrd_no: '2',
    subject_name: 'Бумага для оргтехники',
    nm_id: '74672028',
    sa_name: 'MFG1BUM001-w',
    doc_type_name: 'Возврат',
    supplier_oper_name: 'Возврат',
    sale_dt: '2022-10-28',
    quantity: '1',
    retail_amount: '1609',
    ppvz_for_pay: '1557.71',
  },
  {
    rrd_no: '3',
    supplier_oper_name: 'Логистика',
    sale_dt: '2022-10-29',
    quantity: '0',
    retail_amount: '0',
    ppvz_for_pay: '0',
    delivery_rub: '45.5',
  },
];

const BASIC_PRESENT = [
  'delivery_rub',
  'doc_type_name',
  'nm_id',
  'ppvz_for_pay',
  'quantity',
  'retail_amount',
  'rrd_no',
  'sa_name',
  'sale_dt',
  'subject_name',
  'supplier_oper_name',
];

describe('scanReport on the real 2022 report (49 columns, Excel-style shared strings)', () => {
  it('reads 99 data rows with the values of the sheet', async () => {
    const r = await read({ path: FIXTURE });
    expect(r.format).toBe('xlsx');
    expect(r.rows).toBe(99);
    expect(r.data).toHaveLength(99);
    expect(r.present).toContain('bonus_type_name');
    expect(r.present).not.toContain('storage_fee');
    // Values checked by unzipping the file and reading the XML by hand.
    expect(r.data[0]).toMatchObject({
      sa_name: 'MFG1BUM001MFG1BUM001-w',
      supplier_oper_name: 'Продажа',
      sale_dt: '2022-10-27',
      quantity: '1',
      ppvz_for_pay: '1557.71',
      acquiring_fee: '15.29',
      commission_percent: '0.15',
      delivery_amount: '0',
    });
    expect(r.data[49]).toMatchObject({
      sa_name: 'MFG4BUM001MFG4BUM001-w',
      sale_dt: '2022-10-28',
      ppvz_for_pay: '1556.19',
    });
    expect(r.data[98]).toMatchObject({
      sa_name: 'MFG4BUM001MFG4BUM001-w',
      brand_name: 'Бумага А4 / бумага для принтера / A4 / Снегурочка',
      sale_dt: '2022-10-24',
      ppvz_for_pay: '1552.09',
      ppvz_vw: '-9.109999999999999',
    });
  });

  it('counts the same rows without a sink, and reads the same values in 7-byte chunks', async () => {
    const whole = await read({ path: FIXTURE });
    expect((await scanReport({ path: FIXTURE }, null)).rows).toBe(99);
    const tiny = await read({ path: FIXTURE }, {}, { chunkSize: 7 });
    expect(tiny.data).toEqual(whole.data);
    expect((await scanReport({ path: FIXTURE }, null, {}, { chunkSize: 7 })).rows).toBe(99);
  });
});

describe('scanReport on WB-style files (excelize: inline strings, dimension A1, data descriptors)', () => {
  it('reads t="str" cells, numbers and empty cells', async () => {
    const r = await read({ buffer: wbXlsx(BASIC_ROWS), filename: '№786182326_1202289 - 1.xlsx' });
    expect(r).toMatchObject({ format: 'xlsx', rows: 3, report_number: '786182326', seller_number: '1202289' });
    expect(r.present).toEqual(BASIC_PRESENT);
    expect(r.data).toEqual(BASIC_EXPECTED);
  });

  it('reads t="inlineStr" cells the same', async () => {
    const r = await read({ buffer: wbXlsx(BASIC_ROWS, { strings: 'inline' }) });
    expect(r.data).toEqual(BASIC_EXPECTED);
  });

  it('takes the first non-empty row as the header and skips empty and blank rows', async () => {
    const rows: CellInput[][] = [
      [],
      [null, '  '],
      ...BASIC_ROWS.slice(0, 3),
      [],
      [null, ' ', null, '\t'],
      BASIC_ROWS[3]!,
    ];
    const r = await read({ buffer: wbXlsx(rows) });
    expect(r.rows).toBe(3);
    expect(r.data).toEqual(BASIC_EXPECTED);
    expect((await scanReport({ buffer: wbXlsx(rows) }, null)).rows).toBe(3);
  });

  it('counts a row whose only content is in a column the metrics do not read', async () => {
    const rows: CellInput[][] = [
      [...BASIC_HEADER, 'Srid'],
      [null, null, null, null, null, null, null, null, null, null, null, 'abc'],
    ];
    const r = await read({ buffer: wbXlsx(rows) });
    expect(r.rows).toBe(1);
    expect(r.data).toEqual([{}]);
  });

  it('takes the next column for cells without r=', async () => {
    const rows: CellInput[][] = [
      [...BASIC_HEADER],
      ['1', 'Бумага', '7', 'A-1', 'Продажа', 'Продажа', '2022-10-27', '2', '10', '9', '0'],
    ];
    const r = await read({ buffer: wbXlsx(rows, { omitRefs: true }) });
    expect(r.data).toEqual([
      {
        rrd_no: '1',
        subject_name: 'Бумага',
        nm_id: '7',
        sa_name: 'A-1',
        doc_type_name: 'Продажа',
        supplier_oper_name: 'Продажа',
        sale_dt: '2022-10-27',
        quantity: '2',
        retail_amount: '10',
        ppvz_for_pay: '9',
        delivery_rub: '0',
      },
    ]);
  });

  it('decodes entities and keeps text as stored', async () => {
    const rows: CellInput[][] = [
      [...BASIC_HEADER],
      [1, 'Ножи & <вилки> "люкс"', 1, ' A&B ', 'Продажа', 'Продажа', '2022-10-27', 1, 1, 1, 0],
    ];
    const r = await read({ buffer: wbXlsx(rows) });
    expect(r.data[0]).toMatchObject({ subject_name: 'Ножи & <вилки> "люкс"', sa_name: ' A&B ' });
  });

  it('reads Cyrillic split across chunk boundaries (7-byte chunks) exactly as in one piece', async () => {
    const long = 'Съешь же ещё этих мягких французских булок, да выпей чаю — ёЁ';
    const rows: CellInput[][] = [[...BASIC_HEADER]];
    for (let i = 0; i < 40; i++)
      rows.push([i, long.slice(i % 7), i, `Артикул-${i}`, 'Продажа', 'Продажа', '2022-10-27', 1, 10.5, 9.25, 0]);
    for (const strings of ['str', 'inline', 'shared'] as const) {
      const buffer = wbXlsx(rows, { strings });
      const whole = await read({ buffer });
      expect(whole.rows).toBe(40);
      expect(whole.data[3]!.subject_name).toBe(long.slice(3));
      for (const chunkSize of [1, 2, 3, 7]) {
        const tiny = await read({ buffer }, {}, { chunkSize });
        expect(tiny.data).toEqual(whole.data);
      }
    }
  });

  it('reads x:-prefixed tags (shared strings and sheet)', async () => {
    const { sheet, sst } = sheetXml(BASIC_ROWS, { strings: 'shared', prefix: 'x:' });
    expect(sheet).toContain('<x:c r="A1" t="s"><x:v>0</x:v></x:c>');
    const buffer = xlsxPackage({ sheet, sharedStrings: sst });
    expect((await read({ buffer })).data).toEqual(BASIC_EXPECTED);
    expect((await read({ buffer }, {}, { chunkSize: 7 })).data).toEqual(BASIC_EXPECTED);
    expect((await scanReport({ buffer }, null)).rows).toBe(3);
    expect((await scanReport({ buffer }, null, {}, { chunkSize: 7 })).rows).toBe(3);
  });

  it('is not fooled by a raw ">" after "row" or "c" in text when jumping over unread cells', async () => {
    // XML allows an unescaped ">" in text; "<" never appears there.
    const cell = (ref: string, text: string) => `<x:c r="${ref}" t="str"><x:v>${text}</x:v></x:c>`;
    const header = BASIC_HEADER.map((t, i) => cell(`${'ABCDEFGHIJK'[i]}1`, t)).join('') + cell('L1', 'Srid');
    const data = (r: number) =>
      cell(`A${r}`, 'arrow> c> /row> :c>') +
      cell(`D${r}`, `A${r}`) +
      cell(`H${r}`, '1') +
      cell(`L${r}`, 'narrow> c> /c> :c>') +
      cell(`M${r}`, 'x:row> /row> row>');
    const sheet =
      '<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData>' +
      `<x:row r="1">${header}</x:row>` +
      [2, 3, 4].map((r) => `<x:row r="${r}">${data(r)}</x:row>`).join('') +
      '</x:sheetData></x:worksheet>';
    const buffer = xlsxPackage({ sheet });
    const expected = [2, 3, 4].map((r) => ({ rrd_no: 'arrow> c> /row> :c>', sa_name: `A${r}`, quantity: '1' }));
    expect((await read({ buffer })).data).toEqual(expected);
    expect((await read({ buffer }, {}, { chunkSize: 5 })).data).toEqual(expected);
    expect((await scanReport({ buffer }, null)).rows).toBe(3);
  });

  it('finds the sheet without workbook relationships (fallback xl/worksheets/sheet1.xml)', async () => {
    const { sheet } = sheetXml(BASIC_ROWS);
    const r = await read({ buffer: xlsxPackage({ sheet, noRels: true }) });
    expect(r.rows).toBe(3);
  });

  it('reads the first sheet by workbook order through its relationship', async () => {
    const { sheet } = sheetXml(BASIC_ROWS);
    const r = await read({ buffer: xlsxPackage({ sheet, sheetPath: 'xl/worksheets/report.xml' }) });
    expect(r.data).toEqual(BASIC_EXPECTED);
  });

  it('reads English-locale headers (values still Russian)', async () => {
    const header = [
      '№',
      "Supplier's Article",
      'Document Type',
      'Reason for Payment',
      'Quantity',
      'Wildberries Realized Goods (Pr)',
      'Amount to Transfer to the Seller for the Realized Goods',
    ];
    const rows: CellInput[][] = [header, [1, 'ART-1', 'Продажа', 'Продажа', 2, 100, 87.5]];
    const r = await read({ buffer: wbXlsx(rows) });
    expect(r.data).toEqual([
      {
        rrd_no: '1',
        sa_name: 'ART-1',
        doc_type_name: 'Продажа',
        supplier_oper_name: 'Продажа',
        quantity: '2',
        retail_amount: '100',
        ppvz_for_pay: '87.5',
      },
    ]);
  });
});

describe('scanReport on Excel-style files (shared strings stored after the sheet)', () => {
  const RICH_SHEET =
    '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><dimension ref="A1:F2"/><sheetData>' +
    '<row r="1">' +
    [0, 1, 2, 3, 4, 5].map((i) => `<c r="${'ABCDEF'[i]}1" t="s"><v>${i}</v></c>`).join('') +
    '</row><row r="2">' +
    '<c r="A2" t="s"><v>6</v></c><c r="B2" t="s"><v>7</v></c><c r="C2" t="s"><v>7</v></c><c r="D2"><v>3</v></c>' +
    '<c r="E2" s="1"><f>D2*2</f><v>1E-3</v></c><c r="F2" t="inlineStr"><is><r><rPr><b/></rPr><t>12</t></r><r><t xml:space="preserve">.5 </t></r><rPh sb="0" eb="1"><t>ignored</t></rPh></is></c>' +
    '</row></sheetData></worksheet>';
  const RICH_SST =
    '<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="8" uniqueCount="8">' +
    '<si><t>Артикул поставщика</t></si><si><t>Тип документа</t></si><si><t>Обоснование для оплаты</t></si><si><t>Кол-во</t></si>' +
    '<si><r><t>Вайлдберриз реализовал </t></r><r><rPr><i/></rPr><t>Товар (Пр)</t></r></si>' +
    '<si><t xml:space="preserve">К перечислению Продавцу за реализованный Товар</t></si>' +
    '<si><r><rPr><b/></rPr><t>Бумага </t></r><r><t>&amp; ручки &#x2116;1</t></r><rPh><t>ふりがな</t></rPh></si>' +
    '<si><t>Продажа</t></si></sst>';
  const RICH_EXPECTED = [
    {
      sa_name: 'Бумага & ручки №1',
      doc_type_name: 'Продажа',
      supplier_oper_name: 'Продажа',
      quantity: '3',
      retail_amount: '1E-3',
      ppvz_for_pay: '12.5 ',
    },
  ];

  it('reads rich-text runs, entities, formulas (cached value) and inline rich strings', async () => {
    const buffer = xlsxPackage({ sheet: RICH_SHEET, sharedStrings: RICH_SST });
    const r = await read({ buffer });
    expect(r.data).toEqual(RICH_EXPECTED);
    expect((await read({ buffer }, {}, { chunkSize: 7 })).data).toEqual(RICH_EXPECTED);
    expect((await scanReport({ buffer }, null)).rows).toBe(1);
  });

  it('reads an xlsx written by SheetJS (Excel-style shared strings)', async () => {
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(
      wb,
      XLSX.utils.aoa_to_sheet(BASIC_ROWS.map((row) => row.map((c) => c ?? undefined))),
      'Sheet1',
    );
    const buffer = XLSX.write(wb, { type: 'buffer', bookType: 'xlsx', bookSST: true }) as Buffer;
    const r = await read({ buffer, filename: 'Ежедневный детализированный отчет №120228920240115_1202289.xlsx' });
    expect(r).toMatchObject({ format: 'xlsx', rows: 3, report_number: '120228920240115', seller_number: '1202289' });
    expect(r.data).toEqual(BASIC_EXPECTED);
  });

  it('counts rows whose only cells are blank shared strings as empty', async () => {
    const rows: CellInput[][] = [...BASIC_ROWS, [null, ' '], ['', '']];
    const buffer = wbXlsx(rows, { strings: 'shared' });
    expect((await read({ buffer })).rows).toBe(3);
    expect((await scanReport({ buffer }, null)).rows).toBe(3);
  });

  it('validates a header whose shared strings lie beyond the ones kept when counting', async () => {
    // 5000 distinct strings listed before the header's own (count mode keeps the first 4096 only).
    const filler = Array.from({ length: 5000 }, (_, i) => `<si><t>filler ${i}</t></si>`).join('');
    const titles = [...BASIC_HEADER];
    const sst =
      `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${filler}` +
      titles.map((t) => `<si><t>${t}</t></si>`).join('') +
      '</sst>';
    const cells = titles.map((_, i) => `<c t="s"><v>${5000 + i}</v></c>`).join('');
    const sheet = `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row>${cells}</row><row><c t="s"><v>1</v></c></row></sheetData></worksheet>`;
    expect((await scanReport({ buffer: xlsxPackage({ sheet, sharedStrings: sst }) }, null)).rows).toBe(1);

    const bad = sst.replace('<si><t>Тип документа</t></si>', '<si><t>Тип</t></si>');
    const err = await failure(scanReport({ buffer: xlsxPackage({ sheet, sharedStrings: bad }) }, null));
    expect(err.code).toBe('missing_headers');
    expect(err.details.missing).toEqual(['Тип документа']);
  });
});

describe('scanReport on zips of reports', () => {
  const report = wbXlsx(BASIC_ROWS);

  it('picks the first .xlsx in directory order, skipping __MACOSX, and reads metadata from its name', async () => {
    const other = wbXlsx([[...BASIC_HEADER], BASIC_ROWS[1]!]);
    const zip = writeZip([
      { name: '__MACOSX/._Еженедельный детализированный отчет №786182326_1202289 - 1.xlsx', data: 'resource fork' },
      { name: 'readme.txt', data: 'hello' },
      { name: 'Еженедельный детализированный отчет №786182326_1202289 - 1.XLSX', data: report },
      { name: 'Еженедельный детализированный отчет №786182327_1202289 - 1.xlsx', data: other },
    ]);
    const r = await read({ buffer: zip, filename: 'archive.zip' });
    expect(r).toMatchObject({ format: 'zip', rows: 3, report_number: '786182326', seller_number: '1202289' });
    expect(r.data).toEqual(BASIC_EXPECTED);
    expect((await scanReport({ buffer: zip }, null, {}, { chunkSize: 7 })).rows).toBe(3);
  });

  it('prefers the upload name for metadata over the entry name', async () => {
    const zip = writeZip([{ name: 'reports/№1_2 - 1.xlsx', data: report }], { dataDescriptors: true });
    const r = await scanReport(
      { buffer: zip, filename: 'Еженедельный детализированный отчет №786182326_1202289 (1).zip' },
      null,
    );
    expect(r).toEqual({ format: 'zip', rows: 3, report_number: '786182326', seller_number: '1202289' });
    const fromEntry = await scanReport({ buffer: zip, filename: 'download.zip' }, null);
    expect(fromEntry).toMatchObject({ report_number: '1', seller_number: '2' });
  });

  it('reads a stored (uncompressed) .xlsx entry', async () => {
    const zip = writeZip([{ name: 'r.xlsx', data: report, method: 'store' }]);
    expect((await read({ buffer: zip })).data).toEqual(BASIC_EXPECTED);
  });

  it('refuses a zip without a report, naming what it holds', async () => {
    const err = await failure(scanReport({ buffer: writeZip([{ name: 'report.pdf', data: '%PDF-1.4' }]) }, null));
    expect(err.code).toBe('no_report_in_zip');
    expect(err.message).toContain('report.pdf');
  });

  it('refuses entry names that climb out of the archive', async () => {
    const err = await failure(scanReport({ buffer: writeZip([{ name: '../../evil.xlsx', data: report }]) }, null));
    expect(err.code).toBe('corrupt_file');
    expect(err.message).toContain('points outside the archive');
  });

  it('refuses an .xlsx entry that is not a spreadsheet', async () => {
    const err = await failure(
      scanReport({ buffer: writeZip([{ name: 'r.xlsx', data: '<html><body>login</body></html>' }]) }, null),
    );
    expect(err.code).toBe('not_a_spreadsheet');
    expect(err.message).toContain('HTML');
  });

  it('reads an .xls inside a zip', async () => {
    const zip = writeZip([{ name: '№5_6.xls', data: biff8(BASIC_ROWS) }]);
    expect(await read({ buffer: zip })).toMatchObject({
      format: 'zip',
      rows: 3,
      data: BASIC_EXPECTED,
      report_number: '5',
    });
  });
});

function biff8(rows: CellInput[][]): Buffer {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(
    wb,
    XLSX.utils.aoa_to_sheet(rows.map((row) => row.map((c) => c ?? undefined))),
    'Sheet1',
  );
  return XLSX.write(wb, { type: 'buffer', bookType: 'biff8' }) as Buffer;
}

describe('scanReport on .xls (BIFF8)', () => {
  it('reads the header, values and empty-row rule like the xlsx reader', async () => {
    const rows: CellInput[][] = [[], ...BASIC_ROWS.slice(0, 3), [null, '  '], BASIC_ROWS[3]!];
    const buffer = biff8(rows);
    const r = await read({ buffer, filename: '№786182326_1202289.xls' });
    expect(r).toMatchObject({ format: 'xls', rows: 3, report_number: '786182326', seller_number: '1202289' });
    expect(r.present).toEqual(BASIC_PRESENT);
    expect(r.data).toEqual(BASIC_EXPECTED);
    expect((await scanReport({ buffer }, null)).rows).toBe(3);
  });

  it('applies the row and cell caps', async () => {
    expect((await failure(scanReport({ buffer: biff8(BASIC_ROWS) }, null, { maxRows: 2 }))).code).toBe('too_many_rows');
    expect((await failure(scanReport({ buffer: biff8(BASIC_ROWS) }, null, { maxCellLength: 40 }))).code).toBe(
      'cell_too_long',
    );
    expect((await scanReport({ buffer: biff8(BASIC_ROWS) }, null, { maxCellLength: 46 })).rows).toBe(3);
  });

  it('refuses a damaged .xls as corrupt', async () => {
    const buffer = Buffer.from(biff8(BASIC_ROWS));
    buffer.fill(0xff, 512, buffer.length - 8);
    const err = await failure(scanReport({ buffer }, null));
    expect(['corrupt_file', 'missing_headers', 'empty_report']).toContain(err.code);
  });
});

describe('scanReport refusals', () => {
  it('names missing headers before reading any data row', async () => {
    const rows: CellInput[][] = [
      ['№', 'Предмет', 'Артикул поставщика', 'Кол-во'],
      [1, 'Бумага', 'A', 1],
    ];
    const sink = collectSink();
    const err = await failure(scanReport({ buffer: wbXlsx(rows) }, sink));
    expect(err.code).toBe('missing_headers');
    expect(err.message).toContain('«Тип документа»');
    expect(err.message).toContain('«К перечислению Продавцу за реализованный Товар»');
    expect(err.details.keys).toEqual(['doc_type_name', 'supplier_oper_name', 'retail_amount', 'ppvz_for_pay']);
    expect(sink.present).toBeNull();
    expect(sink.rows).toEqual([]);
    expect((await failure(scanReport({ buffer: wbXlsx(rows) }, null))).code).toBe('missing_headers');
  });

  it('refuses files that are no spreadsheet, naming what they are', async () => {
    const pdf = await failure(scanReport({ buffer: Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n') }, null));
    expect(pdf.code).toBe('not_a_spreadsheet');
    expect(pdf.message).toContain('PDF');
    const csv = await failure(scanReport({ buffer: Buffer.from('Артикул поставщика;Кол-во\nA;1\n') }, null));
    expect(csv.code).toBe('not_a_spreadsheet');
    expect(csv.message).toContain('CSV/text');
    const empty = await failure(scanReport({ buffer: Buffer.alloc(0) }, null));
    expect(empty.message).toContain('empty file');
  });

  it('refuses an empty sheet and a header without data as empty_report', async () => {
    const blank = await failure(scanReport({ buffer: wbXlsx([]) }, null));
    expect(blank.code).toBe('empty_report');
    const headerOnly = await failure(
      scanReport({ buffer: wbXlsx([[...BASIC_HEADER], [], [null, ' ']]) }, collectSink()),
    );
    expect(headerOnly.code).toBe('empty_report');
    expect(headerOnly.message).toContain('header');
  });

  it('refuses a truncated zip as corrupt_file, never hanging', async () => {
    const full = wbXlsx(BASIC_ROWS);
    for (const cut of [full.length - 1, full.length - 30, Math.floor(full.length / 2), 100, 4]) {
      const err = await failure(scanReport({ buffer: full.subarray(0, cut) }, collectSink()));
      expect(err.code, `cut at ${cut}`).toBe('corrupt_file');
    }
  });

  it('refuses damaged deflate data inside an intact directory as corrupt_file', async () => {
    const rows: CellInput[][] = [[...BASIC_HEADER]];
    for (let i = 0; i < 500; i++)
      rows.push([i, `Предмет ${i}`, i, `A${i}`, 'Продажа', 'Продажа', '2022-10-27', 1, i, i, 0]);
    const zip = Buffer.from(wbXlsx(rows));
    const sheetAt = zip.indexOf('xl/worksheets/sheet1.xml') + 'xl/worksheets/sheet1.xml'.length;
    zip.fill(0xa5, sheetAt + 200, sheetAt + 400);
    const err = await failure(scanReport({ buffer: zip }, collectSink()));
    expect(err.code).toBe('corrupt_file');
  });

  it('stops a zip bomb at the inflate cap', async () => {
    const zeros = Buffer.alloc(20 * 1024 * 1024);
    const bomb = writeZip([{ name: 'bomb.xlsx', data: zeros }]);
    expect(bomb.length).toBeLessThan(100_000);
    const single = await failure(scanReport({ buffer: bomb }, null, { maxInflatedBytes: 1024 * 1024 }));
    expect(single.code).toBe('zip_bomb');
    expect(single.details).toEqual({ max_inflated_bytes: 1024 * 1024 });

    // Parts that each fit but together exceed the cap (the count is over the whole file, nested included).
    const half = ' '.repeat(700 * 1024);
    const { sheet, sst } = sheetXml(BASIC_ROWS, { strings: 'shared' });
    const padded = xlsxPackage({
      sheet: sheet.replace('<sheetData>', `${half}<sheetData>`),
      sharedStrings: sst?.replace('<si>', `${half}<si>`),
    });
    expect((await scanReport({ buffer: padded }, null)).rows).toBe(3);
    const sum = await failure(
      scanReport({ buffer: writeZip([{ name: 'r.xlsx', data: padded }]) }, null, { maxInflatedBytes: 1024 * 1024 }),
    );
    expect(sum.code).toBe('zip_bomb');
  });

  it('caps inflation by ratio: past 256 MB, no more than maxInflateRatio × the file', () => {
    expect(inflateCap(1_000_000, DEFAULT_READ_LIMITS)).toBe(256 * 1024 * 1024);
    // A 1M-row portal week (~370 MB, ~3 GB of XML) stays under the absolute cap.
    expect(inflateCap(370 * 1024 * 1024, DEFAULT_READ_LIMITS)).toBe(4 * 1024 * 1024 * 1024);
    expect(inflateCap(10 * 1024 * 1024, { ...DEFAULT_READ_LIMITS, maxInflateRatio: 50 })).toBe(500 * 1024 * 1024);
    // A bomb through the API, stopped by this ratio: test/integration/reports-upload.test.ts.
  });

  it('stops an entry that inflates beyond its declared size', async () => {
    const lying = Buffer.from(writeZip([{ name: 'bomb.xlsx', data: Buffer.alloc(20 * 1024 * 1024) }]));
    const cd = lying.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    lying.writeUInt32LE(100, cd + 24);
    const overrun = await failure(scanReport({ buffer: lying }, null));
    expect(overrun.code).toBe('corrupt_file');
  });

  it('caps the rows', async () => {
    const buffer = wbXlsx(BASIC_ROWS);
    expect((await scanReport({ buffer }, null, { maxRows: 3 })).rows).toBe(3);
    const err = await failure(scanReport({ buffer }, collectSink(), { maxRows: 2 }));
    expect(err.code).toBe('too_many_rows');
    expect((await failure(scanReport({ buffer }, null, { maxRows: 2 }))).code).toBe('too_many_rows');
  });

  it('caps the cell length in read and unread columns alike', async () => {
    const withCell = (text: string, column: number) => {
      const row: CellInput[] = [...BASIC_ROWS[1]!];
      row[column] = text;
      return wbXlsx([[...BASIC_HEADER, 'Srid'], row]);
    };
    // Headers are cells too: the longest basic one has 46 characters.
    const ten = 'Ёжик-12345'.repeat(5);
    expect((await read({ buffer: withCell(ten, 3) }, { maxCellLength: 50 })).data[0]!.sa_name).toBe(ten);
    for (const column of [3, 11]) {
      for (const strings of ['str', 'shared'] as const) {
        const row: CellInput[] = [...BASIC_ROWS[1]!];
        row[column] = `${ten}!`;
        const buffer = wbXlsx([[...BASIC_HEADER, 'Srid'], row], { strings });
        const err = await failure(scanReport({ buffer }, collectSink(), { maxCellLength: 50 }));
        expect(err.code, `${strings} column ${column}`).toBe('cell_too_long');
        expect((await failure(scanReport({ buffer }, null, { maxCellLength: 50 }))).code).toBe('cell_too_long');
      }
    }
  });

  it('caps the file size and the number of entries', async () => {
    const buffer = wbXlsx(BASIC_ROWS);
    const big = await failure(scanReport({ buffer }, null, { maxCompressedBytes: buffer.length - 1 }));
    expect(big.code).toBe('file_too_large');
    const many = writeZip(Array.from({ length: 6 }, (_, i) => ({ name: `f${i}.txt`, data: 'x' })));
    expect((await failure(scanReport({ buffer: many }, null, { maxEntries: 5 }))).code).toBe('too_many_entries');
    // The .xlsx itself has 6 parts.
    expect((await failure(scanReport({ buffer }, null, { maxEntries: 5 }))).code).toBe('too_many_entries');
  });

  it('reads from a path, taking the file name as metadata when none is given', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'read-'));
    const file = path.join(dir, 'Еженедельный детализированный отчет №786182326_1202289.zip');
    writeFileSync(file, writeZip([{ name: 'x.xlsx', data: wbXlsx(BASIC_ROWS) }]));
    expect(await scanReport({ path: file }, null)).toEqual({
      format: 'zip',
      rows: 3,
      report_number: '786182326',
      seller_number: '1202289',
    });
    const broken = path.join(dir, 'broken.xlsx');
    writeFileSync(broken, zlib.deflateRawSync(Buffer.from('not a zip')));
    expect((await failure(scanReport({ path: broken }, null))).code).toBe('not_a_spreadsheet');
    const truncated = path.join(dir, 'truncated.xlsx');
    writeFileSync(truncated, wbXlsx(BASIC_ROWS).subarray(0, 300));
    expect((await failure(scanReport({ path: truncated }, null))).code).toBe('corrupt_file');
  });
});
