import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateReport } from '../../scripts/fixtures/generate';
import { ALLOCATED_FIELDS, allocateUnassigned, largestRemainder } from './allocation';
import { applyManualValue, buildItems } from './build';
import { FIELDS } from './fields';
import { readReport } from './read-report';
import { computeTotals } from './totals';
import type { AggregateValues, AllocationMethod, ComputedItem, ParsedReport, ReportSettings } from './types';

const FIXTURE = join(__dirname, '../../fixtures/wb-detail-2022-49col.xlsx');
const METHODS: AllocationMethod[] = ['realization', 'quantity', 'none'];
const tax = { tax_system: 'usn_income_expenses', usn_rate: 15, vat_rate: 0 } as const;

const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);

/** Every summed total equal between two builds (ratios follow from them). */
function expectSameTotals(a: ComputedItem[], b: ComputedItem[]) {
  const ta = computeTotals(a.map((i) => i.effective));
  const tb = computeTotals(b.map((i) => i.effective));
  for (const d of FIELDS) {
    if (d.name === 'allocated_expenses') continue;
    expect([d.name, tb[d.name]]).toEqual([d.name, ta[d.name]]);
  }
  expect(tb.allocated_expenses).toBe(0);
}

/** The allocation rules on one build: Σ = 0, the no-article item gets minus the spread, profit moves by the share. */
function expectAllocation(parsed: Pick<ParsedReport, 'articles'>, settings: ReportSettings, method: AllocationMethod) {
  const none = buildItems(parsed, { ...settings, allocation: 'none' });
  const built = buildItems(parsed, { ...settings, allocation: method });
  const shares = built.items.map((i) => i.computed.allocated_expenses ?? 0);
  expect(sum(shares)).toBe(0);
  expectSameTotals(none.items, built.items);
  const unassigned = built.items.find((i) => i.article === '');
  const spread = sum(ALLOCATED_FIELDS.map((f) => built.allocation.spread[f]));
  expect(built.allocation.total).toBe(spread);
  if (unassigned) expect(unassigned.computed.allocated_expenses).toBe(method === 'none' ? 0 : -spread);
  built.items.forEach((it, i) => {
    // Profit includes the share; the tax base does not move.
    expect(it.computed.profit).toBe((none.items[i]!.computed.profit ?? 0) - (it.computed.allocated_expenses ?? 0));
    expect(it.computed.usn).toBe(none.items[i]!.computed.usn);
    expect(Number.isInteger(it.computed.allocated_expenses)).toBe(true);
    const base = method === 'quantity' ? it.computed.net_qty : it.computed.realization;
    if (it.article !== '' && (method === 'none' || (base ?? 0) <= 0)) expect(it.computed.allocated_expenses).toBe(0);
  });
  return built;
}

describe('largestRemainder', () => {
  it('splits exactly, the leftover kopecks to the largest remainders', () => {
    // 100 over 1:1:1 → 33.33 each → 33, 33, 33 and one kopeck left: to the first (ties by weight, then order).
    expect(largestRemainder(100, [1, 1, 1])).toEqual([34, 33, 33]);
    // 10 over 1:2:3 → 1.67, 3.33, 5 → floors 1, 3, 5; one left to the largest remainder (0.67)
    expect(largestRemainder(10, [1, 2, 3])).toEqual([2, 3, 5]);
    expect(largestRemainder(-10, [1, 2, 3])).toEqual([-2, -3, -5]);
    expect(largestRemainder(0, [5, 7])).toEqual([0, 0]);
  });

  it('stays exact where a float product would not (10^10 kopecks × 10^10 weights)', () => {
    const shares = largestRemainder(9_999_999_999, [3_333_333_333_3, 1, 6_666_666_666_7]);
    expect(sum(shares)).toBe(9_999_999_999);
    expect(shares[1]).toBe(0);
  });

  it('refuses weights without a positive sum', () => {
    expect(() => largestRemainder(10, [0, 0])).toThrow();
  });
});

describe('allocateUnassigned on hand-worked numbers', () => {
  const values = (realization: number, net: number, extra: Partial<Record<string, number>> = {}) =>
    ({
      realization,
      net_qty: net,
      storage: 0,
      acceptance: 0,
      deductions: 0,
      penalties: 0,
      ads: 0,
      loans: 0,
      ...extra,
    }) as never;
  const items = [
    { article: 'A', computed: values(300_00, 1) },
    { article: 'B', computed: values(100_00, 3) },
    { article: 'R', computed: values(-50_00, -1) },
    { article: '', computed: values(0, 0, { storage: 1_001, deductions: -3, penalties: 500, loans: 99_999 }) },
  ];

  it('realization: storage 10.01 ₽ → 7.51 / 2.50 (largest remainder), the returns-only article gets nothing', () => {
    const { allocated, summary } = allocateUnassigned(items, 'realization');
    // storage 1001 · 3/4 = 750.75 → 750, 250.25 → 250, one kopeck to A (0.75): 751 / 250
    // deductions −3 · 3/4 = −2.25, −0.75 → −2, 0 (floors of |x|), one to B (0.75): −2 / −1
    // penalties 500 → 375 / 125; loans are never spread
    expect(allocated).toEqual([751 - 2 + 375, 250 - 1 + 125, 0, -(1_001 - 3 + 500)]);
    expect(summary).toEqual({
      method: 'realization',
      spread: { storage: 1_001, acceptance: 0, deductions: -3, penalties: 500, ads: 0 },
      total: 1_498,
      articles: 2,
    });
  });

  it('quantity: by net units sold (1 : 3)', () => {
    const { allocated } = allocateUnassigned(items, 'quantity');
    // storage 250.25 / 750.75 → 250 / 751; deductions −0.75 / −2.25 → −1 / −2; penalties 125 / 375
    expect(allocated).toEqual([250 - 1 + 125, 751 - 2 + 375, 0, -1_498]);
  });

  it('none, nothing to spread, or no base: nothing moves and the summary says why', () => {
    expect(allocateUnassigned(items, 'none').allocated).toEqual([0, 0, 0, 0]);
    expect(allocateUnassigned(items.slice(0, 3), 'realization').summary.reason).toBe('nothing_to_spread');
    expect(allocateUnassigned([items[2]!, items[3]!], 'realization').summary).toMatchObject({
      reason: 'no_base',
      total: 0,
    });
  });
});

