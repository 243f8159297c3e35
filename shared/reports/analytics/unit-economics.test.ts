/**
 * Which weeks an article's unit economics take (fake stores handed in): the newest N weeks that hold the
 * article, one week once — combined reports, reports still building, another seller's and a week without
 * the article left out — and the 404/422 answers.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors';
import type { StoredItem } from '../../store/items.repo';
import type { ReportHead } from '../../store/summaries.repo';
import { getUnitEconomics, parseWeeks, whatIf, type UnitEconomicsDeps } from './unit-economics';

const ART = 'ART-1';

const head = (id: string, monday: string, extra: Partial<ReportHead> = {}): ReportHead => {
  const to = new Date(Date.parse(`${monday}T00:00:00Z`) + 6 * 86_400_000).toISOString().slice(0, 10);
  return {
    id,
    title: `Неделя ${monday}`,
    status: 'ready',
    is_combined: false,
    seller_id: 'S1',
    report_number: id,
    period_from: monday,
    period_to: to,
    created_at: `${monday}T12:00:00Z`,
    version: 1,
    items_gen: 1,
    content_fingerprint: `fp-${id}`,
    ...extra,
  };
};

/** One item of `article`: 10 sold, 1 000 ₽ each after WB's discount, cost 400 ₽, profit 300 ₽ each. */
const item = (article: string, costPrice = 40_000): StoredItem => {
  const v = {
    sales_qty: 10,
    returns_qty: 0,
    net_qty: 10,
    seller_price: 1_250_000,
    wb_discount: 250_000,
    realization: 1_000_000,
    commission: 150_000,
    acquiring: 20_000,
    logistics: 50_000,
    reverse_logistics: 0,
    storage: 10_000,
    acceptance: 0,
    penalties: 0,
    deductions: 0,
    ads: 10_000,
    vat: 0,
    usn: 60_000,
    cost_price: costPrice,
    cost_total: costPrice * 10,
    own_costs: 0,
    profit: 300_000,
  } as unknown as StoredItem['effective'];
  return {
    item_id: `${article}`,
    article,
    category: '',
    nm_id: '',
    brand: '',
    computed: v,
    manual_values: {},
    effective: v,
  };
};

function deps(heads: ReportHead[], items: Record<string, StoredItem[]>): UnitEconomicsDeps & { read: string[] } {
  const read: string[] = [];
  return {
    read,
    reports: { listReportHeads: async () => heads },
    items: {
      getItemsOfGen: async (_u, id) => {
        read.push(id);
        return items[id] ?? [];
      },
    },
    sellers: { getSeller: async (_u, id) => (id === 'S1' ? ({ id } as never) : null) },
  };
}

const heads = [
  head('W1', '2026-10-05'),
  head('W2', '2026-10-12'),
  head('W3', '2026-10-19'), // without the article
  head('W4', '2026-10-26'),
  head('C', '2026-10-05', { is_combined: true, period_to: '2026-11-01' }),
  head('P', '2026-11-02', { status: 'processing' }),
  head('OTHER', '2026-11-02', { seller_id: 'S2', content_fingerprint: 'fp-other' }),
  // The same rows as W4, stored again later: the week counts once (the newer copy).
  head('W4b', '2026-10-26', { content_fingerprint: 'fp-W4', created_at: '2026-10-27T12:00:00Z' }),
];
const items: Record<string, StoredItem[]> = {
  W1: [item(ART)],
  W2: [item(ART)],
  W3: [item('ART-2')],
  W4: [item(ART)],
  W4b: [item(ART)],
  C: [item(ART)],
  OTHER: [item(ART)],
};

describe('the weeks of an article’s unit economics', () => {
  it('the newest N weeks that hold it, each once; combined, building and empty weeks left out', async () => {
    const d = deps(heads, items);
    const ue = await getUnitEconomics(d, 'u', ART, { weeks: '2', seller_id: 'S1' });
    expect(ue.weeks.map((w) => w.report_id)).toEqual(['W4b', 'W2']);
    expect(ue.units).toBe(20);
    // Read newest first, and no further than needed.
    expect(d.read).toEqual(['W4b', 'W3', 'W2']);
    expect(ue.price).toBe(1000);
    expect(ue.price_before_discount).toBe(1250);
    expect(ue.discount_rate).toBe(20);
    expect(ue.per_unit?.cost_price).toBe(400);
    expect(ue.per_unit?.profit).toBe(300);
    expect(ue.margin).toBe(30);

    const all = await getUnitEconomics(deps(heads, items), 'u', ART, {});
    expect(all.weeks_asked).toBe(4);
    // Without a seller: the other seller's week is the newest.
    expect(all.weeks.map((w) => w.report_id)).toEqual(['OTHER', 'W4b', 'W2', 'W1']);
  });

  it('404 for an article no week holds or an unknown seller; 422 without a cost price, naming it', async () => {
    const d = deps(heads, items);
    await expect(getUnitEconomics(d, 'u', 'NOPE', {})).rejects.toMatchObject({
      status: 404,
      code: 'article_not_found',
      details: { article: 'NOPE' },
    });
    await expect(getUnitEconomics(d, 'u', ART, { seller_id: 'S9' })).rejects.toMatchObject({
      code: 'seller_not_found',
    });
    const noCost = deps(heads, { ...items, W2: [item(ART, 0)] });
    const e = await getUnitEconomics(noCost, 'u', ART, { seller_id: 'S1' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AppError);
    expect(e).toMatchObject({ status: 422, code: 'cost_price_missing', details: { article: ART, report_ids: ['W2'] } });
    expect((e as AppError).message).toContain(`«${ART}»`);
  });

  it('what-if: exactly one of price and margin, each in range, else 422 naming the field', async () => {
    const d = deps(heads, items);
    for (const [input, field] of [
      [{}, 'price'],
      [{ price: 100, margin: 10 }, 'price'],
      [{ price: -1 }, 'price'],
      [{ margin: 100 }, 'margin'],
    ] as const)
      await expect(whatIf(d, 'u', ART, input)).rejects.toMatchObject({
        code: 'invalid_unit_input',
        details: { field },
      });
    const r = await whatIf(d, 'u', ART, { margin: 20, seller_id: 'S1', weeks: 2 });
    expect(r.margin).toBe(20);
    expect(r.report_ids).toEqual(['W4b', 'W2']);
    const back = await whatIf(d, 'u', ART, { price: r.price_before_discount!, seller_id: 'S1', weeks: 2 });
    // The price before WB's discount is rounded up to the kopeck, so after the discount it may land a kopeck
    // above the answer: never below the margin asked.
    expect(Math.abs(back.price! - r.price!)).toBeLessThanOrEqual(0.01);
    expect(back.margin!).toBeGreaterThanOrEqual(20);
  });

  it('weeks: 1–52, 4 when absent', () => {
    expect(parseWeeks(undefined)).toBe(4);
    expect(parseWeeks('')).toBe(4);
    expect(parseWeeks('52')).toBe(52);
    expect(parseWeeks(1)).toBe(1);
    for (const bad of ['0', '53', '4.5', 'four', 2.5, -1]) expect(() => parseWeeks(bad)).toThrow(AppError);
  });
});
