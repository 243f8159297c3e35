/**
 * A small hand-built report for the export tests: two ordinary articles (one with a manual correction),
 * an article that looks like a formula, and the "" article that carries account-level costs.
 * Derived values follow docs/METRICS.md (usn_income 6 %, no VAT) so the numbers are a consistent report, not
 * noise: payout reconciles, totals are sums, margin comes from the totals.
 */
import { FIELDS, type FieldName } from '../../shared/engine/fields';
import type {
  AggregateValues,
  CategoryCommission,
  ComputedItem,
  ItemValues,
  ManualValues,
  TaxProfile,
} from '../../shared/engine/types';
import type { ExportReport } from '../../shared/workbooks/types';

const SAMPLE_TAX: TaxProfile = { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 };

const ZERO_AGGREGATES: AggregateValues = {
  sales_qty: 0,
  returns_qty: 0,
  seller_price: 0,
  sales_seller_price: 0,
  wb_discount: 0,
  realization: 0,
  commission: 0,
  acquiring: 0,
  acquiring_billed: 0,
  attorney_services: 0,
  for_pay: 0,
  compensations: 0,
  additional_payments: 0,
  loyalty: 0,
  loyalty_discount: 0,
  logistics: 0,
  reverse_logistics: 0,
  rebill_logistics: 0,
  storage: 0,
  acceptance: 0,
  penalties: 0,
  deductions: 0,
  ads: 0,
  loans: 0,
  category_commission_percent: 0,
};

const round = (x: number) => Math.sign(x) * Math.round(Math.abs(x));
const round2 = (x: number) => Math.round(x * 100) / 100;

/** docs/METRICS.md "Derived values per item" over effective inputs (a manual value wins, later fields use it). */
function deriveValues(agg: AggregateValues, costPrice: number, tax: TaxProfile, manual: ManualValues = {}): ItemValues {
  const v = { ...agg, cost_price: costPrice } as ItemValues;
  const take = (f: FieldName, computed: number | null): number | null => {
    const m = manual[f];
    return m !== undefined ? m : computed;
  };
  for (const k of Object.keys(manual) as FieldName[]) if (k in v) v[k] = manual[k] as number;
  const n = (f: FieldName) => v[f] ?? 0;
  v.net_qty = n('sales_qty') - n('returns_qty');
  v.avg_seller_price = n('sales_qty') > 0 ? round(n('sales_seller_price') / n('sales_qty')) : null;
  v.income = n('realization') + n('compensations');
  v.vat = take('vat', round((n('income') * tax.vat_rate) / (100 + tax.vat_rate)));
  v.cost_total = n('cost_price') * n('net_qty');
  v.expenses =
    n('realization') -
    n('for_pay') +
    n('acquiring_billed') +
    n('logistics') +
    n('reverse_logistics') +
    n('storage') +
    n('acceptance') +
    n('penalties') +
    n('deductions') +
    n('ads') -
    n('loyalty') +
    n('cost_total');
  v.usn = take('usn', tax.tax_system === 'none' ? 0 : round(((n('income') - n('vat')) * tax.usn_rate) / 100));
  v.profit = take('profit', n('income') - n('vat') - n('usn') - n('expenses') + n('additional_payments'));
  v.margin = take('margin', n('realization') > 0 ? round2((n('profit') / n('realization')) * 100) : null);
  v.roi = n('cost_total') > 0 ? round2((n('profit') / n('cost_total')) * 100) : null;
  v.payout =
    n('for_pay') +
    n('compensations') +
    n('additional_payments') +
    n('loyalty') -
    n('logistics') -
    n('reverse_logistics') -
    n('storage') -
    n('acceptance') -
    n('penalties') -
    n('deductions') -
    n('ads') -
    n('loans');
  return v;
}

export function makeItem(
  info: { article: string; category: string; nm_id: string; brand: string },
  agg: Partial<AggregateValues>,
  costPrice: number,
  manual: ManualValues = {},
  tax: TaxProfile = SAMPLE_TAX,
): ComputedItem {
  const full = { ...ZERO_AGGREGATES, ...agg } as AggregateValues;
  return {
    ...info,
    computed: deriveValues(full, costPrice, tax),
    manual_values: manual,
    effective: deriveValues(full, costPrice, tax, manual),
  };
}

