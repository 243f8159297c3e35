import { describe, expect, it } from 'vitest';
import { KNOWN_KEYS } from '../../../engine/read/headers';
import { METRIC_KEYS, type RowSink } from '../../../engine/row-sink';
import { DETAILED_ROW_FIELDS, DETAILED_ROW_FIELD_NAMES, type DetailedRowField } from './finance-fields';
import { aggregateApiRows, apiRowCells, apiRowFeeder, METRIC_SOURCE, portalRowToApiRow } from './row-map';
import { detailedRowSchema, type WbDetailedRow } from './schemas';
import { reportSumsFromRows } from './report-sums';
import { buildItems } from '../../../engine';

/** A row with every field of the spec set to a value of its type that no other field has. */
function fullRow(): WbDetailedRow {
  const row: Record<string, unknown> = {};
  DETAILED_ROW_FIELD_NAMES.forEach((field, i) => {
    const type = DETAILED_ROW_FIELDS[field][0];
    row[field] =
      type === 'money'
        ? `${i + 1}.${String(i).padStart(2, '0')}`
        : type === 'int'
          ? 1000 + i
          : type === 'number'
            ? i + 0.25
            : type === 'bool'
              ? i % 2 === 0
              : `${field}-text`;
  });
  return detailedRowSchema.parse(row);
}

