/**
 * Period analytics, the pure part (docs/API.md: GET /api/analytics): which reports count, weeks, totals,
 * the previous range with % changes, ABC and margin groups, warnings. Money in kopecks here; the use
 * case turns it into roubles. No AWS, no HTTP.
 *
 * Rules:
 * - a report counts when it is ready, not combined (its sources count), has a period, and its period
 *   lies inside the range (period_from ≥ from and period_to ≤ to);
 * - each report identity counts once: the newest (created_at, then id) of the same identity (the same
 *   rows in another file are one identity: identity.ts);
 * - a report whose rows are all inside another counted report (every sale day of it has the same rows
 *   there: a daily report inside a weekly one) does not count: its rows are counted once, in the other;
 * - a report belongs to the Monday–Sunday week of its period_from;
 * - ABC (per value): articles with an article code ranked by the value descending, ties by article
 *   code ascending; A when the share of the positive total held by the articles ranked above it is
 *   below 80 %, B below 95 %, else C; a value ≤ 0 is C. The article without a code gets no letter;
 * - margin group: high ≥ 20 %, low 0–20 %, loss < 0; without positive realization, loss when the profit
 *   is negative, else low. The article without a code is in no group.
 */
import { percentOf } from '../derive';
import { containsDays } from '../fingerprint';
import { reportIdentity, type IdentitySource } from './report-identity';
import { emptyWeekFigures, WEEK_FIELDS, type ArticleFigures, type WeekFigures } from './summary';

export type AbcLetter = 'A' | 'B' | 'C';
export type MarginGroup = 'high' | 'low' | 'loss';
const MARGIN_GROUPS: readonly MarginGroup[] = ['high', 'low', 'loss'];

/** What analytics needs to know of a report (from its record). */
export interface ReportInfo {
  id: string;
  title: string;
  status: string;
  is_combined: boolean;
  seller_id: string | null;
  period_from: string | null;
  period_to: string | null;
  created_at: string;
  /** The report's identity (see reportIdentity in identity.ts). */
  identity: string;
  /** The report's numbers are out of date (settings changed since it was built). */
  stale: boolean;
  /** Its rows per sale day (engine/fingerprint.ts), when known: a report inside another is left out. */
  days?: Readonly<Record<string, string>> | null;
}

/** A report record's head as analytics reads it: what reportInfo takes. */
export interface ReportHeadSource extends IdentitySource {
  title: string;
  status: string;
  is_combined: boolean;
  created_at: string;
  content_days?: Readonly<Record<string, string>> | null;
}

/** What analytics knows of a report, from its record's head: its identity by `contentHash` when known. */
export function reportInfo(h: ReportHeadSource, contentHash: string | null, stale: boolean): ReportInfo {
  return {
    id: h.id,
    title: h.title,
    status: h.status,
    is_combined: h.is_combined,
    seller_id: h.seller_id,
    period_from: h.period_from,
    period_to: h.period_to,
    created_at: h.created_at,
    identity: reportIdentity(h, contentHash),
    days: h.content_days ?? null,
    stale,
  };
}

export interface ReportFigures {
  totals: WeekFigures;
  articles: ReadonlyArray<ArticleFigures>;
}

