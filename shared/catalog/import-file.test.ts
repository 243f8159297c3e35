import { describe, expect, it } from 'vitest';
import { AppError } from '../errors';
import { writeXlsx, type Cell } from '../../scripts/fixtures/xlsx-writer';
import { importBomb } from '../../test/support/import-bomb';
import {
  MAX_IMPORT_INFLATED_BYTES,
  decodeText,
  parseCostPrice,
  readCatalogFile,
  rowsToImport,
  splitCsv,
} from './import-file';

describe('catalog import file', () => {
  it('reads cost prices as an accountant writes them, straight to kopecks', () => {
    expect(parseCostPrice('1 234,56')).toBe(123_456);
    expect(parseCostPrice('1\u00a0234.5 ₽')).toBe(123_450);
    expect(parseCostPrice('99,9 руб.')).toBe(9990);
    expect(parseCostPrice('0')).toBe(0);
    expect(parseCostPrice('0.1')).toBe(10);
    expect(parseCostPrice('')).toMatch(/не указана/);
    expect(parseCostPrice('-5')).toMatch(/отрицательн/);
    expect(parseCostPrice('дорого')).toMatch(/не число/);
  });

  it('refuses fractions of a kopeck, as PUT /api/products does, but not a binary float’s tail', () => {
    expect(parseCostPrice('0,001')).toBe('Себестоимость «0,001»: больше 2 знаков после запятой');
    expect(parseCostPrice('12.345')).toMatch(/больше 2 знаков/);
    expect(parseCostPrice('1,0000001')).toMatch(/больше 2 знаков/);
    expect(parseCostPrice('0.30000000000000004')).toBe(30);
    expect(parseCostPrice('12,340')).toBe(1234);
    expect(parseCostPrice('1.5E+2')).toBe(15_000);
  });

  it('splits csv with quotes, doubled quotes, delimiters and newlines inside fields', () => {
    expect(splitCsv('a;"b;c";"say ""hi"""\r\n"multi\nline";2\n', ';')).toEqual([
      ['a', 'b;c', 'say "hi"'],
      ['multi\nline', '2'],
    ]);
  });

  it('decodes UTF-8 (BOM dropped) and falls back to Windows-1251', () => {
    expect(decodeText(Buffer.from('\uFEFFАртикул', 'utf8'))).toBe('Артикул');
    expect(decodeText(Buffer.from([0xc0, 0xf0, 0xf2, 0xe8, 0xea, 0xf3, 0xeb]))).toBe('Артикул');
  });

  it('finds the header below a title block, prefers the seller article over WB’s, and numbers rows as the file does', () => {
    const r = rowsToImport([
      ['Прайс'],
      [],
      ['Артикул WB', 'Артикул продавца', 'Себестоимость, руб.'],
      ['1', 'A', '10'],
      ['', '', ''],
      ['2', '', '5'],
      ['3', 'C', 'x'],
    ]);
    expect(r.rows).toEqual([{ article: 'A', costPriceKopecks: 1000 }]);
    expect(r.errors.map((e) => e.row)).toEqual([6, 7]);
  });

  it('a file without the columns is a 422 naming what is missing', () => {
    let err: unknown;
    try {
      rowsToImport([
        ['Наименование', 'Цена'],
        ['x', '1'],
      ]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(422);
    expect((err as AppError).details.missing).toHaveLength(2);
  });

  it('sniffs by content: text is csv whatever the name; a corrupt zip is a 422, not a crash', async () => {
    expect((await readCatalogFile(Buffer.from('cost_price,article\n3,Z\n'))).rows).toEqual([
      { article: 'Z', costPriceKopecks: 300 },
    ]);
    const brokenZip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(100, 7)]);
    await expect(readCatalogFile(brokenZip)).rejects.toMatchObject({ status: 422 });
  });

  it.each(['excel', 'wb'] as const)(
    'xlsx (%s style) streams: title block, article and price among 40 columns, row numbers as the file has them',
    async (style) => {
      const wide = (article: Cell, price: Cell): Cell[] =>
        Array.from({ length: 40 }, (_, c) => (c === 17 ? article : c === 33 ? price : { n: String(c) }));
      const rows: Cell[][] = [
        ['Себестоимость на 01.02.2026'],
        [],
        Array.from({ length: 40 }, (_, c) =>
          c === 17 ? 'Артикул поставщика' : c === 33 ? 'Себестоимость, руб.' : `К${c}`,
        ),
        wide('A-1', { n: '250.75' }),
        wide({ n: '4455' }, '1 000,10'),
        wide('A-3', 'много'),
        [],
        wide('A-5', { n: '1E-2' }),
      ];
      const file = writeXlsx(rows, { style });
      const out = await readCatalogFile(file);
      expect(out.rows).toEqual([
        { article: 'A-1', costPriceKopecks: 25_075 },
        { article: '4455', costPriceKopecks: 100_010 },
        { article: 'A-5', costPriceKopecks: 1 },
      ]);
      expect(out.errors).toEqual([{ row: 6, message: expect.stringMatching(/не число/) }]);
    },
  );

  it('xlsx: the optional date column far to the right is read too (a serial day number or text)', async () => {
    const header: Cell[] = Array.from({ length: 30 }, (_, c) => `К${c}`);
    header[2] = 'Артикул';
    header[5] = 'Себестоимость';
    header[27] = 'Действует с';
    const row = (article: string, price: string, date: Cell): Cell[] =>
      header.map((_, c) => (c === 2 ? article : c === 5 ? { n: price } : c === 27 ? date : { n: '1' }));
    const file = writeXlsx([header, row('D-1', '10', { n: '46082' }), row('D-2', '20', '15.03.2026')], {
      style: 'excel',
    });
    expect((await readCatalogFile(file)).rows).toEqual([
      { article: 'D-1', costPriceKopecks: 1000, validFrom: '2026-03-01' },
      { article: 'D-2', costPriceKopecks: 2000, validFrom: '2026-03-15' },
    ]);
  });

  it('an xlsx that unpacks beyond the import cap is refused as import_too_large before it is inflated', async () => {
    // The attack run's file: 120 numeric columns × 100,000 rows, ~1 MB packed, ~200 MB inflated.
    const { file, sheetBytes } = importBomb();
    expect(sheetBytes).toBeGreaterThan(4 * MAX_IMPORT_INFLATED_BYTES);
    const started = performance.now();
    const err = await readCatalogFile(file).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 422, code: 'import_too_large' });
    expect((err as AppError).details).toEqual({ max_inflated_bytes: MAX_IMPORT_INFLATED_BYTES });
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('an xlsx below the cap with 120 columns reads only the two it needs', async () => {
    const { file } = importBomb({ rows: 5_000 });
    const out = await readCatalogFile(file);
    expect(out.rows).toHaveLength(5_000);
    expect(out.rows[0]).toEqual({ article: '1000', costPriceKopecks: 100_100 });
  });

  it('an xlsx cell beyond the cell cap, or more rows than the import takes, is a 422 with its own code', async () => {
    const long = writeXlsx(
      [
        ['Артикул', 'Себестоимость'],
        ['A', 'x'.repeat(9000)],
      ],
      { style: 'wb' },
    );
    await expect(readCatalogFile(long)).rejects.toMatchObject({ status: 422, code: 'cell_too_long' });
    function* many(): Generator<Cell[]> {
      yield ['Артикул', 'Себестоимость'];
      for (let r = 0; r <= 100_000; r++) yield [`A${r}`, { n: '1' }];
    }
    const big = writeXlsx(many(), { style: 'wb' });
    await expect(readCatalogFile(big)).rejects.toMatchObject({ status: 422, code: 'too_many_rows' });
  });
});

describe('the optional date column', () => {
  it('reads ДД.ММ.ГГГГ, ISO dates and Excel serials; an empty cell is undated; a bad date is a row error', () => {
    const out = rowsToImport([
      ['Артикул', 'Себестоимость', 'Действует с'],
      ['A', '100', '01.03.2026'],
      ['A', '90', '2025-01-15'],
      ['B', '50', ''],
      ['C', '10', '46082'],
      ['D', '10', '31.02.2026'],
    ]);
    expect(out.rows).toEqual([
      { article: 'A', costPriceKopecks: 10_000, validFrom: '2026-03-01' },
      { article: 'A', costPriceKopecks: 9_000, validFrom: '2025-01-15' },
      { article: 'B', costPriceKopecks: 5_000 },
      { article: 'C', costPriceKopecks: 1_000, validFrom: '2026-03-01' },
    ]);
    expect(out.errors).toEqual([{ row: 6, message: expect.stringMatching(/Дата «31.02.2026» не распознана/) }]);
  });

  it('without a date column nothing changes', () => {
    expect(
      rowsToImport([
        ['Артикул', 'Себестоимость'],
        ['A', '1'],
      ]).rows,
    ).toEqual([{ article: 'A', costPriceKopecks: 100 }]);
  });
});
