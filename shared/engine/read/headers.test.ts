import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReportError } from '../errors';
import { KEY_INDEX } from '../row-sink';
import { CURRENT_LAYOUT, englishTitleOf, headerKey, mapHeaderRow, normalizeHeader } from './headers';

describe('the 2026 sheet (CURRENT_LAYOUT)', () => {
  it('is the golden record fixtures/wb-headers-2026.json, column by column', () => {
    // The golden file is written by hand from a real 2026 report, apart from the engine's table that the
    // fixture generator lays out its files with: a header changed in the engine alone fails here.
    const golden = JSON.parse(readFileSync(join(__dirname, '../../../fixtures/wb-headers-2026.json'), 'utf8')) as Array<
      [string, string]
    >;
    expect(golden).toHaveLength(82);
    expect(CURRENT_LAYOUT.map(({ key, title }) => [key, title])).toEqual(golden);
    for (const [key, title] of golden) expect(headerKey(title)).toBe(key);
  });

  it('knows the documented English-locale titles', () => {
    expect(englishTitleOf('sa_name')).toBe("Supplier's Article");
    expect(englishTitleOf('ppvz_for_pay')).toBe('Amount to Transfer to the Seller for the Realized Goods');
    expect(englishTitleOf('gi_id')).toBeUndefined();
    expect(CURRENT_LAYOUT.filter(({ key }) => englishTitleOf(key) !== undefined)).toHaveLength(6);
  });
});

describe('normalizeHeader', () => {
  it('trims, collapses white space, lower-cases and folds ё', () => {
    expect(normalizeHeader('  Размер  кВВ\u00a0без НДС,\t% Базовый ')).toBe('размер квв без ндс, % базовый');
    expect(normalizeHeader('Операции при приёмке')).toBe('операции при приемке');
  });
});

describe('headerKey', () => {
  it.each([
    ['Артикул поставщика', 'sa_name'],
    ['артикул  поставщика ', 'sa_name'],
    ["Supplier's Article", 'sa_name'],
    ['Document Type', 'doc_type_name'],
    ['Reason for Payment', 'supplier_oper_name'],
    ['Quantity', 'quantity'],
    ['Wildberries Realized Goods (Pr)', 'retail_amount'],
    ['Amount to Transfer to the Seller for the Realized Goods', 'ppvz_for_pay'],
    ['К перечислению за товар', 'ppvz_for_pay'],
    ['Эквайринг/Комиссии за организацию платежей', 'acquiring_fee'],
    ['Возмещение расходов по эквайрингу', 'acquiring_fee'],
    ['Компенсация платежных услуг/Комиссия за интеграцию платежных сервисов', 'acquiring_fee'],
    ['Размер комиссии за эквайринг/Комиссии за организацию платежей, %', 'acquiring_percent'],
    ['Тип платежа за Эквайринг/Комиссии за организацию платежей', 'payment_processing'],
    ['Платная приемка', 'acceptance'],
    ['Операции при приёмке', 'acceptance'],
    ['Возмещение Расходов услуг поверенного', 'ppvz_reward'],
    ['Штрафы', 'penalty'],
    ['Доплаты', 'additional_payment'],
    ['Обоснование штрафов и доплат', 'bonus_type_name'],
    ['Виды логистики, штрафов и доплат', 'bonus_type_name'],
    ['Виды доставок, штрафов и корректировок ВВ', 'bonus_type_name'],
    ['Скидка постоянного Покупателя (СПП), %', 'ppvz_spp_prc'],
    ['Скидка постоянного Покупателя (СПП)', 'ppvz_spp_prc'],
    ['СПП', 'ppvz_spp_prc'],
    ['Размер  кВВ без НДС, % Базовый', 'ppvz_kvw_prc_base'],
    ['Размер кВВ без НДС Базовый', 'ppvz_kvw_prc_base'],
    ['Сумма удержанная за начисленные баллы программы лояльности', 'cashback_amount'],
    ['Номер короба для платной приемки', 'trbx_id'],
    ['Наименование банка эквайринга', 'acquiring_bank'],
    ['ИНН партнёра', 'ppvz_inn'],
    ['Партнёр', 'ppvz_supplier_name'],
    ['Промокод %', 'supplier_promo'],
    ['Итоговая согласованная скидка', 'product_discount_for_report'],
    ['Оптовая скидка для бизнеса, %', 'sale_price_wholesale_discount_prc'],
    ['Коэффициент логистики', null],
    ['Rid', null],
  ])('%s → %s', (text, key) => {
    expect(headerKey(text)).toBe(key);
  });
});

describe('mapHeaderRow', () => {
  const required = [
    'Артикул поставщика',
    'Тип документа',
    'Обоснование для оплаты',
    'Кол-во',
    'Вайлдберриз реализовал Товар (Пр)',
    'К перечислению Продавцу за реализованный Товар',
  ];

  it('maps columns by text, first column of a key wins, unknown ones listed', () => {
    const headers = new Map<number, string>([
      [0, '№'],
      [2, 'Хранение'],
      [3, 'Коэффициент логистики'],
      ...required.map((t, i) => [10 + i, t] as [number, string]),
      [20, 'К перечислению за товар'],
    ]);
    const map = mapHeaderRow(headers);
    expect(map.toMetric[10]).toBe(KEY_INDEX.sa_name);
    expect(map.toMetric[15]).toBe(KEY_INDEX.ppvz_for_pay);
    expect(map.toMetric[20]).toBe(-1);
    expect(map.toMetric[2]).toBe(KEY_INDEX.storage_fee);
    expect(map.toMetric[0]).toBe(KEY_INDEX.rrd_no);
    expect([...map.present].sort()).toEqual(
      [
        'sa_name',
        'doc_type_name',
        'supplier_oper_name',
        'quantity',
        'retail_amount',
        'ppvz_for_pay',
        'storage_fee',
        'rrd_no',
      ].sort(),
    );
    expect(map.unknown).toEqual(['Коэффициент логистики']);
  });

  it('names the missing required columns by their Russian titles', () => {
    const headers = new Map<number, string>([
      [0, 'Артикул поставщика'],
      [1, 'Кол-во'],
      [2, 'Вайлдберриз реализовал Товар (Пр)'],
    ]);
    let error: unknown;
    try {
      mapHeaderRow(headers);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ReportError);
    const e = error as ReportError;
    expect(e.code).toBe('missing_headers');
    expect(e.message).toContain('«Тип документа»');
    expect(e.message).toContain('«Обоснование для оплаты»');
    expect(e.message).toContain('«К перечислению Продавцу за реализованный Товар»');
    expect(e.message).not.toContain('Кол-во');
    expect(e.details).toEqual({
      missing: ['Тип документа', 'Обоснование для оплаты', 'К перечислению Продавцу за реализованный Товар'],
      keys: ['doc_type_name', 'supplier_oper_name', 'ppvz_for_pay'],
    });
  });
});
