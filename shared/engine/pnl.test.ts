import { describe, expect, it } from 'vitest';
import {
  computePnl,
  costInMonth,
  daysByMonth,
  monthsOf,
  PNL_LINE_ORDER,
  PNL_LINES,
  reportLines,
  splitByWeights,
  type PeriodCost,
  type PnlReport,
} from './pnl';

/**
 * Totals of a report that obey the engine's identities (profit = the signed lines); the rebill is for
 * reference, acquiring billed separately an expense.
 */
function totals(k: number, extra: Record<string, number> = {}): Record<string, number> {
  const t: Record<string, number> = {
    realization: 100_000 * k,
    sales_seller_price: 130_000 * k,
    seller_price: 120_000 * k,
    compensations: 1_000 * k,
    additional_payments: 500 * k,
    for_pay: 80_000 * k,
    acquiring: 1_500 * k,
    acquiring_billed: 200 * k,
    logistics: 7_000 * k,
    reverse_logistics: 1_000 * k,
    rebill_logistics: 300 * k,
    storage: 2_000 * k,
    acceptance: 400 * k,
    ads: 5_000 * k,
    penalties: 600 * k,
    deductions: 700 * k,
    loyalty: 250 * k,
    cost_total: 30_000 * k,
    vat: 0,
    usn: 6_090 * k,
    ...extra,
  };
  const expenses =
    t.realization! -
    t.for_pay! +
    t.acquiring_billed! +
    t.logistics! +
    t.reverse_logistics! +
    t.storage! +
    t.acceptance! +
    t.penalties! +
    t.deductions! +
    t.ads! -
    t.loyalty! +
    t.cost_total! +
    (t.own_costs ?? 0);
  t.income = t.realization! + t.compensations!;
  t.expenses = expenses;
  t.profit ??= t.income - t.vat! - t.usn! - expenses + t.additional_payments!;
  return t;
}

function report(id: string, from: string, to: string, t: Record<string, number>, extra: Partial<PnlReport> = {}) {
  return {
    id,
    title: `Отчёт ${id}`,
    status: 'ready',
    is_combined: false,
    seller_id: 'S',
    period_from: from,
    period_to: to,
    created_at: `2026-01-01T00:00:0${id.length}Z`,
    identity: `id:${id}`,
    stale: false,
    totals: t,
    ...extra,
  } satisfies PnlReport;
}

describe('the lines', () => {
  it('commission and attorney services: one name each, as on the report', () => {
    const lines = reportLines(totals(1, { attorney_services: 700 }));
    expect(lines.commission).toBe(100_000 - 80_000 - 1_500 - 700);
    expect(lines.attorney_services).toBe(700);
    const title = (k: string) => PNL_LINES.find((l) => l.key === k)?.title;
    expect([title('commission'), title('attorney_services')]).toEqual(['Комиссия WB', 'Услуги поверенного']);
    expect(lines.adjustments).toBe(0);
  });

  it('add up to the report profit, nothing in adjustments', () => {
    const t = totals(1);
    const lines = reportLines(t);
    expect(lines.adjustments).toBe(0);
    let signed = 0;
    for (const l of PNL_LINES) signed += l.sign * lines[l.key]!;
    expect(signed).toBe(t.profit);
    expect(lines.commission).toBe(100_000 - 80_000 - 1_500);
    expect(lines.returns).toBe(10_000);
  });
  it('own per-unit costs are a line of their own, not an adjustment', () => {
    const t = totals(1, { own_costs: 4_200 });
    const lines = reportLines(t);
    expect(lines.own_costs).toBe(4_200);
    expect(lines.adjustments).toBe(0);
    let signed = 0;
    for (const l of PNL_LINES) signed += l.sign * lines[l.key]!;
    expect(signed).toBe(t.profit);
    expect(t.profit).toBe(totals(1).profit! - 4_200);
  });
  it('a profit corrected by hand shows in adjustments', () => {
    const t = totals(1);
    const lines = reportLines({ ...t, profit: t.profit! + 12_345 });
    expect(lines.adjustments).toBe(12_345);
  });
  it('every line has a unique key and a Russian title', () => {
    const keys = PNL_LINE_ORDER.map((l) => l.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const l of PNL_LINE_ORDER) expect(l.title).toMatch(/[А-Яа-я]/);
  });
});

