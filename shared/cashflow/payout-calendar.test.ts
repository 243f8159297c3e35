import { describe, expect, it } from 'vitest';
import {
  addDays,
  isoWeekday,
  nextPayoutDay,
  PAYOUT_RULES,
  payoutCalendar,
  ruleOn,
  PAID_WINDOW_DAYS,
  type BalancePoint,
  type PayoutReport,
} from './payout-calendar';

const week = (from: string, amount = 100_00, id = from): PayoutReport => ({
  report_id: id,
  wb_report_id: null,
  period_from: from,
  period_to: addDays(from, 6),
  amount,
});

describe('payout rules by date', () => {
  it('the 7-day window before 2026-03-20, the 21-day window from that day', () => {
    expect(ruleOn('2026-03-19').objection_days).toBe(7);
    expect(ruleOn('2026-03-20').objection_days).toBe(21);
    expect(ruleOn('2020-06-01').objection_days).toBe(7);
    expect(ruleOn('2018-01-01')).toBe(PAYOUT_RULES[0]);
    for (const r of PAYOUT_RULES) expect(r.source).toMatch(/WB/);
  });

  it('weekdays and the next payout day', () => {
    expect(isoWeekday('2026-03-16')).toBe(1);
    expect(isoWeekday('2026-03-22')).toBe(7);
    expect(nextPayoutDay('2026-03-21', [1, 2, 3, 4, 5])).toBe('2026-03-23');
    expect(nextPayoutDay('2026-03-20', [1, 2, 3, 4, 5])).toBe('2026-03-20');
    expect(nextPayoutDay('2026-03-20', [2])).toBe('2026-03-24');
  });
});

describe('payoutCalendar: reports on each side of 2026-03-20', () => {
  // Week 2–8 March 2026 is formed on Monday 9 March: 7 days → approved Monday 16 March.
  // Week 16–22 March is formed on Monday 23 March (after 20 March): 21 days → approved Monday 13 April.
  // Week 9–15 March is formed on Monday 16 March, before the change: 7 days → Monday 23 March.
  const reports = [week('2026-03-16', 300_00), week('2026-03-02', 100_00), week('2026-03-09', 200_00)];

  it('dates', () => {
    const c = payoutCalendar(reports, { today: '2026-03-01', balances: [] });
    expect(c.map((p) => [p.period_from, p.formed_date, p.approved_date, p.expected_date])).toEqual([
      ['2026-03-02', '2026-03-09', '2026-03-16', '2026-03-16'],
      ['2026-03-09', '2026-03-16', '2026-03-23', '2026-03-23'],
      ['2026-03-16', '2026-03-23', '2026-04-13', '2026-04-13'],
    ]);
    expect(c.every((p) => p.status === 'held')).toBe(true);
  });

  it('a week formed on 2026-03-20 itself (a Friday-ending period) takes 21 days; the day before, 7', () => {
    const [a] = payoutCalendar([{ ...week('2026-03-13'), period_to: '2026-03-19' }], {
      today: '2026-03-01',
      balances: [],
    });
    expect(a).toMatchObject({ formed_date: '2026-03-20', approved_date: '2026-04-10', expected_date: '2026-04-10' });
    const [b] = payoutCalendar([{ ...week('2026-03-12'), period_to: '2026-03-18' }], {
      today: '2026-03-01',
      balances: [],
    });
    expect(b).toMatchObject({ formed_date: '2026-03-19', approved_date: '2026-03-26', expected_date: '2026-03-26' });
  });

  it('an approval on a Saturday is paid on the Monday', () => {
    const [p] = payoutCalendar([{ ...week('2026-03-17'), period_to: '2026-03-23' }], {
      today: '2026-03-01',
      balances: [],
    });
    expect(p).toMatchObject({ formed_date: '2026-03-24', approved_date: '2026-04-14', expected_date: '2026-04-14' });
    const [q] = payoutCalendar([{ ...week('2026-03-20'), period_to: '2026-03-26' }], {
      today: '2026-03-01',
      balances: [],
    });
    // formed Friday 27 March, approved Friday 17 April
    expect(q!.expected_date).toBe('2026-04-17');
    const [s] = payoutCalendar([{ ...week('2026-03-21'), period_to: '2026-03-27' }], {
      today: '2026-03-01',
      balances: [],
    });
    // formed Saturday 28 March, approved Saturday 18 April → Monday 20 April
    expect(s).toMatchObject({ approved_date: '2026-04-18', expected_date: '2026-04-20' });
  });

  it('held → approved on the approval day; without a balance history a payout stays approved', () => {
    const status = (today: string) => payoutCalendar(reports, { today, balances: [] }).map((p) => p.status);
    expect(status('2026-03-15')).toEqual(['held', 'held', 'held']);
    expect(status('2026-03-16')).toEqual(['approved', 'held', 'held']);
    expect(status('2026-03-23')).toEqual(['approved', 'approved', 'held']);
    expect(status('2026-06-01')).toEqual(['approved', 'approved', 'approved']);
  });

  it('keeps the report and the amount', () => {
    const [p] = payoutCalendar([{ ...week('2026-03-02', 12_345_67), wb_report_id: '777' }], {
      today: '2026-03-01',
      balances: [],
    });
    expect(p).toMatchObject({ report_id: '2026-03-02', wb_report_id: '777', amount: 12_345_67 });
  });
});

