/**
 * Combining reports (docs/METRICS.md, Combining reports): items of 2+ reports merged by article. Additive fields
 * are summed from the sources' EFFECTIVE values, so corrections carry over; ratios are recomputed on the sums.
 */
import { drrOf, marginOf, roasOf, roiOf } from './derive';
import { FIELDS } from './fields';
import { mulDivRound } from './money';
import { weightedCommissionPercent } from './totals';
import type { ComputedItem, ItemValues } from './types';

/** Fields recomputed on the sums rather than summed (fields.ts: combine = 'recompute'). */
const SUMMED = FIELDS.filter((d) => d.combine === 'sum').map((d) => d.name);

export function combineItems(sources: ReadonlyArray<ReadonlyArray<ComputedItem>>): ComputedItem[] {
  const groups = new Map<string, ComputedItem[]>();
  for (const items of sources) {
    for (const it of items) {
      const g = groups.get(it.article);
      if (g) g.push(it);
      else groups.set(it.article, [it]);
    }
  }
  const out: ComputedItem[] = [];
  for (const [article, group] of groups) {
    const v = {} as ItemValues;
    for (const name of SUMMED) {
      let sum = 0;
      for (const it of group) sum += it.effective[name] ?? 0;
      v[name] = sum;
    }
    const salesQty = v.sales_qty ?? 0;
    const netQty = salesQty - (v.returns_qty ?? 0);
    const realization = v.realization ?? 0;
    const profit = v.profit ?? 0;
    const costTotal = v.cost_total ?? 0;
    v.net_qty = netQty;
    v.avg_seller_price = salesQty > 0 ? mulDivRound(v.sales_seller_price ?? 0, 1, salesQty) : null;
    v.category_commission_percent = weightedCommissionPercent(group.map((it) => it.effective));
    v.margin = marginOf(profit, realization, costTotal > 0);
    v.roi = roiOf(profit, costTotal, v.own_costs ?? 0);
    v.own_cost_price = netQty !== 0 ? mulDivRound(v.own_costs ?? 0, 1, netQty) : null;
    v.cost_price = netQty !== 0 ? mulDivRound(costTotal, 1, netQty) : null;
    v.drr = drrOf(v.ads ?? 0, realization);
    v.roas = roasOf(v.ad_revenue ?? 0, v.ads ?? 0);
    const values = orderLike(v);
    out.push({
      article,
      category: firstNonEmpty(group, 'category'),
      nm_id: firstNonEmpty(group, 'nm_id'),
      brand: firstNonEmpty(group, 'brand'),
      computed: values,
      manual_values: {},
      effective: { ...values },
    });
  }
  return out;
}

function orderLike(v: ItemValues): ItemValues {
  const o = {} as ItemValues;
  for (const d of FIELDS) o[d.name] = v[d.name];
  return o;
}

function firstNonEmpty(group: ComputedItem[], key: 'category' | 'nm_id' | 'brand'): string {
  for (const it of group) if (it[key] !== '') return it[key];
  return '';
}

export interface Period {
  period_from: string | null;
  period_to: string | null;
}

/** The union of the sources' periods (YYYY-MM-DD strings compare as dates). */
export function combinePeriods(periods: ReadonlyArray<Period>): Period {
  let from: string | null = null;
  let to: string | null = null;
  for (const p of periods) {
    if (p.period_from !== null && (from === null || p.period_from < from)) from = p.period_from;
    if (p.period_to !== null && (to === null || p.period_to > to)) to = p.period_to;
  }
  return { period_from: from, period_to: to };
}

/** The sources' seller when they all share one, else null. */
export function combineSellers(sellers: ReadonlyArray<string | null>): string | null {
  if (sellers.length === 0) return null;
  const first = sellers[0]!;
  return sellers.every((s) => s === first) ? first : null;
}