describe('allocation on the real 2022 report', () => {
  let parsed: ParsedReport;
  beforeAll(async () => {
    parsed = await readReport({ path: FIXTURE });
  });

  for (const method of METHODS)
    it(`${method}: the file has no «Без артикула» costs — nothing moves, totals unchanged`, () => {
      const built = expectAllocation(parsed, { tax, costPrices: {} }, method);
      expect(built.items.every((i) => i.computed.allocated_expenses === 0)).toBe(true);
      if (method !== 'none') expect(built.allocation.reason).toBe('nothing_to_spread');
    });

  for (const method of METHODS)
    it(`${method}: with account-level storage, acceptance, deductions, penalties and ads added — Σ = 0, totals to the kopeck`, () => {
      const zero = Object.fromEntries(
        Object.keys(parsed.articles[0]!.aggregates).map((k) => [k, 0]),
      ) as AggregateValues;
      const withUnassigned = {
        articles: [
          ...parsed.articles,
          {
            article: '',
            category: '',
            nm_id: '',
            brand: '',
            aggregates: {
              ...zero,
              storage: 1_234_567,
              acceptance: 10_001,
              deductions: 333_333,
              penalties: 7,
              ads: 98_765,
              loans: 500_000,
            },
          },
        ],
      };
      const built = expectAllocation(withUnassigned, { tax, costPrices: {} }, method);
      if (method === 'none') return;
      expect(built.allocation.total).toBe(1_234_567 + 10_001 + 333_333 + 7 + 98_765);
      const receivers = built.items.filter((i) => i.article !== '' && (i.computed.allocated_expenses ?? 0) !== 0);
      expect(receivers.length).toBe(built.allocation.articles);
      // The biggest seller by the base carries the biggest share.
      const key = method === 'quantity' ? 'net_qty' : 'realization';
      const top = [...built.items].sort((a, b) => (b.computed[key] ?? 0) - (a.computed[key] ?? 0))[0]!;
      expect(Math.max(...built.items.map((i) => i.computed.allocated_expenses ?? 0))).toBe(
        top.computed.allocated_expenses,
      );
    });
});

describe('allocation on generated reports with storage and deductions', () => {
  for (const [seed, layout] of [
    [5, '2026'],
    [6, '2025'],
    [7, '2022'],
  ] as const)
    for (const method of METHODS)
      it(`${layout} layout, seed ${seed}, ${method}`, async () => {
        const g = generateReport({ rows: 2_000, layout, format: 'xlsx', seed });
        const parsed = await readReport({ buffer: g.file, filename: g.filename });
        const unassigned = g.expected.articles.find((a) => a.article === '');
        expect(unassigned, 'the generator books account-level costs').toBeDefined();
        const built = expectAllocation(parsed, { tax, costPrices: { [parsed.articles[1]!.article]: 12_345 } }, method);
        if (method !== 'none') {
          expect(built.allocation.spread).toEqual({
            storage: unassigned!.aggregates.storage,
            acceptance: unassigned!.aggregates.acceptance,
            deductions: unassigned!.aggregates.deductions,
            penalties: unassigned!.aggregates.penalties,
            ads: unassigned!.aggregates.ads,
          });
          expect(built.allocation.total).toBeGreaterThan(0);
        }
      });

  it('a correction keeps the item’s share (profit, margin follow it)', async () => {
    const g = generateReport({ rows: 1_000, layout: '2026', format: 'xlsx', seed: 8 });
    const parsed = await readReport({ buffer: g.file, filename: g.filename });
    const built = buildItems(parsed, { tax, costPrices: {}, allocation: 'realization' });
    const item = built.items.find((i) => (i.computed.allocated_expenses ?? 0) > 0)!;
    const next = applyManualValue(item, 'logistics', 0, tax);
    expect(next.effective.allocated_expenses).toBe(item.computed.allocated_expenses);
    expect(next.effective.profit).toBe(
      (next.effective.income ?? 0) -
        (next.effective.vat ?? 0) -
        (next.effective.usn ?? 0) -
        (next.effective.expenses ?? 0) -
        (item.computed.allocated_expenses ?? 0) +
        (next.effective.additional_payments ?? 0),
    );
  });
});
