import { describe, expect, it } from 'vitest';
import {
  addDays,
  isoWeekday,
  nextPayoutDay,
  PAYOUT_RULES,
  payoutCalendar,
  ruleOn,
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
    const c = payoutCalendar(reports, { today: '2026-03-01', balanceDays: [] });
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
      balanceDays: [],
    });
    expect(a).toMatchObject({ formed_date: '2026-03-20', approved_date: '2026-04-10', expected_date: '2026-04-10' });
    const [b] = payoutCalendar([{ ...week('2026-03-12'), period_to: '2026-03-18' }], {
      today: '2026-03-01',
      balanceDays: [],
    });
    expect(b).toMatchObject({ formed_date: '2026-03-19', approved_date: '2026-03-26', expected_date: '2026-03-26' });
  });

  it('an approval on a Saturday is paid on the Monday', () => {
    const [p] = payoutCalendar([{ ...week('2026-03-17'), period_to: '2026-03-23' }], {
      today: '2026-03-01',
      balanceDays: [],
    });
    expect(p).toMatchObject({ formed_date: '2026-03-24', approved_date: '2026-04-14', expected_date: '2026-04-14' });
    const [q] = payoutCalendar([{ ...week('2026-03-20'), period_to: '2026-03-26' }], {
      today: '2026-03-01',
      balanceDays: [],
    });
    // formed Friday 27 March, approved Friday 17 April
    expect(q!.expected_date).toBe('2026-04-17');
    const [s] = payoutCalendar([{ ...week('2026-03-21'), period_to: '2026-03-27' }], {
      today: '2026-03-01',
      balanceDays: [],
    });
    // formed Saturday 28 March, approved Saturday 18 April → Monday 20 April
    expect(s).toMatchObject({ approved_date: '2026-04-18', expected_date: '2026-04-20' });
  });

  it('held → approved on the approval day; paid only once a balance reading on or after the payout day exists', () => {
    const status = (today: string, balanceDays: string[] = []) =>
      payoutCalendar(reports, { today, balanceDays }).map((p) => p.status);
    expect(status('2026-03-15')).toEqual(['held', 'held', 'held']);
    expect(status('2026-03-16')).toEqual(['approved', 'held', 'held']);
    expect(status('2026-03-23')).toEqual(['approved', 'approved', 'held']);
    expect(status('2026-03-23', ['2026-03-15'])).toEqual(['approved', 'approved', 'held']);
    expect(status('2026-03-23', ['2026-03-16'])).toEqual(['paid', 'approved', 'held']);
    expect(status('2026-04-13', ['2026-04-13'])).toEqual(['paid', 'paid', 'paid']);
    expect(status('2026-04-12', ['2026-04-12'])).toEqual(['paid', 'paid', 'held']);
  });

  it('keeps the report and the amount', () => {
    const [p] = payoutCalendar([{ ...week('2026-03-02', 12_345_67), wb_report_id: '777' }], {
      today: '2026-03-01',
      balanceDays: [],
    });
    expect(p).toMatchObject({ report_id: '2026-03-02', wb_report_id: '777', amount: 12_345_67 });
  });
});
