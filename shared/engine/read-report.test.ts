import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReportError } from './errors';
import { countRows, readReport } from './read-report';
import { wbXlsx, type CellInput } from '../../scripts/fixtures/xlsx-writer';
import { writeZip } from '../../scripts/fixtures/zip-writer';
import { BASIC_HEADER } from '../../test/support/read/basic-header';

const FIXTURE = path.resolve(__dirname, '../../fixtures/wb-detail-2022-49col.xlsx');

describe('readReport / countRows', () => {
  it('give the same rows and metadata; readReport aggregates per article', async () => {
    const rows: CellInput[][] = [
      [...BASIC_HEADER],
      [1, 'Бумага', 74672028, 'ART-1', 'Продажа', 'Продажа', '2022-10-27', 2, 3000.5, 2600.25, 0],
      [2, 'Бумага', 74672028, 'ART-1', 'Продажа', 'Продажа', '2022-10-29', 1, 1000, 900, 0],
      [3, 'Бумага', 74672028, 'ART-1', 'Возврат', 'Возврат', '2022-10-28', 1, 1000, 900, 0],
    ];
    const zip = writeZip([
      { name: 'Еженедельный детализированный отчет №786182326_1202289 - 1.xlsx', data: wbXlsx(rows) },
    ]);
    const source = { buffer: zip, filename: 'report (1).zip' };
    const count = await countRows(source);
    expect(count).toEqual({ format: 'zip', rows: 3, report_number: '786182326', seller_number: '1202289' });
    const report = await readReport(source);
    expect(report).toMatchObject({ ...count, period_from: '2022-10-27', period_to: '2022-10-29' });
    expect(report.articles.map((a) => a.article)).toEqual(['ART-1']);
    expect(report.articles[0]).toMatchObject({ category: 'Бумага', nm_id: '74672028' });
    expect(report.articles[0]!.aggregates).toMatchObject({ sales_qty: 3, returns_qty: 1, for_pay: 260025 });
  });

  it('count the real report like readReport does', async () => {
    const count = await countRows({ path: FIXTURE });
    const report = await readReport({ path: FIXTURE });
    expect(count.rows).toBe(99);
    expect(report.rows).toBe(99);
    expect(report.format).toBe('xlsx');
  });

  it('refuse a file that is not a report the same way', async () => {
    const buffer = wbXlsx([
      ['Артикул', 'Количество'],
      ['A', 1],
    ]);
    await expect(countRows({ buffer })).rejects.toBeInstanceOf(ReportError);
    await expect(readReport({ buffer })).rejects.toMatchObject({ code: 'missing_headers' });
    await expect(countRows({ buffer })).rejects.toMatchObject({ code: 'missing_headers' });
  });
});
