/**
 * The cash flow (docs/API.md: GET /api/cash-flow; docs/METRICS.md, «Cash flow»): when WB's money
 * arrives and what goes out, by month, with the next 8 weeks and the USN payments by their due dates.
 * The P&L's own numbers are taken as they are (computeUserPnl: the counted reports, each month's own
 * per-unit costs, period costs and USN); to them come the payouts by their payout day
 * (payout-calendar.ts), the purchases by their day and WB's balance as the sync last read it.
 * Takes its dependencies first (CashFlowDeps); no AWS, no HTTP. Money leaves in roubles.
 */
import type { Clock } from '../deps';
import { kopecksToRoubles } from '../engine/fields';
import { monthsOf } from '../engine/pnl';
import type { CashFlow } from '../contract/cashflow-shapes';
import type { BalanceRecord } from '../store/wb-balance.repo';
import type { WbConnectionRecord } from '../store/wb-connections.repo';
import type { PurchaseRecord } from '../store/purchases.repo';
import type { PeriodCostRecord } from '../store/period-costs.repo';
import { checkMonths, computeUserPnl, MAX_PNL_MONTHS, type PnlDeps } from '../pnl/pnl';
import {
  addDays,
  balancePoint,
  isoWeekday,
  PAYOUT_RULES,
  payoutAmount,
  payoutCalendar,
  type PayoutReport,
} from './payout-calendar';

export interface CashFlowDeps {
  pnl: PnlDeps;
  purchases: { listPurchases(userId: string): Promise<PurchaseRecord[]> };
  balances: {
    latestBalances(userId: string): Promise<BalanceRecord[]>;
    balancesSince(userId: string, fromIso: string): Promise<{ readings: BalanceRecord[]; firstAt: string | null }>;
  };
  connections: { listConnections(userId: string): Promise<WbConnectionRecord[]> };
  clock: Clock;
}

type User = Parameters<typeof computeUserPnl>[1];

/** Weeks of the forecast. */
export const FORECAST_WEEKS = 8;

const LINES = [
  { key: 'payouts', title: 'Выплаты WB', sign: 1 },
  { key: 'own_costs', title: 'Свои расходы на единицу товара (по продажам)', sign: -1 },
  { key: 'period_costs', title: 'Расходы периода', sign: -1 },
  { key: 'purchases', title: 'Закупки товара', sign: -1 },
  { key: 'usn', title: 'УСН (авансы и налог за год)', sign: -1 },
] as const;
type LineKey = (typeof LINES)[number]['key'];

const monthOf = (day: string) => day.slice(0, 7);
const lastDay = (month: string) => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
};
const daysIn = (month: string) => Number(lastDay(month).slice(8, 10));
const minMonth = (a: string, b: string) => (a < b ? a : b);
const maxMonth = (a: string, b: string) => (a > b ? a : b);

/** `month` plus `n` months. */
function addMonths(month: string, n: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const i = y * 12 + (m - 1) + n;
  return `${Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`;
}

/**
 * The USN payments of year `year` by their legal due dates (Tax Code art. 346.21, 346.23): the
 * advances for the 1st quarter, half-year and 9 months by 28 April, 28 July and 28 October; the year's
 * balance by 28 April of the next year (individual entrepreneurs; organisations pay by 28 March).
 * Each is the P&L's USN of its quarter's months (the advances are cumulative less what was paid, so the
 * quarter's part).
 */
function usnDues(
  year: number,
): Array<{ due_date: string; kind: 'usn_advance' | 'usn_year'; period: string; months: string[] }> {
  const q = (n: number) => [1, 2, 3].map((i) => `${year}-${String((n - 1) * 3 + i).padStart(2, '0')}`);
  return [
    { due_date: `${year}-04-28`, kind: 'usn_advance', period: `${year}-Q1`, months: q(1) },
    { due_date: `${year}-07-28`, kind: 'usn_advance', period: `${year}-Q2`, months: q(2) },
    { due_date: `${year}-10-28`, kind: 'usn_advance', period: `${year}-Q3`, months: q(3) },
    { due_date: `${year + 1}-04-28`, kind: 'usn_year', period: `${year}-Q4`, months: q(4) },
  ];
}

