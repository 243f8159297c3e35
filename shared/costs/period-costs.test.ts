import { describe, expect, it, vi } from 'vitest';
import { manualClock } from '../deps';
import type { PeriodCostRecord } from '../store/period-costs.repo';
import { createCost, importCosts, listCosts, removeCost, replaceCost, type PeriodCostDeps } from './period-costs';

function fakeDeps(initial: PeriodCostRecord[] = []) {
  const store = new Map(initial.map((c) => [c.id, c]));
  let n = 0;
  const deps = {
    costs: {
      listPeriodCosts: vi.fn(async () => [...store.values()]),
      putPeriodCost: vi.fn(async (_u: string, c: PeriodCostRecord, mustExist?: boolean) => {
        if (mustExist && !store.has(c.id)) return false;
        store.set(c.id, c);
        return true;
      }),
      putPeriodCosts: vi.fn(async (_u: string, cs: readonly PeriodCostRecord[]) => {
        for (const c of cs) store.set(c.id, c);
      }),
      deletePeriodCost: vi.fn(async (_u: string, id: string) => store.delete(id)),
    },
    sellers: { getSeller: vi.fn(async (_u: string, id: string) => (id === 'S1' ? { id } : null)) },
    clock: manualClock('2026-03-01T10:00:00Z'),
    ids: { newId: () => `C${++n}` },
  } satisfies PeriodCostDeps;
  return { deps, store };
}

describe('period costs', () => {
  it('creates in kopecks, answers in roubles, lists by seller', async () => {
    const { deps, store } = fakeDeps();
    const c = await createCost(deps, 'U', {
      name: ' Аренда ',
      category: 'rent',
      amount: 1234.56,
      kind: 'monthly',
      from_month: '2026-01',
      seller_id: 'S1',
    });
    expect(c).toMatchObject({ id: 'C1', name: 'Аренда', amount: 1234.56, to_month: null, date: null, seller_id: 'S1' });
    expect(store.get('C1')!.amount).toBe(123_456);
    expect(await listCosts(deps, 'U', 'S2')).toEqual([]);
    expect((await listCosts(deps, 'U', 'S1')).map((x) => x.id)).toEqual(['C1']);
  });

  it('refuses what does not make a cost', async () => {
    const { deps } = fakeDeps();
    const base = { name: 'x', category: 'other' as const };
    await expect(createCost(deps, 'U', { ...base, amount: 1, kind: 'one_off' })).rejects.toMatchObject({
      code: 'invalid_period_cost',
    });
    await expect(
      createCost(deps, 'U', { ...base, amount: 1, kind: 'monthly', from_month: '2026-05', to_month: '2026-04' }),
    ).rejects.toMatchObject({ code: 'invalid_period_cost' });
    await expect(
      createCost(deps, 'U', { ...base, amount: 0.001, kind: 'one_off', date: '2026-01-01' }),
    ).rejects.toMatchObject({
      code: 'invalid_period_cost',
    });
    await expect(
      createCost(deps, 'U', { ...base, amount: 1, kind: 'one_off', date: '2026-01-01', seller_id: 'nope' }),
    ).rejects.toMatchObject({ code: 'seller_not_found' });
  });

  it('replaces and deletes only what exists', async () => {
    const { deps } = fakeDeps();
    const c = await createCost(deps, 'U', {
      name: 'a',
      category: 'other',
      amount: 5,
      kind: 'one_off',
      date: '2026-02-01',
    });
    const r = await replaceCost(deps, 'U', c.id, {
      name: 'b',
      category: 'services',
      amount: 7,
      kind: 'monthly',
      from_month: '2026-02',
    });
    expect(r).toMatchObject({ name: 'b', kind: 'monthly', date: null, from_month: '2026-02' });
    await expect(
      replaceCost(deps, 'U', 'missing', {
        name: 'b',
        category: 'other',
        amount: 1,
        kind: 'one_off',
        date: '2026-01-01',
      }),
    ).rejects.toMatchObject({ code: 'period_cost_not_found' });
    await removeCost(deps, 'U', c.id);
    await expect(removeCost(deps, 'U', c.id)).rejects.toMatchObject({ code: 'period_cost_not_found' });
  });

  it('imports the good rows, lists the bad ones, keeps to the limit', async () => {
    const { deps, store } = fakeDeps();
    const out = await importCosts(deps, 'U', {
      rows: [
        { row: 2, cost: { name: 'a', category: 'rent', amount: 10, kind: 'monthly', from_month: '2026-01' } },
        { row: 3, cost: { name: 'b', category: 'rent', amount: 10, kind: 'one_off' } },
      ],
      errors: [{ row: 4, message: 'Сумма не указана' }],
    });
    expect(out.created).toBe(1);
    expect(out.errors.map((e) => e.row)).toEqual([3, 4]);
    expect(store.size).toBe(1);
  });
});
