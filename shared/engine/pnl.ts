/**
 * The month's P&L (docs/METRICS.md, «P&L by month»), the pure part: which reports count (each week
 * once: engine/analytics selectReports), each report's totals taken into lines, a report whose days
 * straddle two months split between them by its days, the seller's period costs by month, net profit
 * and margin. Money in kopecks; months `YYYY-MM`. No AWS, no HTTP.
 *
 * The lines are ONE declarative list (PNL_LINES): a line reads the report totals (effective values,
 * fields of engine/fields.ts) and enters net profit with its sign. Adding a line is one entry.
 */
import { percentOf } from './derive';
import { FIELD_BY_NAME, type FieldName } from './fields';
import { addDays, daysInclusive, selectReports, type ReportInfo } from './analytics/compute';

// ---------------------------------------------------------------------------------------------
// Lines

/** The report totals as the lines read them: any field of engine/fields.ts, 0 when absent or null. */
type Totals = Readonly<Record<string, number>>;

export interface PnlLine {
  key: string;
  /** Russian title (the page, the export). */
  title: string;
  /** How the line enters net profit: +1 income, −1 expense, 0 for reference only (not added). */
  sign: 1 | -1 | 0;
  /** The line's value from a report's totals (kopecks; an expense as a positive amount). */
  value: (t: Totals) => number;
}

const line = (key: string, title: string, sign: 1 | -1 | 0, value: (t: Totals) => number): PnlLine => ({
  key,
  title,
  sign,
  value,
});

/**
 * The report lines, top to bottom. Their signed sum is the reports' profit (docs/METRICS.md, Derived
 * values: profit = income − vat − usn − expenses − allocated_expenses + additional_payments, and
 * Σ allocated_expenses = 0 in a report); whatever a manual value of a derived field (profit, vat, usn)
 * moves beyond that is the line `adjustments`.
 */
/** A field's title (fields.ts): the P&L line that is the report's field carries the report's name. */
const titleOf = (field: FieldName): string => FIELD_BY_NAME.get(field)!.title;

export const PNL_LINES: readonly PnlLine[] = [
  line('revenue', 'Выручка (реализация)', 1, (t) => t.realization!),
  line('returns', 'в т. ч. возвраты по цене продавца (справочно)', 0, (t) => t.sales_seller_price! - t.seller_price!),
  line('compensations', 'Компенсации и доплаты WB', 1, (t) => t.compensations! + t.additional_payments!),
  // One name each, as on the report and in the exports: WB's commission (ВВ with VAT, as the report
  // withholds it, WB's rounding included) and the attorney services (the pickup points' reward).
  line(
    'commission',
    titleOf('commission'),
    -1,
    (t) => t.realization! - t.for_pay! - t.acquiring! - t.attorney_services!,
  ),
  line('attorney_services', titleOf('attorney_services'), -1, (t) => t.attorney_services!),
  // Acquiring inside for_pay and acquiring WB bills separately (payment type «Комиссия за организацию платежа»).
  line('acquiring', 'Эквайринг', -1, (t) => t.acquiring! + t.acquiring_billed!),
  line('logistics', 'Логистика', -1, (t) => t.logistics! + t.reverse_logistics!),
  // WB nets the rebill in its own reward on the same row: no money of its own, shown for reference.
  line('rebill', 'Ребилл логистики, зачтён в вознаграждении ВБ (справочно)', 0, (t) => t.rebill_logistics!),
  line('storage', 'Хранение', -1, (t) => t.storage!),
  line('acceptance', 'Платная приёмка', -1, (t) => t.acceptance!),
  line('ads', 'Реклама', -1, (t) => t.ads!),
  line('penalties', 'Штрафы и удержания', -1, (t) => t.penalties! + t.deductions!),
  // Loyalty as WB states it is money to the seller; as a P&L expense it is its opposite.
  line('loyalty', 'Программа лояльности', -1, (t) => -t.loyalty!),
  line('cost_of_goods', 'Себестоимость товаров', -1, (t) => t.cost_total!),
  line('own_costs', 'Свои расходы на единицу товара', -1, (t) => t.own_costs ?? 0),
  line('vat', 'НДС', -1, (t) => t.vat!),
  line('usn', 'УСН', -1, (t) => t.usn!),
];

