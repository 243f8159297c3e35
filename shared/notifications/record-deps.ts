/**
 * The composition of recording events (record.ts): the DynamoDB store and the real clock. Loaded by the
 * report worker and the WB sync, so it carries no mail client.
 */
import { getConfig } from '../config';
import { systemClock } from '../deps';
import { reconcile } from '../marketplaces/wb/finance/reconcile';
import { notificationStore } from '../store/notifications.repo';
import { listReports } from '../store/reports.repo';
import type { ReportRecord } from '../store/report-record';
import { getUserById } from '../store/users.repo';
import { listReportTotals } from '../store/report-totals.repo';
import { balancesSince } from '../store/wb-balance.repo';
import { describeError, log } from '../log';
import { balancePoint, payoutAmount } from '../cashflow/payout-calendar';
import { recordPayoutArrivals, recordReportEvents, type LimitsState, type RecordDeps } from './record';

export const recordDeps: RecordDeps = {
  store: notificationStore,
  clock: systemClock,
  appUrl: () => getConfig().APP_URL,
};

/** The profit of the (up to) four weekly reports of the same seller before `r`, newest first. */
async function previousProfits(r: ReportRecord): Promise<number[]> {
  if (!r.seller_id || !r.period_from) return [];
  const page = await listReports(r.user_id, { sellerId: r.seller_id, ready: true, limit: 20 });
  return page.items
    .filter((o) => o.id !== r.id && !o.is_combined && o.period_to !== null && o.period_to < (r.period_from as string))
    .sort((a, b) => (b.period_to as string).localeCompare(a.period_to as string))
    .slice(0, 4)
    .map((o) => Number(o.totals.profit ?? 0));
}

const WEEK_MS = 7 * 86_400_000;

/** WB's «Итого к оплате» of a synced week (its sums' bankPaymentSum), else the report's own payout. */
function bankPaymentOf(r: ReportRecord): number {
  const wb = (r.wb_sums as Record<string, unknown> | null | undefined)?.bankPaymentSum;
  return payoutAmount(
    typeof wb === 'number' && Number.isSafeInteger(wb) ? wb : null,
    r.totals as Record<string, number | null>,
  );
}

/**
 * The user's limits left and the rows their reports took in each of the last four weeks (by when each
 * report was made, newest week first; a combined report takes none).
 */
async function limitsState(userId: string, nowMs: number): Promise<LimitsState | null> {
  const user = await getUserById(userId);
  if (!user) return null;
  const page = await listReports(userId, { limit: 100 });
  const weeklyRows = [0, 0, 0, 0];
  for (const o of page.items) {
    if (o.is_combined) continue;
    const week = Math.floor((nowMs - Date.parse(o.created_at)) / WEEK_MS);
    if (week >= 0 && week < 4) weeklyRows[week]! += o.rows;
  }
  return { remaining: user.limits, weeklyRows };
}

/** The worker's port: a report became ready (records its events; never throws). */
export async function reportReadyEvents(r: ReportRecord): Promise<void> {
  const t = r.totals as Record<string, number | null>;
  const realization = Number(t.realization ?? 0);
  const profit = Number(t.profit ?? 0);
  const rec = r.wb_sums ? reconcile(r.totals, r.wb_sums) : null;
  const mismatch = rec?.status === 'mismatch' ? rec.fields.reduce((a, f) => a + Math.abs(f.diff), 0) : null;
  await recordReportEvents(
    recordDeps,
    {
      userId: r.user_id,
      reportId: r.id,
      sellerId: r.seller_id,
      title: r.title,
      periodFrom: r.period_from,
      periodTo: r.period_to,
      realization,
      profit,
      payout: Number(t.payout ?? 0),
      margin: realization !== 0 ? Math.round((profit / realization) * 1000) / 10 : null,
      penalties: Number(t.penalties ?? 0),
      deductions: Number(t.deductions ?? 0),
      mismatch,
      bankPayment: bankPaymentOf(r),
    },
    () => previousProfits(r),
    () => limitsState(r.user_id, recordDeps.clock.now().getTime()),
  );
}

const DAY_MS = 86_400_000;
/** The balance history the arrival check reads, and the weeks whose payouts it may find in it. */
const ARRIVAL_HISTORY_DAYS = 40;
const ARRIVAL_WEEKS_DAYS = 75;

/**
 * The sync's port: WB's balance was just read for a connection, at `now` (the step's clock). Records the
 * payouts of the connection's seller that the balance shows arrived (record.ts recordPayoutArrivals);
 * never throws.
 */
export async function payoutArrivalEvents(
  c: { user_id: string; seller_id: string | null; wb_seller_id: string },
  now: number,
): Promise<void> {
  try {
    const weeksFrom = new Date(now - ARRIVAL_WEEKS_DAYS * DAY_MS).toISOString().slice(0, 10);
    const [heads, history] = await Promise.all([
      listReportTotals(c.user_id),
      balancesSince(c.user_id, new Date(now - ARRIVAL_HISTORY_DAYS * DAY_MS).toISOString()),
    ]);
    const reports = heads
      .filter((h) => h.status === 'ready' && !h.is_combined && h.seller_id === c.seller_id)
      .flatMap((h) =>
        h.period_from && h.period_to && h.period_to >= weeksFrom
          ? [
              {
                report_id: h.id,
                wb_report_id: h.wb_report_id ?? null,
                period_from: h.period_from,
                period_to: h.period_to,
                amount: payoutAmount(h.wb_bank_payment, h.totals),
              },
            ]
          : [],
      );
    if (reports.length === 0) return;
    await recordPayoutArrivals(
      { ...recordDeps, clock: { now: () => new Date(now) } },
      {
        userId: c.user_id,
        reports,
        balances: history.readings.filter((b) => b.wb_seller_id === c.wb_seller_id).map(balancePoint),
        historyFrom: history.firstAt,
      },
    );
  } catch (err) {
    log('error', 'payout arrivals not checked', { user_id: c.user_id, ...describeError(err) });
  }
}
