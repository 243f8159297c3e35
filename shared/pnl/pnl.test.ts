import { describe, expect, it, vi } from 'vitest';
import { manualClock } from '../deps';
import { DEFAULT_TAX_PROFILE } from '../engine/types';
import type { ReportTotalsHead } from '../store/report-totals.repo';
import type { SellerRecord } from '../store/sellers.repo';
import { getPnl, getTaxThresholds, type PnlDeps } from './pnl';

const user = {
  id: 'U',
  tax: DEFAULT_TAX_PROFILE,
  tax_periods: [{ valid_from: null, ...DEFAULT_TAX_PROFILE }],
  allocation: 'realization' as const,
};
const seller = (id: string): SellerRecord => ({
  id,
  number: id,
  name: `Продавец ${id}`,
  tax: null,
  tax_periods: null,
  allocation: null,
  created_at: 'x',
  updated_at: 'x',
});
const head = (id: string, sellerId: string, from: string, to: string, realization: number): ReportTotalsHead => ({
  id,
  title: id,
  status: 'ready',
  is_combined: false,
  seller_id: sellerId,
  report_number: id,
  period_from: from,
  period_to: to,
  created_at: `2026-01-01T00:00:00Z`,
  identity: `num:${sellerId}:${id}`,
  content_fingerprint: null,
  content_days: null,
  totals: { realization, for_pay: realization, income: realization, profit: realization },
  tax_profile: DEFAULT_TAX_PROFILE,
  allocation_method: 'realization',
});

function deps(heads: ReportTotalsHead[]): PnlDeps {
  return {
    reports: { listReportTotals: vi.fn(async () => heads) },
    costs: { listPeriodCosts: vi.fn(async () => []) },
    sellers: {
      getSeller: vi.fn(async (_u: string, id: string) => (id === 'A' || id === 'B' ? seller(id) : null)),
      listSellers: vi.fn(async () => [seller('A'), seller('B')]),
    },
    clock: manualClock('2026-06-15T00:00:00Z'),
  };
}

describe('the P&L use case', () => {
  const heads = [
    head('a1', 'A', '2026-01-05', '2026-01-11', 2_100_000_000), // 21 M ₽ in January: over 20 M ₽
    head('b1', 'B', '2026-01-05', '2026-01-11', 100_000_000),
  ];

  it('filters by seller, money in roubles, thresholds per seller', async () => {
    const all = await getPnl(deps(heads), user, { from: '2026-01', to: '2026-01' });
    expect(all.totals.lines.revenue).toBe(22_000_000);
    expect(all.thresholds.map((t) => [t.seller_id, t.level])).toEqual([
      ['A', 'crossed'],
      ['B', 'below'],
    ]);
    const b = await getPnl(deps(heads), user, { from: '2026-01', to: '2026-01', seller_id: 'B' });
    expect(b.totals.lines.revenue).toBe(1_000_000);
    expect(b.thresholds).toHaveLength(1);
  });

  it('refuses a bad range and an unknown seller', async () => {
    await expect(getPnl(deps(heads), user, { from: '2026-13', to: '2026-01' })).rejects.toMatchObject({
      code: 'invalid_range',
    });
    await expect(getPnl(deps(heads), user, { from: '2026-02', to: '2026-01' })).rejects.toMatchObject({
      code: 'invalid_range',
    });
    await expect(getPnl(deps(heads), user, { from: '2023-01', to: '2026-12' })).rejects.toMatchObject({
      code: 'invalid_range',
    });
    await expect(getPnl(deps(heads), user, { from: '2026-01', to: '2026-01', seller_id: 'Z' })).rejects.toMatchObject({
      code: 'seller_not_found',
    });
  });

  it('with no months asked, opens on the 3 months ending with the newest month a report covers', async () => {
    // The clock is in June 2026; the only reports are of January: the P&L shows November–January.
    const r = await getPnl(deps(heads), user, {});
    expect([r.from, r.to]).toEqual(['2025-11', '2026-01']);
    expect(r.months.map((m) => m.month)).toEqual(['2025-11', '2025-12', '2026-01']);
    expect(r.months.at(-1)?.covered_days).toBe(7);
    const late = [...heads, head('b2', 'B', '2026-04-27', '2026-05-03', 100_000_000)];
    expect(await getPnl(deps(late), user, { seller_id: 'A' })).toMatchObject({ from: '2025-11', to: '2026-01' });
    expect(await getPnl(deps(late), user, { seller_id: 'B' })).toMatchObject({ from: '2026-03', to: '2026-05' });
    // No report at all: the clock's month.
    expect(await getPnl(deps([]), user, {})).toMatchObject({ from: '2026-04', to: '2026-06' });
    await expect(getPnl(deps(heads), user, { from: '2026-01' })).rejects.toMatchObject({ code: 'invalid_range' });
  });

  it('thresholds default to the clock’s year; a seller on no income tax has none', async () => {
    const r = await getTaxThresholds(deps(heads), user, { seller_id: 'A' });
    expect(r.thresholds[0]).toMatchObject({ year: 2026, vat_from: { month: '2026-01', from: '2026-02-01' } });
    const none = {
      ...user,
      tax_periods: [{ valid_from: null, tax_system: 'none' as const, usn_rate: 0, vat_rate: 0 }],
    };
    expect((await getTaxThresholds(deps(heads), none, {})).thresholds).toEqual([]);
  });
});
