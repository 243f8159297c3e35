// The filtered totals row is built as the server builds the report's totals: integer kopecks through the
// engine's computeTotals, roubles once at the end. Float roubles gave a different total on some rows.
import { describe, expect, it } from 'vitest';
import { FIELDS, kopecksToRoubles } from '../../../shared/engine/fields';
import { computeTotals } from '../../../shared/engine/totals';
import type { Item, Values } from '../api/contract';
import { totalsOf } from './items-table';

type Kopecks = Partial<Record<string, number | null>>;

/** An item as the server stores it (kopecks) and as the API sends it (roubles). */
function pair(id: string, k: Kopecks): { stored: Record<string, number | null>; api: Item } {
  const stored: Record<string, number | null> = {};
  const effective: Values = {};
  for (const def of FIELDS) {
    const v = k[def.name] ?? (def.unit === 'percent' ? null : 0);
    stored[def.name] = v;
    effective[def.name] = v === null ? null : def.unit === 'money' ? kopecksToRoubles(v) : v;
  }
  return {
    stored,
    api: {
      item_id: id,
      article: id,
      category: 'Платья',
      nm_id: id,
      brand: '',
      computed: effective,
      manual_values: {},
      effective,
      null_reasons: {},
    },
  };
}

/** The server's totals of these items, in API units (what GET /api/reports/{id} answers as `totals`). */
function serverTotals(stored: Array<Record<string, number | null>>): Values {
  const t = computeTotals(stored as unknown as Parameters<typeof computeTotals>[0]);
  const out: Values = {};
  for (const def of FIELDS) {
    const v = t[def.name];
    out[def.name] = v === null ? null : def.unit === 'money' ? kopecksToRoubles(v) : v;
  }
  return out;
}

/** The page's former arithmetic: float roubles summed, ratios from the float sums (kept here as the witness). */
const r2 = (v: number) => Math.round(v * 100) / 100;
function floatTotals(items: Item[], f: string): number {
  let s = 0;
  for (const it of items) s += it.effective[f] ?? 0;
  return r2(s);
}

describe('totalsOf (the filtered totals row)', () => {
  it('equals the server totals where float roubles did not: margin 1,005 % and an average price of 0,565 ₽', () => {
    const rows = [
      pair('A-1', {
        realization: 60_000,
        profit: 603,
        sales_qty: 1,
        sales_seller_price: 57,
        category_commission_percent: 20,
      }),
      pair('B-2', {
        realization: 40_000,
        profit: 402,
        sales_qty: 1,
        sales_seller_price: 56,
        category_commission_percent: 25,
      }),
    ];
    const items = rows.map((r) => r.api);
    const server = serverTotals(rows.map((r) => r.stored));

    // The float way: 10.05 / 1000 · 100 is 1.0049999… and 1.13 / 2 is 0.56499…, both rounded down.
    const floatMargin = r2((floatTotals(items, 'profit') / floatTotals(items, 'realization')) * 100);
    const floatAvg = r2(floatTotals(items, 'sales_seller_price') / floatTotals(items, 'sales_qty'));
    expect(floatMargin).toBe(1);
    expect(floatAvg).toBe(0.56);
    expect(server.margin).toBe(1.01);
    expect(server.avg_seller_price).toBe(0.57);

    const t = totalsOf(items);
    expect(t).toEqual(server);
    expect(t.margin).toBe(1.01);
    expect(t.avg_seller_price).toBe(0.57);
    expect(t.realization).toBe(1000);
    expect(t.profit).toBe(10.05);
  });

  it('equals the server totals on a thousand rows', () => {
    const rows = Array.from({ length: 1000 }, (_, i) =>
      pair(`n-${i}`, { for_pay: 10 + (i % 7), logistics: 20 + (i % 3), payout: -10 - (i % 11), realization: 30 }),
    );
    const t = totalsOf(rows.map((r) => r.api));
    const server = serverTotals(rows.map((r) => r.stored));
    expect(t).toEqual(server);
  });
});
