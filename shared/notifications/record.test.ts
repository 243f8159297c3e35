import { describe, expect, it, vi } from 'vitest';
import { manualClock } from '../deps';
import { memoryNotificationStore } from '../../test/support/notifications-memory';
vi.mock('../log');
import { rub } from './messages';
import { recordPayoutArrivals, recordReportEvents, type ReadyReport } from './record';

const report = (over: Partial<ReadyReport> = {}): ReadyReport => ({
  reportId: 'r5',
  userId: 'u1',
  sellerId: 's1',
  title: 'Неделя 5',
  periodFrom: '2026-11-23',
  periodTo: '2026-11-29',
  realization: 100_000_00,
  profit: 10_000_00,
  payout: 80_000_00,
  margin: 10,
  penalties: 0,
  deductions: 0,
  mismatch: null,
  bankPayment: 0,
  ...over,
});

function setup() {
  const { store } = memoryNotificationStore();
  const events: string[] = [];
  const put = store.putEvent.bind(store);
  store.putEvent = async (e) => {
    const fresh = await put(e);
    if (fresh) events.push(e.key);
    return fresh;
  };
  const clock = manualClock(new Date('2026-11-30T08:00:00Z'));
  return { deps: { store, clock, appUrl: () => 'https://app.example' }, events, clock, store };
}

describe('the events of a report that became ready', () => {
  it('ready always; penalties, a mismatch and a profit drop when the report shows them', async () => {
    const { deps, events } = setup();
    await recordReportEvents(deps, report({ penalties: -500_00, mismatch: 1_00, profit: 1_000_00 }), async () => [
      10_000_00, 9_000_00, 11_000_00, 10_000_00,
    ]);
    expect(events).toEqual(['report_ready:r5', 'penalties:r5', 'reconciliation_mismatch:r5', 'profit_drop:r5']);
  });

  it('a profit within the threshold of the last four weeks: no drop', async () => {
    const { deps, events } = setup();
    await recordReportEvents(deps, report({ profit: 9_000_00 }), async () => [10_000_00, 10_000_00]);
    expect(events).toEqual(['report_ready:r5']);
  });

  it('limits below the last four weeks’ average rows: limits_low, once a week', async () => {
    const { deps, events, clock, store } = setup();
    // 4 weeks: 3,000 + 5,000 + 4,000 + 0 rows → an average of 3,000; 2,500 left.
    const low = async () => ({ remaining: 2_500, weeklyRows: [3_000, 5_000, 4_000, 0] });
    await recordReportEvents(deps, report(), async () => [], low);
    await recordReportEvents(deps, report({ reportId: 'r6' }), async () => [], low);
    expect(events).toEqual(['report_ready:r5', 'limits_low:2026-W49', 'report_ready:r6']);
    const e = await store.getEvent('u1', 'limits_low:2026-W49');
    expect(e?.text).toContain('Осталось строк: 2\u00a0500');
    clock.advance(7 * 86_400_000);
    await recordReportEvents(deps, report({ reportId: 'r7' }), async () => [], low);
    expect(events.slice(-2)).toEqual(['report_ready:r7', 'limits_low:2026-W50']);
  });

  it('enough limits, or a store that fails: no limits event, the others still recorded', async () => {
    const { deps, events } = setup();
    await recordReportEvents(
      deps,
      report(),
      async () => [],
      async () => ({ remaining: 3_000, weeklyRows: [3_000] }),
    );
    await recordReportEvents(
      deps,
      report({ reportId: 'r6' }),
      async () => [],
      async () => {
        throw new Error('store down');
      },
    );
    expect(events).toEqual(['report_ready:r5', 'report_ready:r6']);
  });

  it('a payout to come: when WB transfers the week, by the dated rules (21 days of objections since 2026-03-20)', async () => {
    const { deps, events, store } = setup();
    await recordReportEvents(deps, report({ bankPayment: 79_718_92 }), async () => []);
    expect(events).toEqual(['report_ready:r5', 'payout:r5']);
    const e = await store.getEvent('u1', 'payout:r5');
    // Formed on 30.11 (the day after the week), approved after 21 days on 21.12, a Monday: paid that day.
    expect(e?.subject).toBe(`Выплата за 23.11.2026–29.11.2026: ${rub(79_718_92)} ожидается 21.12.2026`);
    expect(e?.text).toContain('WB проверяет отчёт до 21.12.2026');
  });
});

describe('a payout that arrived (the WB sync read the balance)', () => {
  // The week 23–29.11.2026: formed 30.11, approved 21.12 (a Monday), paid that day.
  const week = {
    report_id: 'r5',
    wb_report_id: '900',
    period_from: '2026-11-23',
    period_to: '2026-11-29',
    amount: 79_718_92,
  };
  const point = (as_of: string, for_withdraw: number) => ({ account: '4242', as_of, for_withdraw });

  it('«Можно вывести» rose by the payout on its day: told once, with the day it came', async () => {
    const { deps, events, store, clock } = setup();
    clock.set(new Date('2026-12-21T12:00:00Z'));
    const input = {
      userId: 'u1',
      reports: [week],
      balances: [point('2026-12-20T09:00:00Z', 10_000_00), point('2026-12-21T10:00:00Z', 10_000_00 + 79_718_92)],
      historyFrom: '2026-12-01T09:00:00Z',
    };
    expect(await recordPayoutArrivals(deps, input)).toBe(1);
    expect(await recordPayoutArrivals(deps, input)).toBe(0);
    expect(events).toEqual(['payout_paid:r5']);
    const e = await store.getEvent('u1', 'payout_paid:r5');
    expect(e).toMatchObject({ kind: 'payout', link: 'https://app.example/cash-flow' });
    expect(e?.subject).toBe(`Выплата за 23.11.2026–29.11.2026 пришла: ${rub(79_718_92)}`);
    expect(e?.text).toContain('Пришла на баланс WB: 21.12.2026');
    expect(e?.text).toContain('Ожидалась: 21.12.2026');
  });

  it('no rise, a rise of another amount, or a payout day before the history began: nothing told', async () => {
    const { deps, events, clock } = setup();
    clock.set(new Date('2026-12-22T12:00:00Z'));
    const base = { userId: 'u1', reports: [week], historyFrom: '2026-12-01T09:00:00Z' };
    await recordPayoutArrivals(deps, { ...base, balances: [point('2026-12-20T09:00:00Z', 10_000_00)] });
    await recordPayoutArrivals(deps, {
      ...base,
      balances: [point('2026-12-20T09:00:00Z', 10_000_00), point('2026-12-21T10:00:00Z', 15_000_00)],
    });
    // Paid before WB's balance was first read here: the history cannot say when it came.
    clock.set(new Date('2027-02-01T12:00:00Z'));
    await recordPayoutArrivals(deps, { ...base, balances: [], historyFrom: '2027-01-20T09:00:00Z' });
    expect(events).toEqual([]);
  });

  it('a store that fails: logged, nothing thrown', async () => {
    const { deps } = setup();
    deps.store.putEvent = async () => {
      throw new Error('store down');
    };
    deps.clock.set(new Date('2026-12-21T12:00:00Z'));
    await expect(
      recordPayoutArrivals(deps, {
        userId: 'u1',
        reports: [week],
        balances: [point('2026-12-20T09:00:00Z', 0), point('2026-12-21T10:00:00Z', 79_718_92)],
        historyFrom: null,
      }),
    ).resolves.toBe(0);
  });
});