/** The line of the period costs (from the seller's own list, not from the reports). */
const PERIOD_COSTS_LINE = { key: 'period_costs', title: 'Расходы периода', sign: -1 } as const;
/** What manual values of derived fields move (profit, VAT, USN corrected by hand), so the lines add up. */
const ADJUSTMENTS_LINE = { key: 'adjustments', title: 'Ручные правки отчётов', sign: 1 } as const;

/** Every line in the order of the statement (the page and the export). */
export const PNL_LINE_ORDER: ReadonlyArray<{ key: string; title: string; sign: 1 | -1 | 0 }> = [
  ...PNL_LINES.slice(0, -2),
  PERIOD_COSTS_LINE,
  ...PNL_LINES.slice(-2),
  ADJUSTMENTS_LINE,
];

/** A report's lines (kopecks) with `adjustments` = its profit − the signed sum of its lines. */
export function reportLines(totals: Readonly<Record<string, number | null | undefined>>): Record<string, number> {
  const t: Record<string, number> = new Proxy(totals as Record<string, number>, {
    get: (o, k: string) => {
      const v = o[k] as unknown;
      return typeof v === 'number' && Number.isFinite(v) ? v : 0;
    },
  });
  const out: Record<string, number> = {};
  let signed = 0;
  for (const l of PNL_LINES) {
    const v = l.value(t);
    out[l.key] = v;
    signed += l.sign * v;
  }
  out[ADJUSTMENTS_LINE.key] = t.profit! - signed;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Months and days

export const isMonth = (m: string): boolean => /^\d{4}-(0[1-9]|1[0-2])$/.test(m);

export function monthsOf(from: string, to: string): string[] {
  const out: string[] = [];
  let y = Number(from.slice(0, 4));
  let m = Number(from.slice(5, 7));
  for (;;) {
    const cur = `${y}-${String(m).padStart(2, '0')}`;
    if (cur > to) break;
    out.push(cur);
    if (++m > 12) {
      m = 1;
      y++;
    }
  }
  return out;
}

const monthStart = (month: string): string => `${month}-01`;
function monthEnd(month: string): string {
  const y = Number(month.slice(0, 4));
  const m = Number(month.slice(5, 7));
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

/** The days of [from, to] in each month they touch, in order. */
export function daysByMonth(from: string, to: string): Array<{ month: string; days: number }> {
  const out: Array<{ month: string; days: number }> = [];
  let d = from;
  while (d <= to) {
    const month = d.slice(0, 7);
    const end = monthEnd(month) < to ? monthEnd(month) : to;
    out.push({ month, days: daysInclusive(d, end) });
    d = addDays(end, 1);
  }
  return out;
}

/**
 * `value` split by `weights` to the kopeck (largest remainder method): the parts add up to `value`
 * exactly, each is value·weight/Σweights rounded, the leftover kopecks to the largest remainders
 * (ties to the earlier part).
 */
export function splitByWeights(value: number, weights: readonly number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  if (total <= 0 || weights.length === 0) return weights.map((_, i) => (i === 0 ? value : 0));
  const sign = value < 0 ? -1 : 1;
  const abs = Math.abs(value);
  const exact = weights.map((w) => (abs * w) / total);
  const parts = exact.map((x) => Math.floor(x));
  let left = abs - parts.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (let k = 0; left > 0; k = (k + 1) % order.length, left--) parts[order[k]!.i]!++;
  return parts.map((p) => sign * p + 0);
}

// ---------------------------------------------------------------------------------------------
// Period costs

export type PeriodCostCategory = 'salaries' | 'rent' | 'services' | 'other';
export const PERIOD_COST_CATEGORY_TITLES: Readonly<Record<PeriodCostCategory, string>> = {
  salaries: 'Зарплаты',
  rent: 'Аренда',
  services: 'Услуги',
  other: 'Прочее',
};

/** A seller's cost outside the reports: a monthly amount (from a month, optionally to one) or a one-off. */
export type PeriodCost = {
  id: string;
  name: string;
  category: PeriodCostCategory;
  /** Kopecks (per month for a monthly cost). */
  amount: number;
} & ({ kind: 'monthly'; from_month: string; to_month: string | null } | { kind: 'one_off'; date: string });

/** What a cost adds to `month` (kopecks). */
export function costInMonth(c: PeriodCost, month: string): number {
  if (c.kind === 'one_off') return c.date.slice(0, 7) === month ? c.amount : 0;
  return month >= c.from_month && (c.to_month === null || month <= c.to_month) ? c.amount : 0;
}

// ---------------------------------------------------------------------------------------------
// The statement

export interface PnlReport extends ReportInfo {
  /** The report's totals (effective values, kopecks). */
  totals: Readonly<Record<string, number | null | undefined>>;
}

export interface PnlInput {
  from: string;
  to: string;
  reports: ReadonlyArray<PnlReport>;
  costs: ReadonlyArray<PeriodCost>;
}

interface PnlMonthSource {
  report_id: string;
  /** Days of the report in this month. */
  days: number;
  /** The part of the report taken into this month (days in it / the report's days), percent. */
  share: number;
}

interface PnlMonth {
  month: string;
  /** Every line of PNL_LINE_ORDER (kopecks; expenses as positive amounts). */
  lines: Record<string, number>;
  net_profit: number;
  /** net_profit / revenue · 100; null when revenue ≤ 0. */
  margin: number | null;
  /** The reports that make this month and the share of each. */
  reports: PnlMonthSource[];
  period_costs: Array<{ id: string; name: string; category: PeriodCostCategory; amount: number }>;
  /** Days of the month covered by a counted report. */
  covered_days: number;
  days: number;
  /** The income of the USN base (income = realization + compensations) of this month, for the thresholds. */
  income: number;
}

interface PnlWarning {
  code: 'duplicate_report' | 'report_processing' | 'stale_report' | 'shared_days' | 'month_not_covered';
  message: string;
  details: Record<string, unknown>;
}

export interface PnlResult {
  from: string;
  to: string;
  months: PnlMonth[];
  totals: Omit<PnlMonth, 'month' | 'reports' | 'period_costs' | 'covered_days' | 'days'> & {
    covered_days: number;
    days: number;
  };
  /** The counted reports and how each was split over the months. */
  sources: Array<{
    report_id: string;
    title: string;
    period_from: string;
    period_to: string;
    split: Array<{ month: string; days: number; share: number }>;
  }>;
  warnings: PnlWarning[];
}

const dmy = (d: string): string => `${d.slice(8, 10)}.${d.slice(5, 7)}.${d.slice(0, 4)}`;
const label = (r: Pick<ReportInfo, 'title' | 'period_from' | 'period_to'>): string =>
  `«${r.title}» за ${dmy(r.period_from ?? '')}–${dmy(r.period_to ?? '')}`;

const emptyLines = (): Record<string, number> => Object.fromEntries(PNL_LINE_ORDER.map((l) => [l.key, 0]));

function finish(lines: Record<string, number>): { net_profit: number; margin: number | null } {
  let net = 0;
  for (const l of PNL_LINE_ORDER) net += l.sign * (lines[l.key] ?? 0);
  const revenue = lines.revenue ?? 0;
  return { net_profit: net, margin: revenue > 0 ? percentOf(net, revenue) : null };
}

/** The report's part of its income (the USN base: realization + compensations), kopecks. */
const incomeOf = (t: PnlReport['totals']): number => {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return n(t.income ?? n(t.realization) + n(t.compensations));
};

/**
 * The P&L of months `from`..`to`. A counted report touching the range contributes to each month of the
 * range the share of its days that fall in it (every line split to the kopeck, the parts adding up to
 * the report's figure); its days outside the range are not counted. Period costs add to their months.
 */
export function computePnl(input: PnlInput): PnlResult {
  const months = monthsOf(input.from, input.to);
  const rangeFrom = monthStart(input.from);
  const rangeTo = monthEnd(input.to);
  const warnings: PnlWarning[] = [];
  const { counted, duplicates, processing } = selectReports(input.reports);
  const byId = new Map(input.reports.map((r) => [r.id, r]));

  const touching = (r: ReportInfo) => (r.period_from as string) <= rangeTo && (r.period_to as string) >= rangeFrom;
  const out = new Map<string, PnlMonth>(
    months.map((m) => [
      m,
      {
        month: m,
        lines: emptyLines(),
        net_profit: 0,
        margin: null,
        reports: [],
        period_costs: [],
        covered_days: 0,
        days: daysInclusive(monthStart(m), monthEnd(m)),
        income: 0,
      },
    ]),
  );
  const covered = new Map<string, Set<string>>(months.map((m) => [m, new Set()]));
  const sources: PnlResult['sources'] = [];

  const reports = counted
    .filter(touching)
    .sort((a, b) => ((a.period_from as string) < (b.period_from as string) ? -1 : 1));
  for (const info of reports) {
    const r = byId.get(info.id) as PnlReport;
    const from = r.period_from as string;
    const to = r.period_to as string;
    const parts = daysByMonth(from, to);
    const weights = parts.map((p) => p.days);
    const total = daysInclusive(from, to);
    const lines = reportLines(r.totals);
    const split: Record<string, number[]> = {};
    for (const [k, v] of Object.entries(lines)) split[k] = splitByWeights(v, weights);
    const income = splitByWeights(incomeOf(r.totals), weights);
    const splitOut: PnlResult['sources'][number]['split'] = [];
    parts.forEach((p, i) => {
      const share = Math.round((p.days / total) * 10_000) / 100;
      splitOut.push({ month: p.month, days: p.days, share });
      const m = out.get(p.month);
      if (!m) return; // outside the range
      for (const k of Object.keys(split)) m.lines[k] = (m.lines[k] ?? 0) + split[k]![i]!;
      m.income += income[i]!;
      m.reports.push({ report_id: r.id, days: p.days, share });
    });
    for (let d = from < rangeFrom ? rangeFrom : from; d <= to && d <= rangeTo; d = addDays(d, 1))
      covered.get(d.slice(0, 7))?.add(d);
    sources.push({ report_id: r.id, title: r.title, period_from: from, period_to: to, split: splitOut });
  }

  for (const c of input.costs)
    for (const m of months) {
      const v = costInMonth(c, m);
      if (v === 0) continue;
      const pm = out.get(m)!;
      pm.lines[PERIOD_COSTS_LINE.key] = (pm.lines[PERIOD_COSTS_LINE.key] ?? 0) + v;
      pm.period_costs.push({ id: c.id, name: c.name, category: c.category, amount: v });
    }

  const totalLines = emptyLines();
  let totalIncome = 0;
  let coveredDays = 0;
  let days = 0;
  for (const m of out.values()) {
    Object.assign(m, finish(m.lines));
    m.covered_days = covered.get(m.month)!.size;
    for (const k of Object.keys(totalLines)) totalLines[k] = totalLines[k]! + (m.lines[k] ?? 0);
    totalIncome += m.income;
    coveredDays += m.covered_days;
    days += m.days;
  }

  // Warnings: what was left out, and what the figures cannot show.
  for (const d of duplicates) {
    if (!touching(d.report)) continue;
    warnings.push({
      code: 'duplicate_report',
      message: d.inside
        ? `Строки отчёта ${label(d.report)} все есть в отчёте ${label(d.kept)}: учтены один раз`
        : `Отчёт ${label(d.report)} — копия отчёта ${label(d.kept)}: учтён один раз`,
      details: { report_id: d.report.id, kept_report_id: d.kept.id },
    });
  }
  for (const p of processing) {
    if (!p.period_from || !p.period_to || touching(p))
      warnings.push({
        code: 'report_processing',
        message: `Отчёт «${p.title}» ещё обрабатывается и не учтён`,
        details: { report_id: p.id },
      });
  }
  for (const r of reports.filter((x) => x.stale))
    warnings.push({
      code: 'stale_report',
      message: `Отчёт ${label(r)} посчитан со старыми настройками: пересоберите его`,
      details: { report_id: r.id },
    });
  // Two counted reports sharing the rows of a day (neither inside the other) count those rows twice.
  for (let i = 0; i < reports.length; i++)
    for (let j = i + 1; j < reports.length; j++) {
      const a = reports[i]!.days;
      const b = reports[j]!.days;
      if (!a || !b) continue;
      const shared = Object.keys(a).filter((d) => d !== '-' && d !== '*' && a[d] === b[d]);
      if (shared.length > 0)
        warnings.push({
          code: 'shared_days',
          message: `Отчёты ${label(reports[i]!)} и ${label(reports[j]!)} содержат одни и те же строки за ${shared.length} дн.: эти строки учтены дважды. Удалите лишний отчёт.`,
          details: { report_ids: [reports[i]!.id, reports[j]!.id], days: shared.sort() },
        });
    }
  for (const m of out.values())
    if (m.covered_days < m.days)
      warnings.push({
        code: 'month_not_covered',
        message: `За ${m.month.slice(5, 7)}.${m.month.slice(0, 4)} отчёты есть за ${m.covered_days} из ${m.days} дн.`,
        details: { month: m.month, covered_days: m.covered_days, days: m.days },
      });

  return {
    from: input.from,
    to: input.to,
    months: [...out.values()],
    totals: { lines: totalLines, ...finish(totalLines), income: totalIncome, covered_days: coveredDays, days },
    sources,
    warnings,
  };
}
