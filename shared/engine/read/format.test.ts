import { describe, expect, it } from 'vitest';
import { ReportError } from '../errors';
import { detectFormat } from './format';
import { writeZip } from '../../../scripts/fixtures/zip-writer';

function unsupported(head: Buffer): ReportError {
  try {
    detectFormat(head);
  } catch (err) {
    if (err instanceof ReportError) return err;
    throw err;
  }
  throw new Error('detectFormat accepted the bytes');
}

describe('detectFormat', () => {
  it('tells an xlsx from a zip of reports by the central directory', () => {
    const head = Buffer.from('PK\x03\x04', 'latin1');
    expect(detectFormat(head, ['[Content_Types].xml', 'xl/workbook.xml', 'xl/worksheets/sheet1.xml'])).toBe('xlsx');
    expect(detectFormat(head, ['Еженедельный детализированный отчет №1_2 - 1.xlsx'])).toBe('zip');
    expect(detectFormat(head, [])).toBe('zip');
  });

  it('falls back to the first local header name without a directory', () => {
    const xlsx = writeZip([
      { name: '[Content_Types].xml', data: '<Types/>' },
      { name: 'xl/workbook.xml', data: '<workbook/>' },
    ]);
    const zip = writeZip([{ name: 'report.xlsx', data: xlsx }]);
    expect(detectFormat(xlsx)).toBe('xlsx');
    expect(detectFormat(zip)).toBe('zip');
  });

  it('knows OLE2 as xls', () => {
    expect(detectFormat(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0]))).toBe('xls');
  });

  it.each([
    ['%PDF-1.7\n%âãÏÓ\n1 0 obj', 'a PDF document'],
    ['<!DOCTYPE html><html><body>Вход</body></html>', 'an HTML page'],
    ['  <html lang="ru">', 'an HTML page'],
    ['№;Предмет;Артикул поставщика\n1;Бумага;MFG1\n', 'CSV/text'],
    ['', 'an empty file'],
    ['\x00\x01\x02\x03\xff\xfe\xfd\xfc', 'an unknown format (first bytes 00 01 02 03 ff fe fd fc)'],
    ['Rar!\x1a\x07\x00', 'a RAR archive'],
  ])('refuses %j naming what it is', (text, found) => {
    // Byte strings as written; text with Cyrillic as UTF-8.
    const bytes = [...text].every((ch) => ch.charCodeAt(0) < 256)
      ? Buffer.from(text, 'latin1')
      : Buffer.from(text, 'utf8');
    const err = unsupported(bytes);
    expect(err.code).toBe('not_a_spreadsheet');
    expect(err.details.found).toBe(found);
    expect(err.message).toContain(found);
  });
});
