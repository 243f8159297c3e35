/**
 * Report level (docs/METRICS.md, Report level): totals are the sums of the item values, so an export's totals row
 * equals its column sums; ratios are recomputed from the totals.
 */
import { drrOf, percentOf, roasOf, roiOf } from './derive';
import { FIELDS } from './fields';
import { mulDivRound, round2 } from './money';
import type { CategoryCommission, ComputedItem, ItemValues } from './types';

/**
 * Mean of per-item percents weighted by realization (the Размер кВВ of a set of items). Items with no
 * positive realization carry no weight: a returns-heavy week would otherwise flip the mean out of range.
 * Without any weight, the plain mean of the non-zero percents; 0 when there are none.
 */
export function weightedCommissionPercent(items: ReadonlyArray<ItemValues>): number {
  let weighted = 0;
  let weight = 0;
  let plain = 0;
  let plainCount = 0;
  for (const it of items) {
    const p = it.category_commission_percent ?? 0;
    const r = it.realization ?? 0;
    if (r > 0) {
      weighted += p * r;
      weight += r;
    }
    if (p !== 0) {
      plain += p;
      plainCount++;
    }
  }
  if (weight > 0) return round2(weighted / weight) + 0;
  return plainCount > 0 ? round2(plain / plainCount) + 0 : 0;
}

export function computeTotals(items: ReadonlyArray<ItemValues>): ItemValues {
  const t = {} as ItemValues;
  for (const def of FIELDS) {
    let sum = 0;
    for (const it of items) sum += it[def.name] ?? 0;
    t[def.name] = sum;
  }
  const salesQty = t.sales_qty ?? 0;
  const realization = t.realization ?? 0;
  const profit = t.profit ?? 0;
  const costTotal = t.cost_total ?? 0;
  const netQty = t.net_qty ?? 0;
  t.avg_seller_price = salesQty > 0 ? mulDivRound(t.sales_seller_price ?? 0, 1, salesQty) : null;
  t.margin = realization > 0 ? percentOf(profit, realization) : null;
  t.roi = roiOf(profit, costTotal, t.own_costs ?? 0);
  t.own_cost_price = netQty !== 0 ? mulDivRound(t.own_costs ?? 0, 1, netQty) : null;
  t.cost_price = netQty !== 0 ? mulDivRound(costTotal, 1, netQty) : null;
  t.category_commission_percent = weightedCommissionPercent(items);
  t.drr = drrOf(t.ads ?? 0, realization);
  t.roas = roasOf(t.ad_revenue ?? 0, t.ads ?? 0);
  return t;
}

/** Per category (of effective values): realization, commission and commission / realization · 100; biggest realization first. */
export function commissionByCategory(items: ReadonlyArray<ComputedItem>): CategoryCommission[] {
  const by = new Map<string, CategoryCommission>();
  for (const it of items) {
    let c = by.get(it.category);
    if (c === undefined) {
      c = { category: it.category, realization: 0, commission: 0, percent: null };
      by.set(it.category, c);
    }
    c.realization += it.effective.realization ?? 0;
    c.commission += it.effective.commission ?? 0;
  }
  const out = [...by.values()];
  for (const c of out) c.percent = c.realization !== 0 ? percentOf(c.commission, c.realization) : null;
  return out.sort((a, b) => b.realization - a.realization);
}
