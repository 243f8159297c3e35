import { describe, expect, it } from 'vitest';
import { createAggregator } from './aggregate';
import { checkIdentity } from './kopeck-check';
import { KEY_INDEX, METRIC_KEYS, type MetricKey } from './row-sink';
import type { AggregateValues } from './types';

type Row = Partial<Record<MetricKey, string>>;

function cells(row: Row): Array<string | undefined> {
  const c: Array<string | undefined> = new Array(METRIC_KEYS.length).fill(undefined);
  for (const [k, v] of Object.entries(row)) c[KEY_INDEX[k as MetricKey]] = v === '' ? undefined : v;
  return c;
}

function aggregate(rows: Row[], present: readonly MetricKey[] = METRIC_KEYS) {
  const agg = createAggregator();
  agg.begin(new Set(present));
  for (const r of rows) agg.row(cells(r));
  return agg.finish();
}

function sale(over: Row): Row {
  return {
    sa_name: 'A',
    subject_name: 'Футболки',
    nm_id: '111',
    brand_name: 'B',
    doc_type_name: 'Продажа',
    supplier_oper_name: 'Продажа',
    ...over,
  };
}

/** Every class and sign rule once, with amounts worked out by hand below. */
const ROWS: Row[] = [
  {
    sa_name: 'A',
    subject_name: 'Логистика-предмет',
    supplier_oper_name: 'Логистика',
    doc_type_name: 'Продажа',
    bonus_type_name: 'К клиенту при продаже',
    delivery_amount: '1',
    delivery_rub: '50',
    sale_dt: '2024-01-11',
  },
  sale({
    quantity: '1',
    retail_amount: '1000',
    retail_price_withdisc_rub: '1200',
    ppvz_for_pay: '850',
    ppvz_vw: '100',
    ppvz_vw_nds: '20',
    acquiring_fee: '15',
    ppvz_reward: '15',
    commission_percent: '25',
    sale_dt: '2024-01-10',
  }),
  sale({
    doc_type_name: 'Возврат',
    supplier_oper_name: 'Возврат',
    quantity: '1',
    retail_amount: '1000',
    retail_price_withdisc_rub: '1200',
    ppvz_for_pay: '850',
    ppvz_vw: '100',
    ppvz_vw_nds: '20',
    acquiring_fee: '15',
    ppvz_reward: '15',
    commission_percent: '25',
    sale_dt: '12.01.2024',
  }),
  sale({
    quantity: '2',
    retail_amount: '1800',
    retail_price_withdisc_rub: '1000',
    ppvz_for_pay: '1500',
    ppvz_vw: '200',
    ppvz_vw_nds: '40',
    acquiring_fee: '30',
    ppvz_reward: '30',
    commission_percent: '20',
    sale_dt: '2024-01-15T10:20:30',
  }),
  sale({
    doc_type_name: '',
    supplier_oper_name: 'Сторно продаж',
    quantity: '1',
    retail_amount: '900',
    retail_price_withdisc_rub: '1000',
    ppvz_for_pay: '750',
    ppvz_vw: '100',
    ppvz_vw_nds: '20',
    acquiring_fee: '15',
    ppvz_reward: '15',
    commission_percent: '20',
  }),
  sale({
    doc_type_name: '',
    supplier_oper_name: 'Коррекция продаж',
    quantity: '0',
    retail_amount: '10',
    retail_price_withdisc_rub: '0',
    ppvz_for_pay: '8',
    ppvz_vw: '1.5',
    ppvz_vw_nds: '0.3',
    acquiring_fee: '0.1',
    ppvz_reward: '0.1',
    commission_percent: '20',
  }),
  {
    sa_name: 'A',
    supplier_oper_name: 'Логистика',
    bonus_type_name: 'От клиента при возврате',
    return_amount: '1',
    delivery_rub: '50',
  },
  {
    sa_name: 'A',
    supplier_oper_name: 'Логистика',
    bonus_type_name: 'К клиенту при отмене',
    delivery_amount: '1',
    delivery_rub: '30',
  },
  {
    sa_name: 'A',
    supplier_oper_name: 'Логистика сторно',
    bonus_type_name: 'К клиенту при продаже',
    delivery_amount: '1',
    delivery_rub: '50',
  },
  {
    sa_name: 'A',
    supplier_oper_name: 'Коррекция логистики',
    bonus_type_name: 'Возврат брака (К продавцу)',
    delivery_rub: '20',
  },
  { sa_name: 'A', supplier_oper_name: 'Компенсация брака', doc_type_name: 'Продажа', ppvz_for_pay: '300' },
  { sa_name: 'A', supplier_oper_name: 'Оплата потерянного товара', ppvz_for_pay: '200' },
  {
    sa_name: 'A',
    supplier_oper_name: 'Добровольная компенсация при возврате',
    doc_type_name: 'Возврат',
    ppvz_for_pay: '100',
  },
  {
    sa_name: 'A',
    supplier_oper_name: 'Компенсация скидки по программе лояльности',
    cashback_discount: '40',
    ppvz_for_pay: '40',
  },
  { sa_name: 'A', supplier_oper_name: 'Стоимость участия в программе лояльности', cashback_commission_change: '10' },
  {
    sa_name: 'A',
    supplier_oper_name: 'Сумма удержанная за начисленные баллы программы лояльности',
    cashback_amount: '5',
  },
  { sa_name: 'A', supplier_oper_name: 'Возмещение за выдачу и возврат товаров на ПВЗ', ppvz_reward: '7' },
  { sa_name: 'A', supplier_oper_name: 'Корректировка эквайринга', acquiring_fee: '3' },
  {
    sa_name: 'A',
    supplier_oper_name: 'Возмещение издержек по перевозке/по складским операциям с товаром',
    rebill_logistic_cost: '12',
    // As WB writes it: the rebill netted in its reward on the same row, nothing to pay.
    ppvz_vw: '-9.84',
    ppvz_vw_nds: '-2.16',
    ppvz_for_pay: '0',
  },
  { sa_name: 'A', supplier_oper_name: 'Штрафы', bonus_type_name: 'Платная приемка МП на СЦ', penalty: '100' },
  { sa_name: 'A', supplier_oper_name: 'Доплаты', additional_payment: '25' },
  { sa_name: '', supplier_oper_name: 'Хранение', storage_fee: '500', sale_dt: '2024-01-31' },
  { sa_name: '', supplier_oper_name: 'Хранение', storage_fee: '0' },
  { sa_name: '', supplier_oper_name: 'Платная приемка', acceptance: '60' },
  {
    sa_name: '',
    supplier_oper_name: 'Удержания',
    bonus_type_name: 'Оказание услуг «ВБ.Продвижение»',
    deduction: '1000',
  },
  { sa_name: '', supplier_oper_name: 'Удержания', bonus_type_name: 'Перевод на баланс заёмщика', deduction: '2000' },
  { sa_name: '', supplier_oper_name: 'Удержания', bonus_type_name: 'Погашение займа', deduction: '100' },
  {
    sa_name: '',
    supplier_oper_name: 'Удержания',
    bonus_type_name: 'Предоставление услуг по подписке «Джем»',
    deduction: '300',
  },
  { sa_name: '', supplier_oper_name: 'Новая операция WB', ppvz_for_pay: '10' },
  { sa_name: '', supplier_oper_name: 'Новая  операция WB' },
  {
    sa_name: '  ',
    supplier_oper_name: 'Продажа',
    doc_type_name: 'Продажа',
    quantity: '1',
    retail_amount: '100',
    retail_price_withdisc_rub: '100',
    ppvz_for_pay: '80',
    ppvz_vw: '16',
    ppvz_vw_nds: '4',
    commission_percent: '25',
  },
];