describe('WB API row → engine cells', () => {
  it('the spec has 93 row fields, each mapped to a portal column the engine knows, or to none', () => {
    expect(DETAILED_ROW_FIELD_NAMES).toHaveLength(93);
    const known = new Set(KNOWN_KEYS);
    const seen = new Set<string>();
    for (const field of DETAILED_ROW_FIELD_NAMES) {
      const key = DETAILED_ROW_FIELDS[field][1];
      if (key === null) continue;
      expect(known.has(key), `${field} → ${key}`).toBe(true);
      expect(seen.has(key), `${key} twice`).toBe(false);
      seen.add(key);
    }
    // The API fields without a portal column: report-level values and fields the file does not have.
    expect(DETAILED_ROW_FIELD_NAMES.filter((f) => DETAILED_ROW_FIELDS[f][1] === null)).toEqual([
      'reportId',
      'dateFrom',
      'dateTo',
      'createDate',
      'currency',
      'reportType',
      'rrDate',
      'agencyVat',
      'b2bCustomerTin',
      'paidWithSocialCertificate',
      'warehouseLogisticsCoeff',
    ]);
  });

  it('every engine column has its API field, the renamed ones included', () => {
    expect(Object.keys(METRIC_SOURCE).sort()).toEqual([...METRIC_KEYS].sort());
    expect(METRIC_SOURCE).toMatchObject({
      sa_name: 'vendorCode',
      supplier_oper_name: 'sellerOperName',
      retail_price_withdisc_rub: 'retailPriceWithDisc',
      delivery_rub: 'deliveryService',
      ppvz_for_pay: 'forPay',
      ppvz_vw: 'vw',
      ppvz_vw_nds: 'vwNds',
      storage_fee: 'paidStorage',
      acceptance: 'paidAcceptance',
      cashback_amount: 'cashbackAmount',
    });
  });

  it('maps every field of a row to the cell of its column, as text', () => {
    const row = fullRow();
    const cells = apiRowCells(row);
    expect(cells).toHaveLength(METRIC_KEYS.length);
    METRIC_KEYS.forEach((key, i) => {
      const v = row[METRIC_SOURCE[key]];
      expect(cells[i], key).toBe(typeof v === 'number' ? String(v) : v);
    });
    expect(cells[METRIC_KEYS.indexOf('sa_name')]).toBe('vendorCode-text');
    expect(cells[METRIC_KEYS.indexOf('quantity')]).toBe(String(row.quantity));
    expect(cells[METRIC_KEYS.indexOf('ppvz_for_pay')]).toBe(row.forPay);
  });

  it('nmId 0 (a row of no product) is an empty cell, as in the file', () => {
    expect(apiRowCells({ nmId: 0 })[METRIC_KEYS.indexOf('nm_id')]).toBeUndefined();
    expect(apiRowCells({ nmId: 12 })[METRIC_KEYS.indexOf('nm_id')]).toBe('12');
  });

  it('absent and empty values are empty cells; a row with nothing is not a row', () => {
    const seen: Array<Array<string | undefined>> = [];
    let present: ReadonlySet<string> | undefined;
    const sink: RowSink = { begin: (p) => (present = p), row: (c) => seen.push([...c]) };
    const feeder = apiRowFeeder(sink);
    expect(feeder.push([{ vendorCode: '', forPay: '5' }, {}, { rrdId: 9 }])).toBe(1);
    expect(present).toEqual(new Set(METRIC_KEYS));
    expect(seen[0]![METRIC_KEYS.indexOf('sa_name')]).toBeUndefined();
    expect(seen[0]![METRIC_KEYS.indexOf('ppvz_for_pay')]).toBe('5');
    expect(feeder.rows()).toBe(1);
  });

  it('feeds the engine: a sale, a return, logistics and storage', () => {
    const base = {
      vendorCode: 'A',
      subjectName: 'Платья',
      nmId: 1,
      brandName: 'B',
      saleDt: '2026-01-06T10:00:00+03:00',
    };
    const r = aggregateApiRows([
      [
        {
          ...base,
          docTypeName: 'Продажа',
          sellerOperName: 'Продажа',
          quantity: 1,
          retailAmount: '1000',
          retailPriceWithDisc: '1100',
          forPay: '800.01',
          vw: '150',
          vwNds: '30',
          acquiringFee: '19.99',
          commissionPercent: 20,
        },
        {
          ...base,
          docTypeName: 'Возврат',
          sellerOperName: 'Возврат',
          quantity: 1,
          retailAmount: '1000',
          retailPriceWithDisc: '1100',
          forPay: '800.01',
          vw: '150',
          vwNds: '30',
          acquiringFee: '19.99',
          commissionPercent: 20,
        },
      ],
      [
        {
          ...base,
          docTypeName: 'Продажа',
          sellerOperName: 'Продажа',
          quantity: 2,
          retailAmount: '2000',
          retailPriceWithDisc: '1100',
          forPay: '1600.02',
          vw: '300',
          vwNds: '60',
          acquiringFee: '39.98',
          commissionPercent: 20,
        },
        { ...base, sellerOperName: 'Логистика', bonusTypeName: 'К клиенту при продаже', deliveryService: '55.5' },
        { vendorCode: '', sellerOperName: 'Хранение', paidStorage: '12.34' },
      ],
    ]);
    const a = r.articles.find((x) => x.article === 'A')!.aggregates;
    expect(a).toMatchObject({ sales_qty: 3, returns_qty: 1, realization: 200000, for_pay: 160002, logistics: 5550 });
    expect(r.articles.find((x) => x.article === '')!.aggregates.storage).toBe(1234);
    expect(r.period_from).toBe('2026-01-06');
  });

  it('the loyalty programme per article: each article its own rows’ cashback, the articles’ sum the week’s', () => {
    const sale = (vendorCode: string, nmId: number, cb: Record<string, string>) => ({
      vendorCode,
      nmId,
      subjectName: 'Платья',
      saleDt: '2026-01-06T10:00:00+03:00',
      docTypeName: 'Продажа',
      sellerOperName: 'Продажа',
      paymentProcessing: 'Компенсация платёжных услуг',
      quantity: 1,
      retailAmount: '1000',
      retailPriceWithDisc: '1000',
      forPay: '800',
      vw: '150',
      vwNds: '30',
      acquiringFee: '20',
      commissionPercent: 20,
      ...cb,
    });
    const rows = [
      sale('A', 1, { cashbackAmount: '12.34', cashbackDiscount: '50.00', cashbackCommissionChange: '1.11' }),
      sale('A', 1, { cashbackAmount: '0.66', cashbackDiscount: '0', cashbackCommissionChange: '0.89' }),
      sale('B', 2, { cashbackAmount: '7.5', cashbackDiscount: '25.25', cashbackCommissionChange: '0' }),
      sale('C', 3, {}),
    ];
    const r = aggregateApiRows([rows]);
    const of = (a: string) => r.articles.find((x) => x.article === a)!.aggregates;
    // loyalty = −(cashbackAmount + cashbackCommissionChange) of the article's rows; loyalty_discount = Σ cashbackDiscount.
    expect(of('A')).toMatchObject({ loyalty: -(1234 + 111 + 66 + 89), loyalty_discount: 5000 });
    expect(of('B')).toMatchObject({ loyalty: -750, loyalty_discount: 2525 });
    expect(of('C')).toMatchObject({ loyalty: 0, loyalty_discount: 0 });
    // The articles' sum is WB's week figure (the list's cashback*Sum of the same rows).
    const sums = reportSumsFromRows(rows.map((x) => detailedRowSchema.parse(x)));
    const total = (k: 'loyalty' | 'loyalty_discount') =>
      r.articles.reduce((n, a) => n + Number(a.aggregates[k] ?? 0), 0);
    expect(total('loyalty')).toBe(-sums.cashbackAmountSum - sums.cashbackCommissionChangeSum);
    expect(total('loyalty_discount')).toBe(sums.cashbackDiscountSum);
    // Each article's payout carries its own withholding (a payout line), its profit too.
    const built = buildItems(
      { articles: r.articles },
      { tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 }, costPrices: {} },
    );
    const item = (a: string) => built.items.find((i) => i.article === a)!.effective;
    for (const [a, loyalty] of [
      ['A', -(1234 + 111 + 66 + 89)],
      ['B', -750],
      ['C', 0],
    ] as const)
      expect(Number(item(a).payout) - Number(item(a).for_pay), a).toBe(loyalty);
  });
});