export interface AnalyticsWarning {
  code: 'missing_week' | 'duplicate_report' | 'report_processing' | 'stale_report' | 'summary_unavailable';
  message: string;
  details: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Dates (YYYY-MM-DD, UTC calendar days)

const DAY = 86_400_000;
const toMs = (d: string): number => Date.parse(`${d}T00:00:00Z`);
const toDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export function addDays(d: string, days: number): string {
  return toDate(toMs(d) + days * DAY);
}

/** The Monday of the week of `d`. */
export function weekStart(d: string): string {
  const ms = toMs(d);
  const dow = (new Date(ms).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return toDate(ms - dow * DAY);
}

/** Days from `a` to `b` inclusive. */
export function daysInclusive(a: string, b: string): number {
  return Math.round((toMs(b) - toMs(a)) / DAY) + 1;
}

/** dd.mm of a date, for Russian messages. */
const ddmm = (d: string): string => `${d.slice(8, 10)}.${d.slice(5, 7)}`;

/** dd.mm.yyyy of a date or a moment (its UTC day). */
const dmy = (d: string): string => `${d.slice(8, 10)}.${d.slice(5, 7)}.${d.slice(0, 4)}`;

/**
 * A report in a warning: its title and period, so that two reports of the same title (every weekly
 * report of the portal is called alike) are told apart.
 */
function label(r: Pick<ReportInfo, 'title' | 'period_from' | 'period_to'>): string {
  return r.period_from && r.period_to ? `«${r.title}» за ${ddmm(r.period_from)}–${ddmm(r.period_to)}` : `«${r.title}»`;
}

const weeksWord = (n: number): string => {
  const d10 = n % 10;
  const d100 = n % 100;
  if (d10 === 1 && d100 !== 11) return 'неделю';
  if (d10 >= 2 && d10 <= 4 && (d100 < 12 || d100 > 14)) return 'недели';
  return 'недель';
};

/**
 * One warning for every week without a report (Mondays, ascending), consecutive weeks joined into
 * ranges: «нет отчёта за 05.01–11.01» or «нет отчётов за 5 недель: 05.01–25.01, 09.02–22.02».
 * details: the first Monday and last Sunday, the number of weeks, and the ranges.
 */
export function missingWeeksWarning(mondays: readonly string[]): AnalyticsWarning {
  const ranges: Array<{ period_from: string; period_to: string }> = [];
  for (const w of mondays) {
    const last = ranges.at(-1);
    if (last && addDays(last.period_to, 1) === w) last.period_to = addDays(w, 6);
    else ranges.push({ period_from: w, period_to: addDays(w, 6) });
  }
  const text = ranges.map((r) => `${ddmm(r.period_from)}–${ddmm(r.period_to)}`).join(', ');
  const n = mondays.length;
  return {
    code: 'missing_week',
    message: n === 1 ? `нет отчёта за ${text}` : `нет отчётов за ${n} ${weeksWord(n)}: ${text}`,
    details: { period_from: ranges[0]!.period_from, period_to: ranges.at(-1)!.period_to, weeks: n, ranges },
  };
}

export function isDate(d: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(d) && !Number.isNaN(toMs(d)) && toDate(toMs(d)) === d;
}

/** The week starts (Mondays) of every week that intersects [from, to]. */
export function weeksOf(from: string, to: string): string[] {
  const out: string[] = [];
  for (let w = weekStart(from); w <= to; w = addDays(w, 7)) out.push(w);
  return out;
}

/** The range of equal length just before [from, to]. */
export function previousRange(from: string, to: string): { from: string; to: string } {
  const len = daysInclusive(from, to);
  const prevTo = addDays(from, -1);
  return { from: addDays(prevTo, -(len - 1)), to: prevTo };
}

// ---------------------------------------------------------------------------------------------
// Which reports count

export interface Selection {
  /** Ready, not combined, with a period, the newest of their identity. */
  counted: ReportInfo[];
  /** Left out as older copies of a counted report (or `inside` it: its rows all there): the report and the one kept. */
  duplicates: Array<{ report: ReportInfo; kept: ReportInfo; inside?: true }>;
  /** Not ready yet (processing). */
  processing: ReportInfo[];
}

const newer = (a: ReportInfo, b: ReportInfo): boolean =>
  a.created_at !== b.created_at ? a.created_at > b.created_at : a.id > b.id;

export function selectReports(reports: ReadonlyArray<ReportInfo>): Selection {
  const processing: ReportInfo[] = [];
  const best = new Map<string, ReportInfo>();
  const candidates: ReportInfo[] = [];
  for (const r of reports) {
    if (r.is_combined) continue;
    if (r.status === 'processing') {
      processing.push(r);
      continue;
    }
    if (r.status !== 'ready' || !r.period_from || !r.period_to) continue;
    candidates.push(r);
    const cur = best.get(r.identity);
    if (!cur || newer(r, cur)) best.set(r.identity, r);
  }
  const kept1: ReportInfo[] = [];
  const duplicates: Selection['duplicates'] = [];
  for (const r of candidates) {
    const kept = best.get(r.identity) as ReportInfo;
    if (kept === r) kept1.push(r);
    else duplicates.push({ report: r, kept });
  }
  // A report inside another (all its sale days' rows there) counts in the other: the bigger one is kept.
  const counted: ReportInfo[] = [];
  const size = (r: ReportInfo) => Object.keys(r.days ?? {}).length;
  for (const r of kept1) {
    const outer = r.days
      ? kept1.find(
          (o) =>
            o !== r &&
            o.days &&
            size(o) >= size(r) &&
            containsDays(o.days, r.days!) &&
            (size(o) > size(r) ? true : newer(o, r)),
        )
      : undefined;
    if (outer) duplicates.push({ report: r, kept: outer, inside: true });
    else counted.push(r);
  }
  return { counted, duplicates, processing };
}

const inRange = (r: Pick<ReportInfo, 'period_from' | 'period_to'>, from: string, to: string): boolean =>
  r.period_from !== null && r.period_to !== null && r.period_from >= from && r.period_to <= to;

/**
 * The default range: the last `count` weeks that have counted reports (from the Monday of the oldest of
 * them to the Sunday of the newest), reaching back at most a year (52 weeks) from the newest, so one
 * old report does not stretch the range over years of missing weeks; null when there are none.
 */
export function defaultRange(counted: ReadonlyArray<ReportInfo>, count = 12): { from: string; to: string } | null {
  const weeks = [...new Set(counted.map((r) => weekStart(r.period_from as string)))].sort();
  if (weeks.length === 0) return null;
  const floor = addDays(weeks[weeks.length - 1]!, -7 * 51);
  const last = weeks.slice(-count).filter((w) => w >= floor);
  const newest = counted
    .filter((r) => weekStart(r.period_from as string) === last[last.length - 1])
    .reduce((m, r) => ((r.period_to as string) > m ? (r.period_to as string) : m), addDays(last[last.length - 1]!, 6));
  return { from: last[0]!, to: newest };
}

// ---------------------------------------------------------------------------------------------
// Figures

export type Totals = WeekFigures & { margin: number | null };

export function withMargin(f: WeekFigures): Totals {
  return { ...f, margin: f.realization > 0 ? percentOf(f.profit, f.realization) : null };
}

function add(into: WeekFigures, f: WeekFigures): void {
  for (const k of WEEK_FIELDS) into[k] += f[k];
}

interface Week extends Totals {
  period_from: string;
  period_to: string;
  report_ids: string[];
}

interface ArticleRow {
  article: string;
  realization: number;
  profit: number;
  margin: number | null;
  sales_qty: number;
  returns_qty: number;
  abc_revenue: AbcLetter | null;
  abc_profit: AbcLetter | null;
  margin_group: MarginGroup | null;
}

type MarginGroups = Record<MarginGroup, { count: number; realization: number; profit: number }>;

/** Change of `cur` against `prev` in % (2 decimals); null when prev is 0. Margin: the difference in points. */
export function changes(cur: Totals, prev: Totals): Record<keyof Totals, number | null> {
  const out = {} as Record<keyof Totals, number | null>;
  for (const k of WEEK_FIELDS) out[k] = prev[k] === 0 ? null : percentOf(cur[k] - prev[k], Math.abs(prev[k]));
  out.margin = cur.margin === null || prev.margin === null ? null : Math.round((cur.margin - prev.margin) * 100) / 100;
  return out;
}

export function marginGroupOf(margin: number | null, profit: number): MarginGroup {
  if (margin === null) return profit < 0 ? 'loss' : 'low';
  if (margin >= 20) return 'high';
  return margin >= 0 ? 'low' : 'loss';
}

/** ABC letters of `values` (article → value) as the module comment defines them; "" gets none. */
export function abcLetters(values: ReadonlyMap<string, number>): Map<string, AbcLetter> {
  const ranked = [...values.entries()]
    .filter(([a]) => a !== '')
    .sort((x, y) => (y[1] !== x[1] ? y[1] - x[1] : x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  let positive = 0;
  for (const [, v] of ranked) if (v > 0) positive += v;
  const out = new Map<string, AbcLetter>();
  let above = 0;
  for (const [a, v] of ranked) {
    if (v <= 0) {
      out.set(a, 'C');
      continue;
    }
    // share = above / positive, compared without division: above < 0.8·positive ⇔ 5·above < 4·positive
    out.set(a, above * 5 < positive * 4 ? 'A' : above * 20 < positive * 19 ? 'B' : 'C');
    above += v;
  }
  return out;
}

function articleRows(perReport: ReadonlyArray<ReadonlyArray<ArticleFigures>>): ArticleRow[] {
  const acc = new Map<string, { realization: number; profit: number; sales_qty: number; returns_qty: number }>();
  for (const list of perReport) {
    for (const a of list) {
      let x = acc.get(a.article);
      if (!x) {
        x = { realization: 0, profit: 0, sales_qty: 0, returns_qty: 0 };
        acc.set(a.article, x);
      }
      x.realization += a.realization;
      x.profit += a.profit;
      x.sales_qty += a.sales_qty;
      x.returns_qty += a.returns_qty;
    }
  }
  const abcRevenue = abcLetters(new Map([...acc].map(([a, x]) => [a, x.realization])));
  const abcProfit = abcLetters(new Map([...acc].map(([a, x]) => [a, x.profit])));
  const rows: ArticleRow[] = [];
  for (const [article, x] of acc) {
    const margin = x.realization > 0 ? percentOf(x.profit, x.realization) : null;
    rows.push({
      article,
      ...x,
      margin,
      abc_revenue: abcRevenue.get(article) ?? null,
      abc_profit: abcProfit.get(article) ?? null,
      margin_group: article === '' ? null : marginGroupOf(margin, x.profit),
    });
  }
  return rows.sort((a, b) => b.realization - a.realization || (a.article < b.article ? -1 : 1));
}

function marginGroups(rows: ReadonlyArray<ArticleRow>): MarginGroups {
  const out = {} as MarginGroups;
  for (const g of MARGIN_GROUPS) out[g] = { count: 0, realization: 0, profit: 0 };
  for (const r of rows) {
    if (!r.margin_group) continue;
    const g = out[r.margin_group];
    g.count++;
    g.realization += r.realization;
    g.profit += r.profit;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The whole answer

export interface AnalyticsInput {
  from: string;
  to: string;
  /** Every report of the caller (already filtered by seller when asked). */
  reports: ReadonlyArray<ReportInfo>;
  /** Figures of the counted reports by id; a counted report without figures is warned and left out. */
  figures: ReadonlyMap<string, ReportFigures>;
  /** When given, the weekly history of this article. */
  article?: string;
}

interface ArticleHistoryWeek {
  period_from: string;
  period_to: string;
  realization: number;
  profit: number;
  margin: number | null;
  sales_qty: number;
  returns_qty: number;
}

export interface AnalyticsResult {
  range: { from: string; to: string };
  previous_range: { from: string; to: string };
  weeks: Week[];
  totals: Totals;
  previous: Totals & { change: Record<keyof Totals, number | null> };
  articles: ArticleRow[];
  margin_groups: MarginGroups;
  warnings: AnalyticsWarning[];
  history?: { article: string; weeks: ArticleHistoryWeek[] };
}

function rangeReports(sel: Selection, figures: ReadonlyMap<string, ReportFigures>, from: string, to: string) {
  return sel.counted.filter((r) => inRange(r, from, to) && figures.has(r.id));
}

export function computeAnalytics(input: AnalyticsInput): AnalyticsResult {
  const { from, to, figures } = input;
  const sel = selectReports(input.reports);
  const counted = rangeReports(sel, figures, from, to);
  const warnings: AnalyticsWarning[] = [];

  const byWeek = new Map<string, ReportInfo[]>();
  for (const r of counted) {
    const w = weekStart(r.period_from as string);
    byWeek.set(w, [...(byWeek.get(w) ?? []), r]);
  }
  const weeks: Week[] = [];
  const missingWeeks: string[] = [];
  const total = emptyWeekFigures();
  for (const w of weeksOf(from, to)) {
    const list = (byWeek.get(w) ?? []).sort((a, b) => (a.id < b.id ? -1 : 1));
    const f = emptyWeekFigures();
    for (const r of list) add(f, (figures.get(r.id) as ReportFigures).totals);
    add(total, f);
    weeks.push({ period_from: w, period_to: addDays(w, 6), report_ids: list.map((r) => r.id), ...withMargin(f) });
    const fullyInside = w >= from && addDays(w, 6) <= to;
    if (list.length === 0 && fullyInside) missingWeeks.push(w);
  }
  if (missingWeeks.length > 0) warnings.push(missingWeeksWarning(missingWeeks));

  const prev = previousRange(from, to);
  const prevTotal = emptyWeekFigures();
  for (const r of rangeReports(sel, figures, prev.from, prev.to))
    add(prevTotal, (figures.get(r.id) as ReportFigures).totals);
  const totals = withMargin(total);
  const previous = withMargin(prevTotal);

  const articles = articleRows(counted.map((r) => (figures.get(r.id) as ReportFigures).articles));

  for (const d of sel.duplicates)
    if (inRange(d.report, from, to))
      warnings.push({
        code: 'duplicate_report',
        message: d.inside
          ? `строки отчёта ${label(d.report)} все есть в отчёте ${label(d.kept)}; учтены один раз`
          : `отчёт ${label(d.report)}, загруженный ${dmy(d.report.created_at)}, — копия отчёта ` +
            `${d.kept.title === d.report.title ? '' : `«${d.kept.title}» `}от ${dmy(d.kept.created_at)}; учтён только более новый`,
        details: { report_id: d.report.id, kept_report_id: d.kept.id },
      });
  for (const r of sel.processing)
    if (r.period_from === null || inRange(r, from, to))
      warnings.push({
        code: 'report_processing',
        message: `отчёт ${label(r)} ещё обрабатывается и не учтён`,
        details: { report_id: r.id },
      });
  for (const r of sel.counted) {
    if (!inRange(r, from, to)) continue;
    if (!figures.has(r.id))
      warnings.push({
        code: 'summary_unavailable',
        message: `отчёт ${label(r)} не учтён: его сводка ещё не готова, откройте аналитику позже`,
        details: { report_id: r.id },
      });
    else if (r.stale)
      warnings.push({
        code: 'stale_report',
        message: `отчёт ${label(r)} построен по прежним себестоимостям или налогам — пересоберите его`,
        details: { report_id: r.id },
      });
  }

  const result: AnalyticsResult = {
    range: { from, to },
    previous_range: prev,
    weeks,
    totals,
    previous: { ...previous, change: changes(totals, previous) },
    articles,
    margin_groups: marginGroups(articles),
    warnings,
  };
  if (input.article !== undefined) result.history = articleHistory(input.article, weeks, figures);
  return result;
}

function articleHistory(
  article: string,
  weeks: ReadonlyArray<Week>,
  figures: ReadonlyMap<string, ReportFigures>,
): { article: string; weeks: ArticleHistoryWeek[] } {
  return {
    article,
    weeks: weeks.map((w) => {
      let realization = 0;
      let profit = 0;
      let sales = 0;
      let returns = 0;
      for (const id of w.report_ids) {
        const a = (figures.get(id) as ReportFigures).articles.find((x) => x.article === article);
        if (!a) continue;
        realization += a.realization;
        profit += a.profit;
        sales += a.sales_qty;
        returns += a.returns_qty;
      }
      return {
        period_from: w.period_from,
        period_to: w.period_to,
        realization,
        profit,
        margin: realization > 0 ? percentOf(profit, realization) : null,
        sales_qty: sales,
        returns_qty: returns,
      };
    }),
  };
}
