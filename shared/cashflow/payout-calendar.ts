/**
 * When a weekly report's payout reaches the seller (docs/METRICS.md, «Payout calendar»). Pure: dates in,
 * dates out; no clock of its own (the caller passes today).
 *
 * WB forms a weekly report (Monday to Sunday) on the Monday after it. The report is then held for
 * objections: 7 days before 2026-03-20, 21 days from that day on (the rule in force on the day the
 * report is formed applies). Once approved, WB transfers the payout on the first payout day on or after
 * the approval. The rules are a dated setting (PAYOUT_RULES) with their sources; WB's API does not
 * publish them, and only a real account's balance history confirms the days.
 */

export interface PayoutRule {
  /** YYYY-MM-DD: the rule applies to reports formed on this day or later (until the next rule). */
  valid_from: string;
  /** Days a formed report is held for objections before it is approved. */
  objection_days: number;
  /** ISO weekdays (1 = Monday … 7 = Sunday) WB transfers on. */
  payout_weekdays: readonly number[];
  source: string;
}

const WORKDAYS = [1, 2, 3, 4, 5] as const;

/** WB's rules, oldest first. */
export const PAYOUT_RULES: readonly PayoutRule[] = [
  {
    valid_from: '2019-01-01',
    objection_days: 7,
    payout_weekdays: WORKDAYS,
    source:
      'Public WB seller guides: until 2026-03-20 a weekly report was open to objections for 7 days after it was formed, then paid out',
  },
  {
    valid_from: '2026-03-20',
    objection_days: 21,
    payout_weekdays: WORKDAYS,
    source:
      'Public WB seller guides: from 2026-03-20 WB holds a weekly report 21 days for objections before it is approved, then transfers it (not in WB’s API spec)',
  },
];

export type PayoutStatus = 'held' | 'approved' | 'paid';

export interface PayoutReport {
  report_id: string;
  wb_report_id: string | null;
  period_from: string;
  period_to: string;
  /** Kopecks: WB's bankPaymentSum where the report was synced, the report's payout otherwise. */
  amount: number;
}

/** How a payout was seen paid (null: not seen). */
export type PaidBy = 'balance_rise' | 'before_history';

export interface Payout extends PayoutReport {
  /** The day the report is formed (the day after its last day). */
  formed_date: string;
  /** The day the objection window ends. */
  approved_date: string;
  /** The payout day WB transfers on. */
  expected_date: string;
  status: PayoutStatus;
  /**
   * `balance_rise`: «Можно вывести» rose by about the payout within PAID_WINDOW_DAYS from its payout day;
   * `before_history`: its payout day (and the window) passed before WB's balance was first read here.
   */
  paid_by: PaidBy | null;
  /** The Moscow day the balance showed it (balance_rise), else null. */
  paid_on: string | null;
}

/** One reading of WB's balance: its WB account, when WB said so (ISO) and «Можно вывести» in kopecks. */
export interface BalancePoint {
  account: string;
  as_of: string;
  for_withdraw: number;
}

/** A report's payout (kopecks): WB's bankPaymentSum where the report was synced, the report's payout otherwise. */
export function payoutAmount(wbBankPayment: number | null | undefined, totals: Record<string, number | null>): number {
  return wbBankPayment ?? (typeof totals.payout === 'number' ? totals.payout : 0);
}

/** A kept balance reading (wb-balance.repo.ts) as the calendar reads it. */
export const balancePoint = (b: { wb_seller_id: string; as_of: string; for_withdraw: number }): BalancePoint => ({
  account: b.wb_seller_id,
  as_of: b.as_of,
  for_withdraw: b.for_withdraw,
});

/** Days from a payout day within which a rise of «Можно вывести» counts for it (the day itself is day 0). */
export const PAID_WINDOW_DAYS = 3;
/** How far short of the payout a rise may be and still count: 1 % of it, at least 1 ₽ (kopecks). */
export const paidTolerance = (amount: number) => Math.max(100, Math.round(amount / 100));

const DAY_MS = 86_400_000;
const MSK_OFFSET_MS = 3 * 3_600_000;

/** The Moscow day of an ISO time (WB's days are Moscow's). */
export const moscowDay = (iso: string) => new Date(Date.parse(iso) + MSK_OFFSET_MS).toISOString().slice(0, 10);

/** `date` (YYYY-MM-DD) plus `days`. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** ISO weekday of a day: 1 = Monday … 7 = Sunday. */
export function isoWeekday(date: string): number {
  const d = new Date(`${date}T00:00:00Z`).getUTCDay();
  return d === 0 ? 7 : d;
}

/** The rule in force on `date` (the last one whose valid_from is not after it; the first one before all). */
export function ruleOn(date: string, rules: readonly PayoutRule[] = PAYOUT_RULES): PayoutRule {
  let out = rules[0]!;
  for (const r of rules) if (r.valid_from <= date) out = r;
  return out;
}

/** The first of `weekdays` on or after `date` (the day itself when none is set). */
export function nextPayoutDay(date: string, weekdays: readonly number[]): string {
  if (weekdays.length === 0) return date;
  for (let i = 0; i < 7; i++) {
    const d = addDays(date, i);
    if (weekdays.includes(isoWeekday(d))) return d;
  }
  return date;
}

