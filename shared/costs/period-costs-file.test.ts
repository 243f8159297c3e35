import { describe, expect, it } from 'vitest';
import { parseMonth, readCostFile, rowsToCosts } from './period-costs-file';

describe('period-cost file', () => {
  it('reads months in the ways people write them', () => {
    expect(parseMonth('2026-01')).toBe('2026-01');
    expect(parseMonth('1.2026')).toBe('2026-01');
    expect(parseMonth('Май 2026')).toBe('2026-05');
    expect(parseMonth('март 2026')).toBe('2026-03');
    expect(parseMonth('15.02.2026')).toBe('2026-02');
    expect(parseMonth('')).toBeUndefined();
    expect(parseMonth('13.2026')).toHaveProperty('error');
    expect(parseMonth('когда-нибудь')).toHaveProperty('error');
  });

  it('rows → costs, a title block above the header, kinds guessed, bad rows listed by their number', () => {
    const out = rowsToCosts([
      ['Расходы ИП'],
      [],
      ['Статья', 'Категория', 'Сумма, ₽', 'С месяца', 'По месяц', 'Дата'],
      ['Склад', 'Аренда', '45 000,50', '2026-01', '2026-06', ''],
      ['Юрист', 'услуги', '15000', '', '', '10.02.2026'],
      ['Ошибка', 'налоги', '100', '2026-01', '', ''],
      ['Назад', '', '100', '2026-05', '2026-01', ''],
      ['Дробь', '', '1,005', '2026-01', '', ''],
      ['', '', '', '', '', ''],
    ]);
    expect(out.rows).toEqual([
      {
        row: 4,
        cost: {
          name: 'Склад',
          category: 'rent',
          amount: 45_000.5,
          kind: 'monthly',
          from_month: '2026-01',
          to_month: '2026-06',
        },
      },
      { row: 5, cost: { name: 'Юрист', category: 'services', amount: 15_000, kind: 'one_off', date: '2026-02-10' } },
    ]);
    expect(out.errors.map((e) => e.row)).toEqual([6, 7, 8]);
    expect(out.errors[1]!.message).toContain('раньше');
    expect(out.errors[2]!.message).toContain('2 знаков');
  });

  it('refuses a file without the columns and an empty file', async () => {
    expect(() => rowsToCosts([['a', 'b']])).toThrow(expect.objectContaining({ code: 'period_cost_columns_missing' }));
    await expect(readCostFile(Buffer.alloc(0))).rejects.toMatchObject({ code: 'empty_file' });
  });

  it('reads a csv with commas and CRLF line ends', async () => {
    const text = 'Название,Сумма,Месяц\r\nАренда,1000,2026-03\r\n';
    const bytes = Buffer.from(new TextEncoder().encode(text));
    const out = await readCostFile(bytes);
    expect(out.rows[0]!.cost).toMatchObject({ name: 'Аренда', amount: 1000, from_month: '2026-03', category: 'other' });
  });
});

describe('period-cost file as .xlsx', () => {
  it('reads the first sheet of a workbook Excel would save (dates as dates, numbers as numbers)', async () => {
    const ExcelJS = (await import('exceljs')).default;
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Расходы');
    ws.addRow(['Название', 'Категория', 'Сумма', 'Месяц', 'Дата', 'Тип']);
    ws.addRow(['Зарплата', 'Зарплаты', 80_000, '2026-01', null, 'ежемесячно']);
    ws.addRow(['Сертификация', 'Услуги', 12_345.67, null, new Date(Date.UTC(2026, 1, 20)), 'разовый']);
    const buf = Buffer.from(await wb.xlsx.writeBuffer());
    const out = await readCostFile(buf);
    expect(out.errors).toEqual([]);
    expect(out.rows.map((r) => r.cost)).toEqual([
      {
        name: 'Зарплата',
        category: 'salaries',
        amount: 80_000,
        kind: 'monthly',
        from_month: '2026-01',
        to_month: null,
      },
      { name: 'Сертификация', category: 'services', amount: 12_345.67, kind: 'one_off', date: '2026-02-20' },
    ]);
  });
});