/** Report totals as the engine states them: sums, with the ratios recomputed from the sums. */
export function totalsOf(items: ComputedItem[]): ItemValues {
  const t = {} as ItemValues;
  for (const d of FIELDS) {
    const f = d.name as FieldName;
    t[f] = items.reduce((s, i) => s + (i.effective[f] ?? 0), 0);
  }
  const n = (f: FieldName) => t[f] ?? 0;
  t.avg_seller_price = n('sales_qty') > 0 ? round(n('sales_seller_price') / n('sales_qty')) : null;
  t.cost_price = n('net_qty') !== 0 ? round(n('cost_total') / n('net_qty')) : null;
  t.margin = n('realization') > 0 ? round2((n('profit') / n('realization')) * 100) : null;
  t.roi = n('cost_total') > 0 ? round2((n('profit') / n('cost_total')) * 100) : null;
  const weighted = items.reduce(
    (s, i) => s + (i.effective.category_commission_percent ?? 0) * (i.effective.realization ?? 0),
    0,
  );
  t.category_commission_percent = n('realization') !== 0 ? round2(weighted / n('realization')) : null;
  return t;
}

export const FORMULA_ARTICLE = '=HYPERLINK("x")';

export function sampleItems(): ComputedItem[] {
  return [
    makeItem(
      { article: 'ART-1', category: 'Футболки', nm_id: '11111111', brand: 'Бренд' },
      {
        sales_qty: 10,
        returns_qty: 1,
        seller_price: 1_800_000,
        sales_seller_price: 2_000_000,
        wb_discount: 250_050,
        realization: 1_549_950,
        commission: 232_493,
        acquiring: 23_249,
        attorney_services: 0,
        for_pay: 1_294_208,
        compensations: 15_000,
        additional_payments: 0,
        loyalty: -1_200,
        logistics: 50_000,
        reverse_logistics: 7_500,
        category_commission_percent: 25,
      },
      40_000,
    ),
    makeItem(
      { article: 'ART-2', category: 'Платья', nm_id: '22222222', brand: 'Бренд' },
      {
        sales_qty: 3,
        returns_qty: 0,
        seller_price: 900_000,
        sales_seller_price: 900_000,
        wb_discount: 90_000,
        realization: 810_000,
        commission: 121_500,
        acquiring: 12_150,
        for_pay: 676_350,
        logistics: 35_000,
        additional_payments: 5_000,
        category_commission_percent: 27.5,
      },
      120_000,
      // The seller corrected logistics (WB charged it twice in the file) and set a profit by hand.
      { logistics: 17_500, profit: 100_000 },
    ),
    makeItem(
      { article: FORMULA_ARTICLE, category: '+Категория', nm_id: '-33', brand: '@brand' },
      {
        sales_qty: 1,
        seller_price: 100_000,
        sales_seller_price: 100_000,
        wb_discount: 10_000,
        realization: 90_000,
        commission: 13_500,
        acquiring: 1_350,
        for_pay: 75_150,
        logistics: 5_000,
        category_commission_percent: 25,
      },
      0,
    ),
    makeItem(
      { article: '', category: '', nm_id: '', brand: '' },
      {
        storage: 12_345,
        acceptance: 3_000,
        penalties: 50_000,
        deductions: 10_000,
        ads: 70_000,
        loans: 100_000,
        rebill_logistics: 1_234,
      },
      0,
    ),
  ];
}

function sampleCommission(items: ComputedItem[]): CategoryCommission[] {
  const by = new Map<string, { realization: number; commission: number }>();
  for (const i of items) {
    const c = by.get(i.category) ?? { realization: 0, commission: 0 };
    c.realization += i.effective.realization ?? 0;
    c.commission += i.effective.commission ?? 0;
    by.set(i.category, c);
  }
  return [...by].map(([category, c]) => ({
    category,
    ...c,
    percent: c.realization !== 0 ? round2((c.commission / c.realization) * 100) : null,
  }));
}

export function sampleReport(overrides: Partial<ExportReport> = {}): ExportReport {
  const items = sampleItems();
  return {
    id: 'rep-1',
    title: 'Отчёт 123456789 за 05.12–11.12.2022',
    report_number: '123456789',
    seller: { number: '987654', name: 'ИП Иванов' },
    period_from: '2022-12-05',
    period_to: '2022-12-11',
    rows: 49,
    is_combined: false,
    created_at: '2026-11-21T10:15:00.000Z',
    tax_profile: SAMPLE_TAX,
    items,
    totals: totalsOf(items),
    commission_by_category: sampleCommission(items),
    warnings: [{ code: 'unknown_operation', message: 'Неизвестная операция «Пересчёт» (2 строки, 15,00 ₽)' }],
    ...overrides,
  };
}