export interface CalendarOptions {
  /** YYYY-MM-DD: today, as the caller's clock says. */
  today: string;
  /** WB's balance history (any order, any accounts); empty for uploads alone. */
  balances: readonly BalancePoint[];
  /** ISO time of the very first reading (the history may be given from a later day); default: the first given. */
  historyFrom?: string | null;
  rules?: readonly PayoutRule[];
}

/** A rise of «Можно вывести» between two readings of one account, dated by the later reading's Moscow day. */
interface Rise {
  day: string;
  at: string;
  left: number;
}

function risesOf(balances: readonly BalancePoint[]): Rise[] {
  const byAccount = new Map<string, BalancePoint[]>();
  for (const b of balances) byAccount.set(b.account, [...(byAccount.get(b.account) ?? []), b]);
  const out: Rise[] = [];
  for (const points of byAccount.values()) {
    points.sort((a, b) => (a.as_of < b.as_of ? -1 : a.as_of > b.as_of ? 1 : 0));
    for (let i = 1; i < points.length; i++) {
      const rise = points[i]!.for_withdraw - points[i - 1]!.for_withdraw;
      if (rise > 0) out.push({ day: moscowDay(points[i]!.as_of), at: points[i]!.as_of, left: rise });
    }
  }
  return out.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/**
 * Takes `amount` out of the rises dated `from`…`from + PAID_WINDOW_DAYS`, oldest first, if they hold it
 * (less the tolerance); returns the day of the rise that completed it, or null (and takes nothing).
 */
function takeRise(rises: Rise[], from: string, amount: number): string | null {
  const to = addDays(from, PAID_WINDOW_DAYS);
  const usable = rises.filter((r) => r.day >= from && r.day <= to && r.left > 0);
  const need = amount - paidTolerance(amount);
  let sum = 0;
  let last: Rise | null = null;
  for (const r of usable) {
    sum += r.left;
    last = r;
    if (sum >= need) break;
  }
  if (last === null || sum < need) return null;
  let rest = amount;
  for (const r of usable) {
    const take = Math.min(r.left, rest);
    r.left -= take;
    rest -= take;
    if (r === last) break;
  }
  return last.day;
}

/**
 * Each report's payout with its dates and status: `held` until the objection window ends, `approved`
 * from then, `paid` when WB's balance history shows it (docs/METRICS.md «Payout calendar»):
 * - `balance_rise`: from its payout day on, «Можно вывести» rose by the payout (to 1 %, at least 1 ₽)
 *   between two readings, the later one dated within PAID_WINDOW_DAYS of the payout day. The payouts of one
 *   payout day are matched together first (WB transfers a day's reports together), then one by one, the
 *   largest first; a rise counts for one payout only (payout days in order, rises oldest first), so a
 *   withdrawal the same day, or a rise that is something else, never marks two weeks paid;
 * - `before_history`: the payout day and its window ended before the first reading of the balance
 *   (the history cannot show it; WB's rules had it transferred by then).
 * Without readings (uploads only) a payout stays `approved`: nothing shows it arrived.
 * Sorted by expected date, then report id.
 */
export function payoutCalendar(reports: readonly PayoutReport[], opts: CalendarOptions): Payout[] {
  const firstDay = opts.historyFrom
    ? moscowDay(opts.historyFrom)
    : opts.balances.length === 0
      ? null
      : opts.balances.map((b) => moscowDay(b.as_of)).sort()[0]!;
  const rises = risesOf(opts.balances);
  const out = reports.map((r): Payout => {
    const formed = addDays(r.period_to, 1);
    const rule = ruleOn(formed, opts.rules);
    const approved = addDays(formed, rule.objection_days);
    const expected = nextPayoutDay(approved, rule.payout_weekdays);
    return {
      ...r,
      formed_date: formed,
      approved_date: approved,
      expected_date: expected,
      status: opts.today < approved ? 'held' : 'approved',
      paid_by: null,
      paid_on: null,
    };
  });
  const sorted = out.sort((a, b) =>
    a.expected_date < b.expected_date
      ? -1
      : a.expected_date > b.expected_date
        ? 1
        : a.report_id.localeCompare(b.report_id),
  );
  const paid = (p: Payout, by: PaidBy, on: string | null) => {
    p.status = 'paid';
    p.paid_by = by;
    p.paid_on = on;
  };
  const days = [...new Set(sorted.map((p) => p.expected_date))];
  for (const day of days) {
    if (day > opts.today) break;
    const due = sorted.filter((p) => p.expected_date === day && p.status === 'approved');
    if (firstDay !== null && addDays(day, PAID_WINDOW_DAYS) < firstDay) {
      for (const p of due) paid(p, 'before_history', null);
      continue;
    }
    const positive = due.filter((p) => p.amount > 0);
    if (positive.length === 0) continue;
    const all = positive.reduce((s, p) => s + p.amount, 0);
    const together = positive.length > 1 ? takeRise(rises, day, all) : null;
    if (together !== null) {
      for (const p of positive) paid(p, 'balance_rise', together);
      continue;
    }
    for (const p of [...positive].sort((a, b) => b.amount - a.amount)) {
      const on = takeRise(rises, day, p.amount);
      if (on !== null) paid(p, 'balance_rise', on);
    }
  }
  return sorted;
}