/** The P&L over months `from`..`to` of any length: chunks of the P&L's longest range, merged. */
async function pnlOver(deps: PnlDeps, user: User, from: string, to: string, sellerId: string | undefined) {
  const usn = new Map<string, number>();
  const own = new Map<string, number>();
  const period = new Map<string, number>();
  const counted = new Map<string, { period_from: string; period_to: string }>();
  for (let start = from; start <= to; start = addMonths(start, MAX_PNL_MONTHS)) {
    const end = minMonth(addMonths(start, MAX_PNL_MONTHS - 1), to);
    const { result } = await computeUserPnl(deps, user, {
      from: start,
      to: end,
      ...(sellerId ? { seller_id: sellerId } : {}),
    });
    for (const m of result.months) {
      usn.set(m.month, m.lines.usn ?? 0);
      own.set(m.month, m.lines.own_costs ?? 0);
      period.set(m.month, m.lines.period_costs ?? 0);
    }
    for (const s of result.sources) counted.set(s.report_id, { period_from: s.period_from, period_to: s.period_to });
  }
  return { usn, own, period, counted };
}

/** Monday of the week of `day`. */
const weekStart = (day: string) => addDays(day, 1 - isoWeekday(day));

/** A monthly cost's kopecks that fall on `day` (its month's amount over the month's days, to the kopeck by day). */
function monthlyCostOnDays(c: PeriodCostRecord, from: string, to: string): number {
  let sum = 0;
  for (let d = from; d <= to; d = addDays(d, 1)) {
    const m = monthOf(d);
    if (c.from_month === null || m < c.from_month || (c.to_month !== null && m > c.to_month)) continue;
    const n = daysIn(m);
    const day = Number(d.slice(8, 10));
    // The month's amount split by days: day k gets floor(k·A/n) − floor((k−1)·A/n), summing to A exactly.
    sum += Math.floor((day * c.amount) / n) - Math.floor(((day - 1) * c.amount) / n);
  }
  return sum;
}

type BalanceNote = CashFlow['balance_status']['notes'][number];

/** Why WB's balance is not read, per connection (docs/METRICS.md «WB's balance»), in the seller's words. */
export function balanceStatus(
  connections: readonly WbConnectionRecord[],
  sellerId?: string,
): CashFlow['balance_status'] {
  const mine = connections.filter((c) => !sellerId || c.seller_id === sellerId);
  if (mine.length === 0) {
    return {
      connected: 0,
      notes: [
        {
          wb_seller_id: null,
          code: 'wb_not_connected',
          message:
            'WB не подключён: баланс читается из API WB по токену с категорией «Финансы» (Настройки → «Подключение WB»). Выплаты и движение денег считаются по загруженным отчётам и без него.',
          at: null,
        },
      ],
    };
  }
  const notes: BalanceNote[] = [];
  for (const c of mine) {
    const who = c.seller_name ? `«${c.seller_name}» (${c.wb_seller_id})` : c.wb_seller_id;
    if (c.status !== 'active' || c.cursor.phase === 'blocked') {
      notes.push({
        wb_seller_id: c.wb_seller_id,
        code: 'wb_connection_stopped',
        message: `Подключение WB ${who} остановлено${c.error ? ` (${c.error.message})` : ''}: баланс не читается.`,
        at: null,
      });
    } else if (c.balance?.error) {
      const e = c.balance.error;
      notes.push({ wb_seller_id: c.wb_seller_id, code: e.code, message: `WB ${who}: ${e.message}`, at: e.at });
    } else if (!c.balance?.read_at) {
      notes.push({
        wb_seller_id: c.wb_seller_id,
        code: 'wb_balance_pending',
        message: `Баланс WB ${who} ещё не прочитан: синхронизация запросит его в ближайшие минуты.`,
        at: null,
      });
    }
  }
  return { connected: mine.length, notes };
}