describe('createAggregator: every class and sign rule', () => {
  const result = aggregate(ROWS);
  const byArticle = new Map(result.articles.map((a) => [a.article, a]));
  const a = byArticle.get('A')!;
  const empty = byArticle.get('')!;

  it('groups by trimmed article, with "" for rows without one', () => {
    expect(result.articles.map((x) => x.article)).toEqual(['A', '']);
    expect(result.rows).toBe(ROWS.length);
  });

  it('realization rows: quantities, amounts and directions (doc type, else the operation default)', () => {
    // sales: 1 + 2 + 0 (Коррекция продаж, empty doc → +1); returns: 1 (Возврат) + 1 (Сторно продаж, empty doc → −1)
    expect(a.aggregates.sales_qty).toBe(3);
    expect(a.aggregates.returns_qty).toBe(2);
    // 1000 − 1000 + 1800 − 900 + 10 = 910.00
    expect(a.aggregates.realization).toBe(91000);
    // 1200 − 1200 + 1000·2 − 1000 + 0 = 1000.00
    expect(a.aggregates.seller_price).toBe(100000);
    expect(a.aggregates.sales_seller_price).toBe(320000);
    expect(a.aggregates.wb_discount).toBe(9000);
    // 850 − 850 + 1500 − 750 + 8 = 758.00
    expect(a.aggregates.for_pay).toBe(75800);
    // (120 − 120 + 240 − 120 + 1.80)
    expect(a.aggregates.commission).toBe(12180);
    // 15 − 15 + 30 − 15 + 0.10, plus 3.00 of "Корректировка эквайринга"
    expect(a.aggregates.acquiring).toBe(1810);
    // 15 − 15 + 30 − 15 + 0.10, plus 7.00 of the pickup row
    expect(a.aggregates.attorney_services).toBe(2210);
  });

  it('compensations by direction; loyalty compensation is not one', () => {
    // 300 + 200 (empty doc → +1) − 100 (Возврат)
    expect(a.aggregates.compensations).toBe(40000);
    // −10 − 5: what the programme withholds; the discount compensation (40) is for reference
    expect(a.aggregates.loyalty).toBe(-1500);
    expect(a.aggregates.loyalty_discount).toBe(4000);
  });

  it('logistics legs: forward, reverse, сторно negated', () => {
    // forward: 50 (к клиенту) + 30 (к клиенту при отмене) − 50 (сторно)
    expect(a.aggregates.logistics).toBe(3000);
    // reverse: 50 (return_amount 1) + 20 ("Возврат брака" kind)
    expect(a.aggregates.reverse_logistics).toBe(7000);
  });

  it('column-driven amounts on any row', () => {
    expect(a.aggregates.rebill_logistics).toBe(1200);
    expect(a.aggregates.penalties).toBe(10000);
    expect(a.aggregates.acceptance).toBe(0);
    expect(a.aggregates.additional_payments).toBe(2500);
    expect(empty.aggregates.storage).toBe(50000);
    expect(empty.aggregates.acceptance).toBe(6000);
    expect(empty.aggregates.ads).toBe(100000);
    expect(empty.aggregates.loans).toBe(210000);
    expect(empty.aggregates.deductions).toBe(30000);
  });

  it('category from the first realization row, id and brand, weighted commission percent', () => {
    expect(a.category).toBe('Футболки');
    expect(a.nm_id).toBe('111');
    expect(a.brand).toBe('B');
    // (25·2000 + 20·(1800 + 900 + 10)) / 4710 = 22.1231…
    expect(a.aggregates.category_commission_percent).toBe(22.12);
    expect(empty.aggregates.category_commission_percent).toBe(25);
  });

  it('period: min and max sale date in any of the accepted formats', () => {
    expect(result.period_from).toBe('2024-01-10');
    expect(result.period_to).toBe('2024-01-31');
  });

  it('warnings: unknown operation (rows and money) and realization without article', () => {
    expect(result.warnings).toEqual([
      expect.objectContaining({
        code: 'unknown_operation',
        details: { operation: 'Новая операция WB', rows: 2, amount: 1000 },
      }),
      expect.objectContaining({
        code: 'realization_without_article',
        details: { rows: 1, realization: 10000, for_pay: 8000 },
      }),
    ]);
  });

  it('identity holds on realization money (pickup and acquiring correction rows excluded)', () => {
    const realizationOnly = {
      ...a.aggregates,
      acquiring: a.aggregates.acquiring - 300,
      attorney_services: a.aggregates.attorney_services - 700,
    };
    expect(checkIdentity([{ article: 'A', aggregates: realizationOnly }])).toEqual([]);
    expect(checkIdentity([{ article: 'A', aggregates: a.aggregates }])).toEqual([
      { article: 'A', gap: -1000, allowed: 5 },
    ]);
  });
});

