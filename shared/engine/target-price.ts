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
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** The costs that do not move with the price, per unit. */
const fixedPerUnit = (u: UnitEconomics) => u.logistics_per_unit + u.ads_per_unit + u.cost_per_unit;
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
