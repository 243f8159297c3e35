/**
 * A ready weekly report of synthetic items as an upload leaves it, for the benches that need a year of
 * reports without reading a year of files (bench-analytics, bench-pnl): its week's dates and the record
 * with the engine's totals and commission by category.
 */
import { commissionByCategory, computeTotals, DEFAULT_TAX_PROFILE, type ComputedItem } from '../shared/engine';

const DAY_MS = 86_400_000;

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