describe('createAggregator: column variants', () => {
  it('percent columns with all non-zero values ≤ 1 are fractions (×100) and say so', () => {
    const r = aggregate([
      sale({ quantity: '1', retail_amount: '1000', ppvz_for_pay: '1000', commission_percent: '0.25' }),
      sale({ sa_name: 'B', quantity: '1', retail_amount: '300', ppvz_for_pay: '300', commission_percent: '0.2' }),
      sale({ sa_name: 'B', quantity: '1', retail_amount: '100', ppvz_for_pay: '100', commission_percent: '0' }),
    ]);
    expect(r.articles.map((x) => x.aggregates.category_commission_percent)).toEqual([25, 15]);
    expect(r.warnings).toEqual([
      expect.objectContaining({ code: 'percent_as_fraction', details: { column: 'commission_percent' } }),
    ]);
  });

  it('a column with one value above 1 is in whole percents', () => {
    const r = aggregate([
      sale({ quantity: '1', retail_amount: '1000', ppvz_for_pay: '1000', commission_percent: '0.5' }),
      sale({ sa_name: 'B', quantity: '1', retail_amount: '100', ppvz_for_pay: '100', commission_percent: '27.5' }),
    ]);
    expect(r.articles.map((x) => x.aggregates.category_commission_percent)).toEqual([0.5, 27.5]);
    expect(r.warnings).toEqual([]);
  });

  it('without a ppvz_vw column, commission = realization − for_pay − acquiring − attorney_services', () => {
    const present = METRIC_KEYS.filter((k) => k !== 'ppvz_vw' && k !== 'ppvz_vw_nds');
    const r = aggregate(
      [
        sale({ quantity: '1', retail_amount: '1000', ppvz_for_pay: '850', acquiring_fee: '15', ppvz_reward: '10' }),
        sale({
          doc_type_name: 'Возврат',
          supplier_oper_name: 'Возврат',
          quantity: '1',
          retail_amount: '400',
          ppvz_for_pay: '340',
          acquiring_fee: '6',
          ppvz_reward: '4',
        }),
      ],
      present,
    );
    // (1000 − 400) − (850 − 340) − (15 − 6) − (10 − 4) = 600 − 510 − 9 − 6 = 75
    expect(r.articles[0]!.aggregates.commission).toBe(7500);
  });

  it('period falls back to the order date per row; Excel serials count', () => {
    const r = aggregate([
      sale({ quantity: '1', order_dt: '2022-09-28' }),
      sale({ quantity: '1', sale_dt: '44837' }),
      sale({ quantity: '1', sale_dt: '44840.5', order_dt: '2022-01-01' }),
    ]);
    expect([r.period_from, r.period_to]).toEqual(['2022-09-28', '2022-10-06']);
  });

  it('period over more distinct date texts than the aggregator remembers, repeated and invalid ones mixed in', () => {
    // Serial 40000 is 2009-07-06; 6000 distinct serials plus repeats of a text that is no date.
    const rows: Row[] = [];
    for (let i = 0; i < 6000; i++) {
      rows.push(sale({ quantity: '1', sale_dt: String(40000 + ((i * 7919) % 6000)) }));
      if (i % 100 === 0) rows.push(sale({ quantity: '1', sale_dt: 'not a date', order_dt: '2030-01-01' }));
    }
    const r = aggregate(rows);
    expect([r.period_from, r.period_to]).toEqual(['2009-07-06', '2030-01-01']);
    // Without the order-date fallback rows the last sale date is serial 45999.
    expect(aggregate(rows.filter((x) => x.sale_dt !== 'not a date')).period_to).toBe('2025-12-08');
  });

  it('no dates → null period', () => {
    const r = aggregate([sale({ quantity: '1' })]);
    expect([r.period_from, r.period_to]).toEqual([null, null]);
  });

  it('category from any row when the article has no realization row; trims the article', () => {
    const r = aggregate([
      { sa_name: ' C ', subject_name: 'Носки', supplier_oper_name: 'Логистика', delivery_rub: '10' },
      { sa_name: 'C', subject_name: 'Другое', supplier_oper_name: 'Логистика', delivery_rub: '5' },
    ]);
    expect(r.articles).toHaveLength(1);
    expect(r.articles[0]).toMatchObject({ article: 'C', category: 'Носки' });
    expect(r.articles[0]!.aggregates.logistics).toBe(1500);
  });

  it('copes with a reader that reuses one cells array', () => {
    const agg = createAggregator();
    agg.begin(new Set(METRIC_KEYS));
    const buf: Array<string | undefined> = new Array(METRIC_KEYS.length);
    const feed = (r: Row) => {
      buf.fill(undefined);
      for (const [k, v] of Object.entries(r)) buf[KEY_INDEX[k as MetricKey]] = v;
      agg.row(buf);
    };
    feed(sale({ sa_name: 'X', quantity: '1', retail_amount: '10' }));
    feed(sale({ sa_name: 'Y', quantity: '2', retail_amount: '20' }));
    feed(sale({ sa_name: 'X', quantity: '1', retail_amount: '30' }));
    const r = agg.finish();
    const pick = (x: { article: string; aggregates: AggregateValues }) => [
      x.article,
      x.aggregates.sales_qty,
      x.aggregates.realization,
    ];
    expect(r.articles.map(pick)).toEqual([
      ['X', 2, 4000],
      ['Y', 2, 2000],
    ]);
  });

  it('non-numeric money text counts as 0 and is reported', () => {
    const r = aggregate([
      sale({ quantity: '1', retail_amount: 'н/д', ppvz_for_pay: '5' }),
      sale({ quantity: '1', retail_amount: '-', ppvz_for_pay: '5' }),
    ]);
    expect(r.articles[0]!.aggregates.realization).toBe(0);
    expect(r.articles[0]!.aggregates.for_pay).toBe(1000);
    expect(r.warnings).toEqual([
      // Read as 0, the rows' retail amount no longer explains their for_pay: said too.
      expect.objectContaining({
        code: 'unexplained_rows',
        details: { rows: 2, row_numbers: ['стр. 1', 'стр. 2'], amount: -1000 },
      }),
      expect.objectContaining({
        code: 'invalid_number',
        details: { column: 'retail_amount', rows: 2, example: 'н/д' },
      }),
    ]);
  });

  it('a known operation with money in no counted column is reported', () => {
    const r = aggregate([{ sa_name: '', supplier_oper_name: 'Хранение', ppvz_for_pay: '-12.5' }]);
    expect(r.warnings).toEqual([
      expect.objectContaining({
        code: 'uncounted_operation',
        details: { operation: 'Хранение', rows: 1, amount: -1250 },
      }),
    ]);
  });
});
