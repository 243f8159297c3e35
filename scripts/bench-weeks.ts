/**
 * A ready weekly report of synthetic items as an upload leaves it, for the benches that need a year of
 * reports without reading a year of files (bench-analytics, bench-pnl, bench-cashflow, bench-digest): a
 * week of random sales, its dates and the record with the engine's totals and commission by category.
 */
import {
  AGGREGATE_FIELDS,
  buildItems,
  commissionByCategory,
  computeTotals,
  DEFAULT_TAX_PROFILE,
  type ComputedItem,
} from '../shared/engine';

const DAY_MS = 86_400_000;

/**
 * The items of a week of random sales (seeded by `r`), built by the engine with the default tax profile:
 * each article sold `minSales` to 19 times at 500–3,500 ₽, 80 % of it realized, WB's 20 % commission and
 * 1.5 % acquiring, logistics up to 300 ₽ and storage up to 50 ₽. `nmId(i)`: the i-th article's card.
 */
export function randomWeekItems(
  r: () => number,
  names: readonly string[],
  o: { minSales?: number; nmId?: (i: number) => string } = {},
): ComputedItem[] {
  const articles = names.map((article, i) => {
    const a = Object.fromEntries(AGGREGATE_FIELDS.map((f) => [f.name, 0])) as Record<string, number>;
    const sales = (o.minSales ?? 0) + Math.floor(r() * (20 - (o.minSales ?? 0)));
    const price = 50_000 + Math.floor(r() * 300_000);
    a.sales_qty = sales;
    a.seller_price = sales * price;
    a.sales_seller_price = sales * price;
    a.realization = Math.round(sales * price * 0.8);
    a.commission = Math.round(a.realization * 0.2);
    a.acquiring = Math.round(a.realization * 0.015);
    a.for_pay = a.realization - a.commission - a.acquiring;
    a.logistics = Math.floor(r() * 30_000);
    a.storage = Math.floor(r() * 5_000);
    const nm = o.nmId ? o.nmId(i) : String(100000 + i);
    return { article, category: 'Платья', nm_id: nm, brand: 'Бренд', aggregates: a };
  });
  return buildItems({ articles: articles as never }, { tax: DEFAULT_TAX_PROFILE, costPrices: {} }).items;
}

/** Week `w` after the Monday `monday0` (ms): its first and last day, YYYY-MM-DD. */
export function weekDates(monday0: number, w: number): { from: string; to: string } {
  const day = (d: number) => new Date(monday0 + (w * 7 + d) * DAY_MS).toISOString().slice(0, 10);
  return { from: day(0), to: day(6) };
}

/** The stored record (status aside) of a week's report of `items`, built with the default tax profile. */
export function weekReportRecord(o: {
  id: string;
  userId: string;
  sellerId: string;
  reportNumber: string;
  from: string;
  to: string;
  rows: number;
  items: ComputedItem[];
}) {
  return {
    id: o.id,
    user_id: o.userId,
    title: `Неделя ${o.from}`,
    report_number: o.reportNumber,
    seller_id: o.sellerId,
    period_from: o.from,
    period_to: o.to,
    rows: o.rows,
    format: 'xlsx' as const,
    is_combined: false,
    source_path: null,
    source_name: null,
    source_size: null,
    created_at: new Date().toISOString(),
    tax_profile: DEFAULT_TAX_PROFILE,
    totals: computeTotals(o.items.map((i) => i.effective)),
    commission_by_category: commissionByCategory(o.items),
    warnings: [],
    item_count: o.items.length,
  };
}
