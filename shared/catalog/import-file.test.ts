import { describe, expect, it } from 'vitest';
import { AppError } from '../errors';
import { decodeText, parseCostPrice, readCatalogFile, rowsToImport, splitCsv } from './import-file';

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