/** A reading of account `a` at `at` (ISO) with «Можно вывести» `fw` kopecks. */
const reading = (at: string, fw: number, a = '1'): BalancePoint => ({ account: a, as_of: at, for_withdraw: fw });

describe('payoutCalendar: paid when «Можно вывести» rose by the payout', () => {
  // Week 2–8 March → paid on Monday 16 March (100 ₽); week 9–15 March → Monday 23 March (200 ₽).
  const reports = [week('2026-03-02', 100_00), week('2026-03-09', 200_00)];
  const cal = (today: string, balances: BalancePoint[]) => payoutCalendar(reports, { today, balances });

  it('a rise by the payout on its day marks it paid on that Moscow day; the next week stays approved', () => {
    const c = cal('2026-03-23', [reading('2026-03-15T10:00:00Z', 50_00), reading('2026-03-16T09:00:00Z', 150_00)]);
    expect(c.map((p) => [p.status, p.paid_by, p.paid_on])).toEqual([
      ['paid', 'balance_rise', '2026-03-16'],
      ['approved', null, null],
    ]);
  });

  it('a reading after the payout day without a rise does not mark it paid (the old «any reading» rule)', () => {
    const c = cal('2026-03-17', [reading('2026-03-15T10:00:00Z', 50_00), reading('2026-03-17T09:00:00Z', 50_00)]);
    expect(c[0]).toMatchObject({ status: 'approved', paid_by: null });
  });

  it('a rise before the payout day, or past the window, does not count', () => {
    const early = cal('2026-03-23', [reading('2026-03-13T10:00:00Z', 0), reading('2026-03-14T10:00:00Z', 100_00)]);
    expect(early[0]!.status).toBe('approved');
    const late = cal('2026-03-30', [
      reading('2026-03-15T10:00:00Z', 0),
      reading(`${addDays('2026-03-16', PAID_WINDOW_DAYS + 1)}T10:00:00Z`, 100_00),
    ]);
    expect(late[0]!.status).toBe('approved');
    // The last day of the window counts, by Moscow's day: 22:30 UTC on the 18th is 01:30 on the 19th in Moscow.
    const edge = cal('2026-03-30', [reading('2026-03-15T10:00:00Z', 0), reading('2026-03-18T22:30:00Z', 100_00)]);
    expect(edge[0]).toMatchObject({ status: 'paid', paid_on: '2026-03-19' });
  });

  it('a rise short of the payout by more than 1 % is not it; within 1 % (at least 1 ₽) it is', () => {
    const short = cal('2026-03-20', [reading('2026-03-15T10:00:00Z', 0), reading('2026-03-16T10:00:00Z', 98_90)]);
    expect(short[0]!.status).toBe('approved');
    const near = cal('2026-03-20', [reading('2026-03-15T10:00:00Z', 0), reading('2026-03-16T10:00:00Z', 99_00)]);
    expect(near[0]!.status).toBe('paid');
  });

  it('one rise counts for one payout only; two rises across readings add up', () => {
    // Both weeks due the same Monday: a rise of 100 ₽ pays the 100 ₽ week, not the 200 ₽ one too.
    const same = [week('2026-03-02', 100_00, 'a'), week('2026-03-02', 200_00, 'b')];
    const one = payoutCalendar(same, {
      today: '2026-03-20',
      balances: [reading('2026-03-15T10:00:00Z', 0), reading('2026-03-16T10:00:00Z', 100_00)],
    });
    expect(Object.fromEntries(one.map((p) => [p.report_id, p.status]))).toEqual({ a: 'paid', b: 'approved' });
    const both = payoutCalendar(same, {
      today: '2026-03-20',
      balances: [
        reading('2026-03-15T10:00:00Z', 0),
        reading('2026-03-16T10:00:00Z', 120_00),
        reading('2026-03-17T10:00:00Z', 300_00),
      ],
    });
    expect(both.map((p) => [p.status, p.paid_on])).toEqual([
      ['paid', '2026-03-17'],
      ['paid', '2026-03-17'],
    ]);
  });

  it('a withdrawal between readings is no rise; the rise after it still is', () => {
    const c = cal('2026-03-20', [
      reading('2026-03-15T10:00:00Z', 500_00),
      reading('2026-03-16T08:00:00Z', 0),
      reading('2026-03-16T12:00:00Z', 100_00),
    ]);
    expect(c[0]).toMatchObject({ status: 'paid', paid_on: '2026-03-16' });
  });

  it('rises of two WB accounts are each their own account’s', () => {
    const c = cal('2026-03-20', [
      reading('2026-03-15T10:00:00Z', 0, 'x'),
      reading('2026-03-16T10:00:00Z', 60_00, 'y'),
      reading('2026-03-16T11:00:00Z', 100_00, 'x'),
    ]);
    // y has one reading (no rise); x rose by 100 ₽.
    expect(c[0]).toMatchObject({ status: 'paid', paid_by: 'balance_rise' });
  });

  it('payouts due before the history began are paid «before_history»; those inside it need their rise', () => {
    const c = cal('2026-04-01', [reading('2026-03-21T10:00:00Z', 1000_00), reading('2026-03-23T10:00:00Z', 1200_00)]);
    expect(c.map((p) => [p.status, p.paid_by])).toEqual([
      ['paid', 'before_history'],
      ['paid', 'balance_rise'],
    ]);
  });
});