export async function getCashFlow(
  deps: CashFlowDeps,
  user: User,
  q: { from: string; to: string; seller_id?: string },
): Promise<CashFlow> {
  checkMonths(q.from, q.to);
  const sellerId = q.seller_id ?? null;
  const today = deps.clock.now().toISOString().slice(0, 10);
  const forecastFrom = weekStart(today);
  const forecastTo = addDays(forecastFrom, FORECAST_WEEKS * 7 - 1);
  const years = [Number(q.from.slice(0, 4)) - 1, Number(today.slice(0, 4)) - 1];
  // Months whose reports and USN the answer needs: a year and a quarter before the range (the year's
  // balance due in April), the reports whose payouts land in the range or in the forecast.
  const spanFrom = minMonth(`${Math.min(...years)}-10`, monthOf(addDays(today, -70)));
  const spanTo = maxMonth(q.to, monthOf(forecastTo));
  // The balance history from a few days before the first payout day shown (the rises that mark them paid).
  const shownFrom = `${q.from}-01` < forecastFrom ? `${q.from}-01` : forecastFrom;
  const historyFrom = `${addDays(shownFrom, -3)}T00:00:00.000Z`;
  const [pnl, heads, purchases, balances, history, connections, costs] = await Promise.all([
    pnlOver(deps.pnl, user, spanFrom, spanTo, q.seller_id),
    deps.pnl.reports.listReportTotals(user.id),
    deps.purchases.listPurchases(user.id),
    deps.balances.latestBalances(user.id),
    deps.balances.balancesSince(user.id, historyFrom),
    deps.connections.listConnections(user.id),
    deps.pnl.costs.listPeriodCosts(user.id),
  ]);

  // The payouts of the counted reports.
  const headById = new Map(heads.map((h) => [h.id, h]));
  const sources = new Map<string, 'wb_bank_payment' | 'report_payout'>();
  const reports: PayoutReport[] = [];
  for (const [id, s] of pnl.counted) {
    const h = headById.get(id);
    if (!h) continue;
    sources.set(id, h.wb_bank_payment != null ? 'wb_bank_payment' : 'report_payout');
    reports.push({
      report_id: id,
      wb_report_id: h.wb_report_id ?? null,
      period_from: s.period_from,
      period_to: s.period_to,
      amount: payoutAmount(h.wb_bank_payment, h.totals),
    });
  }
  // One reading per WB account: the newest. For one seller, only the WB accounts connected for it.
  const accounts = new Set(connections.filter((c) => c.seller_id === q.seller_id).map((c) => c.wb_seller_id));
  const ours = (b: BalanceRecord) => !q.seller_id || accounts.has(b.wb_seller_id);
  const latest = new Map<string, BalanceRecord>();
  for (const b of balances) if (ours(b) && !latest.has(b.wb_seller_id)) latest.set(b.wb_seller_id, b);
  const calendar = payoutCalendar(reports, {
    today,
    balances: history.readings.filter(ours).map(balancePoint),
    historyFrom: history.firstAt,
  });

  const rangeFrom = `${q.from}-01`;
  const rangeTo = lastDay(q.to);
  const mine = <T extends { seller_id: string | null }>(x: T) => sellerId === null || x.seller_id === sellerId;
  const ownPurchases = purchases.filter(mine);
  const ownCosts = costs.filter(mine);

  // USN by due date.
  const dueYears = new Set<number>();
  for (let y = Number(spanFrom.slice(0, 4)); y <= Number(spanTo.slice(0, 4)); y++) dueYears.add(y);
  const dues = [...dueYears]
    .flatMap(usnDues)
    .filter(
      (d) =>
        (d.due_date >= rangeFrom && d.due_date <= rangeTo) || (d.due_date >= forecastFrom && d.due_date <= forecastTo),
    )
    .map((d) => ({ ...d, amount: d.months.reduce((s, m) => s + (pnl.usn.get(m) ?? 0), 0) }))
    .filter((d) => d.amount !== 0)
    .sort((a, b) => (a.due_date < b.due_date ? -1 : 1));

  // Months.
  let position = 0;
  const months = monthsOf(q.from, q.to).map((month) => {
    const v: Record<LineKey, number> = {
      payouts: calendar.filter((p) => monthOf(p.expected_date) === month).reduce((s, p) => s + p.amount, 0),
      own_costs: pnl.own.get(month) ?? 0,
      period_costs: pnl.period.get(month) ?? 0,
      purchases: ownPurchases.filter((p) => monthOf(p.date) === month).reduce((s, p) => s + p.amount, 0),
      usn: dues.filter((d) => monthOf(d.due_date) === month).reduce((s, d) => s + d.amount, 0),
    };
    const inflow = v.payouts;
    const outflow = v.own_costs + v.period_costs + v.purchases + v.usn;
    position += inflow - outflow;
    return {
      month,
      inflow: kopecksToRoubles(inflow),
      outflow: kopecksToRoubles(outflow),
      net: kopecksToRoubles(inflow - outflow),
      position: kopecksToRoubles(position),
      lines: LINES.map((l) => ({ key: l.key, title: l.title, sign: l.sign, amount: kopecksToRoubles(v[l.key]) })),
    };
  });

  // The next weeks.
  const forecast = Array.from({ length: FORECAST_WEEKS }, (_, i) => {
    const start = addDays(forecastFrom, i * 7);
    const end = addDays(start, 6);
    const inWeek = (d: string) => d >= start && d <= end;
    const inflow = calendar
      .filter((p) => p.status !== 'paid' && inWeek(p.expected_date))
      .reduce((s, p) => s + p.amount, 0);
    let outflow = 0;
    for (const c of ownCosts)
      outflow += c.kind === 'monthly' ? monthlyCostOnDays(c, start, end) : c.date && inWeek(c.date) ? c.amount : 0;
    for (const p of ownPurchases) if (inWeek(p.date)) outflow += p.amount;
    for (const d of dues) if (inWeek(d.due_date)) outflow += d.amount;
    return { week_start: start, inflow: kopecksToRoubles(inflow), outflow: kopecksToRoubles(outflow) };
  });

  const shown = calendar.filter(
    (p) =>
      (p.expected_date >= rangeFrom && p.expected_date <= rangeTo) ||
      (p.expected_date >= forecastFrom && p.expected_date <= forecastTo),
  );
  // WB said the same later than the reading kept (an unchanged balance is kept once a day): its time.
  const readings = [...latest.values()].map((b) => {
    const c = connections.find((x) => x.wb_seller_id === b.wb_seller_id);
    const readAt = c?.balance?.read_at;
    return readAt && c.balance?.stored?.at === b.as_of && readAt > b.as_of ? { ...b, as_of: readAt } : b;
  });
  return {
    from: q.from,
    to: q.to,
    seller_id: sellerId,
    today,
    balance:
      readings.length === 0
        ? null
        : {
            currency: readings[0]!.currency,
            current: kopecksToRoubles(readings.reduce((s, b) => s + b.current, 0)),
            for_withdraw: kopecksToRoubles(readings.reduce((s, b) => s + b.for_withdraw, 0)),
            as_of: readings.map((b) => b.as_of).sort()[0]!,
            accounts: readings.length,
          },
    balance_status: balanceStatus(connections, q.seller_id),
    payouts: shown.map((p) => ({
      report_id: p.report_id,
      wb_report_id: p.wb_report_id,
      period_from: p.period_from,
      period_to: p.period_to,
      amount: kopecksToRoubles(p.amount),
      amount_source: sources.get(p.report_id) ?? 'report_payout',
      formed_date: p.formed_date,
      approved_date: p.approved_date,
      expected_date: p.expected_date,
      status: p.status,
      paid_by: p.paid_by,
      paid_on: p.paid_on,
    })),
    months,
    forecast,
    tax_calendar: dues.map((d) => ({
      due_date: d.due_date,
      kind: d.kind,
      period: d.period,
      amount: kopecksToRoubles(d.amount),
    })),
    rules: PAYOUT_RULES.map((r) => ({ ...r, payout_weekdays: [...r.payout_weekdays] })),
  };
}
