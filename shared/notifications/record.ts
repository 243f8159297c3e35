/**
 * Recording events where they happen (docs/NOTIFICATIONS.md «Events»): the report worker when a report
 * becomes ready, the WB sync, the limits charge. Recording is one conditional write per event key, so a
 * retried worker records nothing new; it never fails its caller: a store error is logged and the event
 * is lost (the report, the sync, the charge go on).
 *
 * A report's events: `report_ready:<id>`; `penalties:<id>` when WB's penalties or deductions (which
 * carry the «самовыкуп» fines) are in it; `profit_drop:<id>` when its profit fell by more than the
 * user's threshold against the average of the previous four weeks of the same seller;
 * `reconciliation_mismatch:<id>` when WB's totals and ours differ; `payout:<id>` when its payout is due.
 * A payout that arrived, `payout_paid:<id>`, is found by the WB sync when it reads the balance.
 */
import { describeError, log } from '../log';
import type { Clock } from '../deps';
import type { EventKind } from './channel';
import {
  limitsLowMessage,
  payoutArrivedMessage,
  payoutExpectedMessage,
  mismatchMessage,
  penaltiesMessage,
  profitDropMessage,
  reportReadyMessage,
  type ReportFacts,
} from './messages';
import type { NotificationEvent, NotificationStore } from './ports';
import { payoutCalendar, type BalancePoint, type PayoutReport } from '../cashflow/payout-calendar';
import { isoWeek, limitsLow, nextDigestRun, profitDrop } from './rules';
import { withDefaults } from './settings';

export interface RecordDeps {
  store: Pick<NotificationStore, 'putEvent' | 'markForDigest' | 'getSettings'>;
  clock: Clock;
  appUrl(): string;
}

/** Records one event (once by its key); true when it is new. Never throws. */
export async function recordEvent(
  deps: RecordDeps,
  e: { userId: string; kind: EventKind; key: string } & Omit<
    NotificationEvent,
    'user_id' | 'kind' | 'key' | 'created_at'
  >,
): Promise<boolean> {
  try {
    return await recordEventOrThrow(deps, e);
  } catch (err) {
    log('error', 'notification event not recorded', { event_key: e.key, ...describeError(err) });
    return false;
  }
}

/**
 * Records one event and throws when the store fails (a caller that takes its own mark back and tries
 * again: the token expiry notice, expiry.ts). True when new, false when recorded before.
 */
export async function recordEventOrThrow(
  deps: RecordDeps,
  e: { userId: string; kind: EventKind; key: string } & Omit<
    NotificationEvent,
    'user_id' | 'kind' | 'key' | 'created_at'
  >,
): Promise<boolean> {
  const { userId, ...rest } = e;
  const created = deps.clock.now().toISOString();
  const fresh = await deps.store.putEvent({ ...rest, user_id: userId, created_at: created });
  if (fresh) await deps.store.markForDigest(isoWeek(nextDigestRun(Date.parse(created))), userId);
  return fresh;
}

/** A ready report as the events read it (money in kopecks). */
export interface ReadyReport extends ReportFacts {
  userId: string;
  sellerId: string | null;
  penalties: number;
  deductions: number;
  /** WB's own totals and ours differ by this much (kopecks); null when there is nothing to compare. */
  mismatch: number | null;
  /** What WB transfers for the week (kopecks): its «Итого к оплате» where synced, else the report's payout. */
  bankPayment: number;
}

/** The user's limits left and the rows charged in each of the last four weeks (newest first). */
export interface LimitsState {
  remaining: number;
  weeklyRows: number[];
}

/**
 * The events of a report that became ready. `previousProfits`: the profit of the four weeks before it
 * (same seller, newest first), read only when needed. Never throws.
 */
