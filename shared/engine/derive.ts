/**
 * Derived values per item (docs/METRICS.md, Derived values per item), computed in the table's order from the
 * EFFECTIVE inputs: a manual value where one is set, else the computed one. A manual value on a derived
 * field (cost_price, own_cost_price, vat, usn, profit, margin) wins and every later field uses it.
 */
import { AGGREGATE_FIELDS } from './fields';
import { mulDivRound, rateHundredths, roundHalfAway } from './money';
import { EXPENSE_LINES, PAYOUT_LINES, sumLines } from './payout';
import type { AggregateValues, ItemValues, ManualValues, TaxProfile } from './types';

/** Percent p/q·100 to 2 decimals, exact on integer kopecks. */
export function percentOf(part: number, whole: number): number {
  return mulDivRound(part, 10000, whole) / 100 + 0;
}

/** ДРР (docs/METRICS.md): ads ÷ realization · 100; null when realization ≤ 0. */
export function drrOf(ads: number, realization: number): number | null {
  return realization > 0 ? percentOf(ads, realization) : null;
}

/** ROAS (docs/METRICS.md): orders put down to the ads ÷ ads · 100; null without positive ad spend or without such orders. */
export function roasOf(adRevenue: number, ads: number): number | null {
  return ads > 0 && adRevenue !== 0 ? percentOf(adRevenue, ads) : null;
}

/** The minimum tax of USN «доходы минус расходы»: 1 % of income (Tax Code art. 346.18 p. 6), an annual amount. */
export const USN_MIN_TAX_RATE = 1;

/**
 * Σ income tax base → USN per the tax profile (docs/METRICS.md: usn). «Доходы минус расходы»:
 * max(rate × (income − expenses), 1 % × income) — the minimum tax is annual, so on a week it is an
 * estimate (usnMinimumApplies tells when it decided the value).
 */
function computeUsn(tax: TaxProfile, incomeLessVat: number, expenses: number): number {
  const rate = rateHundredths(tax.usn_rate);
  switch (tax.tax_system) {
    case 'usn_income':
      return mulDivRound(incomeLessVat, rate, 10000);
    case 'usn_income_expenses':
      return Math.max(
        mulDivRound(Math.max(0, incomeLessVat - expenses), rate, 10000),
        mulDivRound(Math.max(0, incomeLessVat), rateHundredths(USN_MIN_TAX_RATE), 10000),
      );
    default:
      return 0;
  }
}

/** True when the item's computed USN is the minimum tax (1 % of income) rather than rate × (income − expenses). */
export function usnMinimumApplies(tax: TaxProfile, v: Pick<ItemValues, 'income' | 'vat' | 'expenses'>): boolean {
  if (tax.tax_system !== 'usn_income_expenses') return false;
  const base = (v.income ?? 0) - (v.vat ?? 0);
  const regular = mulDivRound(Math.max(0, base - (v.expenses ?? 0)), rateHundredths(tax.usn_rate), 10000);
  const minimum = mulDivRound(Math.max(0, base), rateHundredths(USN_MIN_TAX_RATE), 10000);
  return minimum > regular;
}

/**
 * ROI: profit on what the units cost the seller, the cost price and the own per-unit costs. Null without
 * a cost price (cost_total ≤ 0): on the own costs alone (packaging) it would read thousands of percent.
 */
export function roiOf(profit: number, costTotal: number, ownCosts: number): number | null {
  return costTotal > 0 ? percentOf(profit, costTotal + ownCosts) : null;
}

/**
 * Margin: profit on the realization. Null without positive realization, and null without a cost price
 * (`hasCostPrice` false): the profit of an article whose units cost nothing in the catalog is overstated
 * by the whole cost, so its margin would read far too high (docs/METRICS.md, margin).
 */
export function marginOf(profit: number, realization: number, hasCostPrice: boolean): number | null {
  return realization > 0 && hasCostPrice ? percentOf(profit, realization) : null;
}

export function deriveValues(
  aggregates: AggregateValues,
  costPrice: number,
  tax: TaxProfile,
  manual: ManualValues,
  /** The item's share of the «Без артикула» costs (allocation.ts), kopecks; 0 when nothing is spread. */
  allocated = 0,
  /** The seller's own costs per unit (own-costs.ts), kopecks; 0 without any. */
  ownCostPrice = 0,
  /** Orders WB's promotion API puts down to the item's ads (attribution.ts), kopecks; 0 without it. */
  adRevenue = 0,
): ItemValues {
  const v = {} as ItemValues;
  for (const def of AGGREGATE_FIELDS) {
    const m = manual[def.name];
    v[def.name] = m !== undefined && m !== null ? m : aggregates[def.name];
  }
  const a = v as AggregateValues;
  // The platform discount is the gap between the seller's price and the realization: it follows a corrected price or realization.
  if (manual.seller_price !== undefined || manual.realization !== undefined) {
    v.wb_discount = a.seller_price - a.realization;
  }

  const pick = (name: keyof ManualValues, computed: () => number | null): number | null => {
    const m = manual[name];
    return m !== undefined && m !== null ? m : computed();
  };

  const cost = pick('cost_price', () => costPrice) ?? 0;
  v.cost_price = cost;
  const netQty = a.sales_qty - a.returns_qty;
  v.net_qty = netQty;
  // A zero (or, after a correction, negative) number of sales has no average price.
  v.avg_seller_price = a.sales_qty > 0 ? mulDivRound(a.sales_seller_price, 1, a.sales_qty) : null;
  const income = a.realization + a.compensations;
  v.income = income;
  const vatRate = tax.vat_rate;
  const vat =
    pick('vat', () =>
      vatRate > 0 ? mulDivRound(income, rateHundredths(vatRate), 10000 + rateHundredths(vatRate)) : 0,
    ) ?? 0;
  v.vat = vat;
  const costTotal = roundHalfAway(cost * netQty);
  v.cost_total = costTotal;
  // The seller's own per-unit costs enter expenses and profit as the cost price does, never the payout.
  const ownUnit = pick('own_cost_price', () => ownCostPrice) ?? 0;
  v.own_cost_price = ownUnit;
  const ownTotal = roundHalfAway(ownUnit * netQty);
  v.own_costs = ownTotal;
  const expenses = sumLines(EXPENSE_LINES, v);
  v.expenses = expenses;
  v.allocated_expenses = allocated;
  // The tax base stays the item's own (an allocation is management accounting, and the sum of USN is unchanged).
  const usn = pick('usn', () => computeUsn(tax, income - vat, expenses)) ?? 0;
  v.usn = usn;
  const profit = pick('profit', () => income - vat - usn - expenses - allocated + a.additional_payments) ?? 0;
  v.profit = profit;
  v.margin = pick('margin', () => marginOf(profit, a.realization, cost > 0));
  v.roi = roiOf(profit, costTotal, ownTotal);
  v.payout = sumLines(PAYOUT_LINES, v);
  v.ad_revenue = adRevenue;
  v.drr = drrOf(a.ads, a.realization);
  v.roas = roasOf(adRevenue, a.ads);
  return v;
}