describe('portal row → WB API row', () => {
  const meta = { reportId: 77, dateFrom: '2026-01-05', dateTo: '2026-01-11', createDate: '2026-01-12' };

  it('sets every field of the spec, from its column or at its zero value', () => {
    const cells = new Map<string, string | number>();
    for (const field of DETAILED_ROW_FIELD_NAMES) {
      const [type, key] = DETAILED_ROW_FIELDS[field];
      if (key === null) continue;
      cells.set(
        key,
        type === 'money'
          ? 12.5
          : type === 'int'
            ? '42'
            : type === 'number'
              ? '7,5'
              : type === 'bool'
                ? 'Да'
                : `${key}!`,
      );
    }
    cells.set('sale_dt', '2026-01-07');
    cells.set('order_dt', '2026-01-03T11:22:33');
    cells.set('fix_tariff_date_from', '');
    cells.set('fix_tariff_date_to', '2026-02-01');
    const row = portalRowToApiRow(cells, meta, 5);
    expect(Object.keys(row).sort()).toEqual([...DETAILED_ROW_FIELD_NAMES].sort());
    expect(detailedRowSchema.parse(row)).toEqual(row);
    for (const field of DETAILED_ROW_FIELD_NAMES) {
      const [type, key] = DETAILED_ROW_FIELDS[field];
      if (key === null || ['saleDt', 'orderDt', 'fixTariffDateFrom', 'fixTariffDateTo'].includes(field)) continue;
      const expected: Record<string, unknown> = { money: '12.50', int: 42, number: 7.5, bool: true, string: `${key}!` };
      expect(row[field as DetailedRowField], field).toEqual(expected[type]);
    }
    expect(row).toMatchObject({
      reportId: 77,
      // The file's «№» is WB's row id; the caller's number only stands in without one.
      rrdId: 42,
      dateFrom: '2026-01-05',
      currency: 'RUB',
      reportType: 1,
      saleDt: '2026-01-07T00:00:00Z',
      orderDt: '2026-01-03T11:22:33Z',
      fixTariffDateFrom: '',
      fixTariffDateTo: '2026-02-01',
      rrDate: '2026-01-07',
    });
  });

  it('a column the file lacks gets the zero value of its type', () => {
    const row = portalRowToApiRow(new Map([['sa_name', 'X']]), meta, 1);
    expect(row).toMatchObject({
      rrdId: 1,
      vendorCode: 'X',
      forPay: '0.00',
      quantity: 0,
      commissionPercent: 0,
      srvDbs: false,
      kiz: '',
    });
  });
});