describe('months and splitting', () => {
  it('lists months across a year', () => {
    expect(monthsOf('2025-11', '2026-02')).toEqual(['2025-11', '2025-12', '2026-01', '2026-02']);
  });
  it('counts the days of a straddling week per month', () => {
    expect(daysByMonth('2026-01-26', '2026-02-01')).toEqual([
      { month: '2026-01', days: 6 },
      { month: '2026-02', days: 1 },
    ]);
  });
  it('splits to the kopeck, parts add up, negatives too', () => {
    expect(splitByWeights(100, [6, 1])).toEqual([86, 14]);
    expect(splitByWeights(-100, [6, 1])).toEqual([-86, -14]);
    expect(splitByWeights(10, [1, 1, 1])).toEqual([4, 3, 3]);
    const parts = splitByWeights(123_457, [3, 4]);
    expect(parts[0]! + parts[1]!).toBe(123_457);
  });
  it('period costs by month', () => {
    const monthly: PeriodCost = {
      id: 'a',
      name: 'Аренда',
      category: 'rent',
      amount: 5_000_000,
      kind: 'monthly',
      from_month: '2026-01',
      to_month: '2026-02',
    };
    const once: PeriodCost = {
      id: 'b',
      name: 'Аудит',
      category: 'services',
      amount: 700,
      kind: 'one_off',
      date: '2026-02-15',
    };
    expect(['2025-12', '2026-01', '2026-02', '2026-03'].map((m) => costInMonth(monthly, m))).toEqual([
      0, 5_000_000, 5_000_000, 0,
    ]);
    expect(costInMonth(once, '2026-02')).toBe(700);
    expect(costInMonth(once, '2026-01')).toBe(0);
    expect(costInMonth({ ...monthly, to_month: null }, '2030-05')).toBe(5_000_000);
  });
});