export async function recordReportEvents(
  deps: RecordDeps,
  r: ReadyReport,
  previousProfits: () => Promise<number[]>,
  limitsState?: () => Promise<LimitsState | null>,
): Promise<void> {
  const url = deps.appUrl();
  const facts = { realization: r.realization, profit: r.profit, payout: r.payout, margin: r.margin };
  await recordEvent(deps, {
    userId: r.userId,
    kind: 'report_ready',
    key: `report_ready:${r.reportId}`,
    ...reportReadyMessage(url, r),
    facts,
  });
  if (r.penalties !== 0 || r.deductions !== 0) {
    await recordEvent(deps, {
      userId: r.userId,
      kind: 'penalties',
      key: `penalties:${r.reportId}`,
      ...penaltiesMessage(url, r, r.penalties, r.deductions),
      facts: { penalties: r.penalties, deductions: r.deductions },
    });
  }
  if (r.mismatch !== null && r.mismatch !== 0) {
    await recordEvent(deps, {
      userId: r.userId,
      kind: 'reconciliation_mismatch',
      key: `reconciliation_mismatch:${r.reportId}`,
      ...mismatchMessage(url, r, r.mismatch),
      facts: { difference: r.mismatch },
    });
  }
  if (r.bankPayment > 0 && r.periodFrom && r.periodTo) {
    // When WB's money for the week is due (the payout calendar's dated rules, shared/cashflow).
    const [p] = payoutCalendar(
      [
        {
          report_id: r.reportId,
          wb_report_id: null,
          period_from: r.periodFrom,
          period_to: r.periodTo,
          amount: r.bankPayment,
        },
      ],
      { today: deps.clock.now().toISOString().slice(0, 10), balances: [] },
    );
    if (p && p.status !== 'paid')
      await recordEvent(deps, {
        userId: r.userId,
        kind: 'payout',
        key: `payout:${r.reportId}`,
        ...payoutExpectedMessage(url, r, {
          amount: r.bankPayment,
          approvedDate: p.approved_date,
          expectedDate: p.expected_date,
        }),
        facts: { amount: r.bankPayment },
      });
  }
  try {
    const settings = withDefaults(await deps.store.getSettings(r.userId));
    const previous = await previousProfits();
    const drop = profitDrop(r.profit, previous, settings.profit_drop_percent);
    if (drop !== null) {
      const average = Math.round(previous.slice(0, 4).reduce((a, b) => a + b, 0) / Math.min(4, previous.length));
      await recordEvent(deps, {
        userId: r.userId,
        kind: 'profit_drop',
        key: `profit_drop:${r.reportId}`,
        ...profitDropMessage(url, r, average, drop),
        facts: { profit: r.profit, average, drop_percent: drop },
      });
    }
  } catch (err) {
    log('error', 'profit drop not checked', { report_id: r.reportId, ...describeError(err) });
  }
  if (!limitsState) return;
  try {
    const state = await limitsState();
    const low = state ? limitsLow(state.remaining, state.weeklyRows) : null;
    if (state && low) {
      // Once a week at most: the key names the ISO week of the report that found it.
      await recordEvent(deps, {
        userId: r.userId,
        kind: 'limits_low',
        key: `limits_low:${isoWeek(deps.clock.now().getTime())}`,
        ...limitsLowMessage(url, state.remaining, low.average),
        facts: { remaining: state.remaining, average: low.average },
      });
    }
  } catch (err) {
    log('error', 'limits not checked', { report_id: r.reportId, ...describeError(err) });
  }
}

/** What the arrival check reads: the account's reports (their payouts) and its balance history. */
export interface ArrivalInput {
  userId: string;
  reports: readonly PayoutReport[];
  balances: readonly BalancePoint[];
  /** ISO time of the account's very first reading (payout-calendar `historyFrom`). */
  historyFrom: string | null;
}

/**
 * The payouts WB's balance history shows arrived (`payout_paid:<report id>`, kind `payout`): each one the
 * payout calendar marks paid by a rise of «Можно вывести» (`balance_rise`), told once. One paid before the
 * history began (`before_history`) is not told: nothing shows when it came. Returns the events newly
 * recorded; never throws.
 */
export async function recordPayoutArrivals(deps: RecordDeps, input: ArrivalInput): Promise<number> {
  const url = deps.appUrl();
  let fresh = 0;
  try {
    const calendar = payoutCalendar(input.reports, {
      today: deps.clock.now().toISOString().slice(0, 10),
      balances: input.balances,
      historyFrom: input.historyFrom,
    });
    for (const p of calendar) {
      if (p.paid_by !== 'balance_rise' || p.paid_on === null) continue;
      const told = await recordEvent(deps, {
        userId: input.userId,
        kind: 'payout',
        key: `payout_paid:${p.report_id}`,
        ...payoutArrivedMessage(
          url,
          { periodFrom: p.period_from, periodTo: p.period_to },
          { amount: p.amount, paidOn: p.paid_on, expectedDate: p.expected_date },
        ),
        facts: { amount: p.amount, paid_on: p.paid_on },
      });
      if (told) fresh++;
    }
  } catch (err) {
    log('error', 'payout arrivals not checked', { user_id: input.userId, ...describeError(err) });
  }
  return fresh;
}
