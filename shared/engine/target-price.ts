/**
 * The price for a target margin (docs/METRICS.md «Price for a target margin»): an article's per-unit
 * economics from its report, the margin at a price, and the inverse — the price that gives a margin. Pure:
 * money in roubles per unit, rates and margins in percent.
 *
 * At a price P (the realization per unit sold, after WB's discount) WB keeps its commission and acquiring as
 * shares of P, the tax takes its share of P, and the logistics, the ads and the cost price are amounts per
 * unit that do not move with P:
 *
 *   profit(P) = P · (1 − (commission + acquiring + tax) / 100) − (logistics + ads + cost)
 *   margin(P) = profit(P) / P · 100
 *   price(m)  = (logistics + ads + cost) / (1 − (commission + acquiring + tax + m) / 100)
 *
 * A margin at or above 100 − (commission + acquiring + tax) % cannot be reached at any price: null.
 *
 * Over an article's last weeks (unitEconomicsOfWeeks, docs/METRICS.md «Unit economics over weeks») storage,
 * acceptance, penalties and the rest join the amounts that do not move with P (`other_per_unit`), and WB's
 * discount turns P into the price before it (the seller's price).
 */
import { kopecksToRoubles } from './fields';
import type { ItemValues } from './types';

export interface UnitEconomics {
  /** WB's commission, % of the price. */
  commission_rate: number;
  /** Acquiring, % of the price. */
  acquiring_rate: number;
  /** Taxes (VAT and USN), % of the price. */
  tax_rate: number;
  /** Forward and reverse logistics per unit sold, roubles. */
  logistics_per_unit: number;
  /** Ads per unit sold, roubles. */
  ads_per_unit: number;
  /** Cost price and own costs per unit, roubles. */
  cost_per_unit: number;
  /**
   * Storage, acceptance, penalties and the rest per unit that do not move with the price, roubles
   * (the unit economics over weeks; 0 or absent in one report's calculator, which leaves them out).
   */
  other_per_unit?: number;
  /** WB's discount, % of the price before it (0 or absent: the price is taken as it is). */
  discount_rate?: number;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** The costs that do not move with the price, per unit. */
const fixedPerUnit = (u: UnitEconomics) =>
  u.logistics_per_unit + u.ads_per_unit + u.cost_per_unit + (u.other_per_unit ?? 0);
/** The share of the price that goes to WB and the taxes, %. */
const priceShare = (u: UnitEconomics) => u.commission_rate + u.acquiring_rate + u.tax_rate;

/** Profit per unit and margin (%) at `price` roubles; margin null at a price of 0. */
export function marginAtPrice(u: UnitEconomics, price: number): { profit: number; margin: number | null } {
  const profit = price * (1 - priceShare(u) / 100) - fixedPerUnit(u);
  return { profit: round2(profit), margin: price > 0 ? round2((profit / price) * 100) : null };
}

/** The price (roubles, to the kopeck, rounded up) that gives `margin` %; null when no price can. */
export function priceForMargin(u: UnitEconomics, margin: number): number | null {
  const rest = 1 - (priceShare(u) + margin) / 100;
  if (rest <= 0) return null;
  return Math.ceil((fixedPerUnit(u) / rest) * 100 - 1e-6) / 100;
}

/** The share of the price before WB's discount that reaches the realization (1 without a discount). */
const afterDiscountShare = (u: UnitEconomics) => 1 - (u.discount_rate ?? 0) / 100;

/** The price after WB's discount (the realization per unit) of a price before it, to the kopeck. */
export function priceAfterDiscount(u: UnitEconomics, before: number): number {
  return round2(before * afterDiscountShare(u));
}

/** The price before WB's discount that gives `after` once WB takes its discount, rounded up to the kopeck. */
export function priceBeforeDiscount(u: UnitEconomics, after: number): number {
  const share = afterDiscountShare(u);
  return share > 0 ? Math.ceil((after / share) * 100 - 1e-6) / 100 : after;
}

/**
 * An article's per-unit economics from its report's values (kopecks): the rates as shares of its
 * realization, the amounts per unit sold (net of returns). Null when it sold nothing.
 */
export function unitEconomicsOf(
  v: Pick<
    ItemValues,
    | 'realization'
    | 'net_qty'
    | 'commission'
    | 'acquiring'
    | 'logistics'
    | 'reverse_logistics'
    | 'ads'
    | 'vat'
    | 'usn'
    | 'cost_price'
    | 'own_cost_price'
  >,
): UnitEconomics | null {
  const qty = v.net_qty ?? 0;
  const realization = v.realization ?? 0;
  if (qty <= 0 || realization <= 0) return null;
  const rate = (x: number | null) => round2(((x ?? 0) / realization) * 100);
  const perUnit = (x: number) => round2(kopecksToRoubles(x) / qty);
  return {
    commission_rate: rate(v.commission),
    acquiring_rate: rate(v.acquiring),
    tax_rate: rate((v.vat ?? 0) + (v.usn ?? 0)),
    logistics_per_unit: perUnit((v.logistics ?? 0) + (v.reverse_logistics ?? 0)),
    ads_per_unit: perUnit(v.ads ?? 0),
    cost_per_unit: kopecksToRoubles((v.cost_price ?? 0) + (v.own_cost_price ?? 0)),
  };
}

/** One week's values of an article (kopecks, quantities in units): an item of one weekly report. */
export type WeekValues = Pick<
  ItemValues,
  | 'sales_qty'
  | 'returns_qty'
  | 'net_qty'
  | 'seller_price'
  | 'wb_discount'
  | 'realization'
  | 'commission'
  | 'acquiring'
  | 'logistics'
  | 'reverse_logistics'
  | 'storage'
  | 'acceptance'
  | 'penalties'
  | 'deductions'
  | 'ads'
  | 'vat'
  | 'usn'
  | 'cost_total'
  | 'own_costs'
  | 'profit'
>;

/** The per-unit lines of an article over its weeks, roubles per unit sold net (to the kopeck). */
export interface PerUnit {
  commission: number;
  acquiring: number;
  logistics: number;
  reverse_logistics: number;
  storage: number;
  acceptance: number;
  penalties: number;
  ads: number;
  vat: number;
  usn: number;
  cost_price: number;
  own_costs: number;
  other: number;
  profit: number;
}

/** An article's unit economics over several weeks (docs/METRICS.md «Unit economics over weeks»). */
export interface WeeksUnitEconomics {
  sales_qty: number;
  returns_qty: number;
  /** Units sold net of returns: the divisor of every per-unit line. */
  units: number;
  /** Returns, % of the units sold (null without a sale). */
  return_rate: number | null;
  /** Realization per unit, roubles (the price after WB's discount); null without a unit sold net. */
  price: number | null;
  /** The seller's price per unit before WB's discount; null where the rows do not give it. */
  price_before_discount: number | null;
  /** WB's discount, % of the price before it; null where the rows do not give it. */
  discount_rate: number | null;
  commission_rate: number | null;
  acquiring_rate: number | null;
  tax_rate: number | null;
  /** ДРР: ads / realization · 100. */
  drr: number | null;
  per_unit: PerUnit | null;
  margin: number | null;
  /** The formula's inputs unrounded (what-if); null without a unit sold net or a positive realization. */
  economics: UnitEconomics | null;
}

const ratio = (x: number, base: number) => (base > 0 ? x / base : null);
const pct2 = (x: number | null) => (x === null ? null : round2(x * 100));

/**
 * Sums an article's weeks and divides by the units sold net: the rates are shares of the realization,
 * the amounts per unit; `other` is what remains between those lines and the profit (attorney services,
 * acquiring billed separately, deductions, the share of the costs without an article, less compensations
 * and extra payments), so the lines add up to the reports' profit exactly.
 */
export function unitEconomicsOfWeeks(weeks: ReadonlyArray<WeekValues>): WeeksUnitEconomics {
  const sum = (k: keyof WeekValues) => weeks.reduce((s, w) => s + (w[k] ?? 0), 0);
  const salesQty = sum('sales_qty');
  const returnsQty = sum('returns_qty');
  const units = sum('net_qty');
  const realization = sum('realization');
  const sellerPrice = sum('seller_price');
  const discount = sum('wb_discount');
  const lines = {
    commission: sum('commission'),
    acquiring: sum('acquiring'),
    logistics: sum('logistics'),
    reverse_logistics: sum('reverse_logistics'),
    storage: sum('storage'),
    acceptance: sum('acceptance'),
    penalties: sum('penalties') + sum('deductions'),
    ads: sum('ads'),
    vat: sum('vat'),
    usn: sum('usn'),
    cost_price: sum('cost_total'),
    own_costs: sum('own_costs'),
  };
  const profit = sum('profit');
  const other = realization - Object.values(lines).reduce((s, x) => s + x, 0) - profit;
  const discountShare = sellerPrice > 0 && discount >= 0 && discount < sellerPrice ? discount / sellerPrice : null;
  const ok = units > 0 && realization > 0;
  const perUnit = (kopecks: number) => kopecks / 100 / units;
  const rate = (x: number) => ratio(x, realization);
  const economics: UnitEconomics | null = ok
    ? {
        commission_rate: rate(lines.commission)! * 100,
        acquiring_rate: rate(lines.acquiring)! * 100,
        tax_rate: rate(lines.vat + lines.usn)! * 100,
        logistics_per_unit: perUnit(lines.logistics + lines.reverse_logistics),
        ads_per_unit: perUnit(lines.ads),
        cost_per_unit: perUnit(lines.cost_price + lines.own_costs),
        other_per_unit: perUnit(lines.storage + lines.acceptance + lines.penalties + other),
        discount_rate: (discountShare ?? 0) * 100,
      }
    : null;
  const price = ok ? round2(perUnit(realization)) : null;
  return {
    sales_qty: salesQty,
    returns_qty: returnsQty,
    units,
    return_rate: pct2(ratio(returnsQty, salesQty)),
    price,
    price_before_discount: ok && discountShare !== null ? round2(perUnit(sellerPrice)) : null,
    discount_rate: pct2(discountShare),
    commission_rate: ok ? pct2(rate(lines.commission)) : null,
    acquiring_rate: ok ? pct2(rate(lines.acquiring)) : null,
    tax_rate: ok ? pct2(rate(lines.vat + lines.usn)) : null,
    drr: pct2(rate(lines.ads)),
    per_unit: ok
      ? {
          ...(Object.fromEntries(Object.entries(lines).map(([k, v]) => [k, round2(perUnit(v))])) as Omit<
            PerUnit,
            'other' | 'profit'
          >),
          other: round2(perUnit(other)),
          profit: round2(perUnit(profit)),
        }
      : null,
    margin: ok ? pct2(profit / realization) : null,
    economics,
  };
}
