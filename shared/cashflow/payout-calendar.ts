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

export interface Payout extends PayoutReport {
  /** The day the report is formed (the day after its last day). */
  formed_date: string;
  /** The day the objection window ends. */
  approved_date: string;
  /** The payout day WB transfers on. */
  expected_date: string;
  status: PayoutStatus;
}

const DAY_MS = 86_400_000;

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
  /** The days (YYYY-MM-DD) WB's balance was read on: a reading on or after a payout's day shows it paid. */
  balanceDays: readonly string[];
  rules?: readonly PayoutRule[];
}

/**
 * Each report's payout with its dates and status: `held` until the objection window ends, `approved`
 * from then, `paid` once its payout day has come and a balance reading was taken on it or later (the
 * money is on the balance by then). Without balance readings (uploads only) a payout stays `approved`:
 * nothing shows it arrived. Sorted by expected date, then report id.
 */
export function payoutCalendar(reports: readonly PayoutReport[], opts: CalendarOptions): Payout[] {
  const lastReading = [...opts.balanceDays].sort().at(-1) ?? null;
  const out = reports.map((r): Payout => {
    const formed = addDays(r.period_to, 1);
    const rule = ruleOn(formed, opts.rules);
    const approved = addDays(formed, rule.objection_days);
    const expected = nextPayoutDay(approved, rule.payout_weekdays);
    const status: PayoutStatus =
      opts.today < approved
        ? 'held'
        : opts.today >= expected && lastReading !== null && lastReading >= expected
          ? 'paid'
          : 'approved';
    return { ...r, formed_date: formed, approved_date: approved, expected_date: expected, status };
  });
  return out.sort((a, b) =>
    a.expected_date < b.expected_date
      ? -1
      : a.expected_date > b.expected_date
        ? 1
        : a.report_id.localeCompare(b.report_id),
  );
}