describe('computePnl', () => {
  // Three weeks: two in January, one straddling January (Mon 26 – Sat 31, 6 days) and February (Sun 1).
  const w1 = report('w1', '2026-01-12', '2026-01-18', totals(1));
  const w2 = report('w2', '2026-01-19', '2026-01-25', totals(2));
  const straddle = report('w3', '2026-01-26', '2026-02-01', totals(7));
  const rent: PeriodCost = {
    id: 'r',
    name: 'Аренда склада',
    category: 'rent',
    amount: 1_000_000,
    kind: 'monthly',
    from_month: '2026-01',
    to_month: null,
  };

  it('splits the straddling week by its days and keeps the sums exact', () => {
    const r = computePnl({ from: '2026-01', to: '2026-02', reports: [w1, w2, straddle], costs: [rent] });
    const [jan, feb] = r.months;
    const w3 = reportLines(straddle.totals);
    const [w3jan, w3feb] = splitByWeights(w3.revenue!, [6, 1]);
    expect(jan!.lines.revenue).toBe(100_000 + 200_000 + w3jan!);
    expect(feb!.lines.revenue).toBe(w3feb);
    expect(feb!.reports).toEqual([{ report_id: 'w3', days: 1, share: 14.29 }]);
    expect(jan!.reports.map((x) => [x.report_id, x.share])).toEqual([
      ['w1', 100],
      ['w2', 100],
      ['w3', 85.71],
    ]);
    // Every line of the whole range equals the sum of the reports' own lines (no kopeck lost in the split).
    for (const l of PNL_LINES)
      expect(r.totals.lines[l.key]).toBe([w1, w2, straddle].reduce((s, x) => s + reportLines(x.totals)[l.key]!, 0));
    // Net profit = Σ report profit − period costs.
    const profits = w1.totals.profit! + w2.totals.profit! + straddle.totals.profit!;
    expect(r.totals.net_profit).toBe(profits - 2 * 1_000_000);
    expect(jan!.net_profit + feb!.net_profit).toBe(r.totals.net_profit);
    expect(jan!.lines.period_costs).toBe(1_000_000);
    expect(jan!.period_costs).toEqual([{ id: 'r', name: 'Аренда склада', category: 'rent', amount: 1_000_000 }]);
    expect(jan!.margin).toBeCloseTo((jan!.net_profit / jan!.lines.revenue!) * 100, 2);
    expect(r.sources.find((s) => s.report_id === 'w3')!.split).toEqual([
      { month: '2026-01', days: 6, share: 85.71 },
      { month: '2026-02', days: 1, share: 14.29 },
    ]);
    expect(jan!.income + feb!.income).toBe(10 * 101_000);
  });

  it('counts a week once: a copy and a report inside another are left out with a warning', () => {
    const copy = report('w2copy', '2026-01-19', '2026-01-25', totals(2), {
      identity: 'id:w2',
      created_at: '2025-12-01T00:00:00Z',
    });
    const daily = report('d', '2026-01-19', '2026-01-19', totals(1), { days: { '2026-01-19': '10:aa' } });
    const weekly = { ...w2, days: { '2026-01-19': '10:aa', '2026-01-20': '5:bb' } };
    const r = computePnl({ from: '2026-01', to: '2026-01', reports: [w1, weekly, copy, daily], costs: [] });
    expect(r.months[0]!.lines.revenue).toBe(300_000);
    expect(
      r.warnings
        .filter((w) => w.code === 'duplicate_report')
        .map((w) => w.details.report_id)
        .sort(),
    ).toEqual(['d', 'w2copy']);
  });

  it('a combined report never adds to its sources, a processing one is named', () => {
    const combined = report('c', '2026-01-12', '2026-01-25', totals(3), { is_combined: true });
    const busy = report('p', '2026-01-05', '2026-01-11', totals(1), { status: 'processing' });
    const r = computePnl({ from: '2026-01', to: '2026-01', reports: [w1, w2, combined, busy], costs: [] });
    expect(r.months[0]!.lines.revenue).toBe(300_000);
    expect(r.warnings.map((w) => w.code)).toContain('report_processing');
  });

  it('takes only the part of a report inside the range', () => {
    const r = computePnl({ from: '2026-02', to: '2026-02', reports: [w1, straddle], costs: [] });
    expect(r.months).toHaveLength(1);
    expect(r.totals.lines.revenue).toBe(splitByWeights(700_000, [6, 1])[1]);
    expect(r.sources.map((s) => s.report_id)).toEqual(['w3']);
  });

  it('says which months have days without a report, and reports sharing a day', () => {
    const a = report('a', '2026-01-12', '2026-01-18', totals(1), {
      days: { '2026-01-17': '2:w', '2026-01-18': '3:x' },
    });
    const b = report('b', '2026-01-18', '2026-01-24', totals(1), {
      days: { '2026-01-18': '3:x', '2026-01-19': '1:y' },
    });
    const r = computePnl({ from: '2026-01', to: '2026-01', reports: [a, b], costs: [] });
    const codes = r.warnings.map((w) => w.code);
    expect(codes).toContain('shared_days');
    expect(codes).toContain('month_not_covered');
    expect(r.months[0]!.covered_days).toBe(13);
  });

  it('margin is null without revenue', () => {
    const r = computePnl({ from: '2026-03', to: '2026-03', reports: [], costs: [rent] });
    expect(r.months[0]!.net_profit).toBe(-1_000_000);
    expect(r.months[0]!.margin).toBeNull();
  });
});
