import { describe, expect, it } from 'vitest';
import { parseFileMeta } from './filename';

describe('parseFileMeta', () => {
  it.each([
    ['Еженедельный детализированный отчет №786182326_1202289.zip', '786182326', '1202289'],
    ['Еженедельный детализированный отчет №786182326_1202289 - 1.xlsx', '786182326', '1202289'],
    ['Еженедельный детализированный отчет №786182326_1202289 (1).zip', '786182326', '1202289'],
    ['Еженедельный детализированный отчет №786182326_1202289 (2).zip', '786182326', '1202289'],
    ['Еженедельный детализированный отчет №786182326_1202289- копия.xlsx', '786182326', '1202289'],
    ['Еженедельный детализированный отчет №786182326_1202289 - 1 (1).xlsx', '786182326', '1202289'],
    ['№786182326_1202289 - 1.xlsx', '786182326', '1202289'],
    ['Ежедневный детализированный отчет №120228920240115_1202289.zip', '120228920240115', '1202289'],
    ['downloads/reports/Еженедельный детализированный отчет №786182327_1202289.zip', '786182327', '1202289'],
    [
      'C:\\Users\\me\\Downloads\\Еженедельный детализированный отчет №786182326_1202289 - 1.xlsx',
      '786182326',
      '1202289',
    ],
    ['report.xlsx', null, null],
    ['отчет_2024_final.xlsx', null, null],
    ['отчет №123.xls', '123', null],
    ['выгрузка_55123.xlsx', null, '55123'],
  ])('%s', (name, report, seller) => {
    expect(parseFileMeta(name)).toEqual({ report_number: report, seller_number: seller });
  });

  it('keeps 15-digit daily numbers exact (strings, not JS numbers)', () => {
    const meta = parseFileMeta('Ежедневный детализированный отчет №999999999999999_1.zip');
    expect(meta.report_number).toBe('999999999999999');
    expect(typeof meta.report_number).toBe('string');
  });

  it('takes the first № when the name carries two', () => {
    expect(parseFileMeta('№111_22 №333_44.xlsx').report_number).toBe('111');
  });
});
