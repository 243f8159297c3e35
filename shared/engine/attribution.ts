/**
 * Per-article costs from WB's other APIs laid onto a report's articles (docs/METRICS.md «Per-article costs
 * from WB»). The report's own rows carry advertising («ВБ.Продвижение» deductions), storage and paid
 * acceptance mostly as lump sums without an article; WB's promotion, paid-storage and acceptance APIs say
 * what each card (nmId) cost over the same days. For each kind with such costs:
 *
 * - an article whose card (its rows' nm_id) has a cost gets that cost as its field (ads, storage,
 *   acceptance): it REPLACES what the rows gave it, never adds to it;
 * - the report's own total of the field stays the total: «Без артикула» keeps the remainder (the report's
 *   total minus what was laid onto articles), which the allocation spreads as before. So every rouble of
 *   the report's deductions is counted once, the payout is unchanged to the kopeck, and spend the rows do
 *   not explain never disappears;
 * - cost of a card with no rows in the report (a card that sold nothing that week) is that card's own line:
 *   an item of its own (article «Карточка <nmId>», the nm_id set, zero sales) carrying the spend, so its
 *   profit is −spend and nothing of it is spread onto other articles; the summary names such cards
 *   (`unmatched`, `unmatched_cards`). One line per card, whatever kinds it has;
 * - a report whose rows hold none of the cost (total 0) is left as it is: the spend belongs to the
 *   report that paid it (a week's main report, not its «по выкупам» one).
 *
 * Pure: the costs are given (summed per nmId over the report's period) by the caller.
 */
import { COST_FIELDS, COST_KINDS, type CostField } from '../marketplaces/wb/sources/cost-kinds';
import { zeroAggregates } from './fields';
import type { AggregateValues, ArticleInfo, ReportCosts, ReportWarning } from './types';

/** The fields that WB's per-article costs replace: one per registered cost kind (cost-kinds.ts, data to this pure module). */
export const ATTRIBUTED_FIELDS = COST_FIELDS;
export type AttributedField = CostField;

/** What the report says about one kind (kopecks). */
export interface KindAttribution {
  /** The report's own total of the field (its rows: deductions, lump sums, article rows). */
  report: number;
  /** Σ of the API's costs over the period, every card. */
  api: number;
  /** Laid onto articles of the report whose cards have rows. */
  attributed: number;
  /** Spend on cards without rows in the report (each such card's own line, cardLineArticle). */
  unmatched: number;
  /** Up to 20 such cards, largest first. */
  unmatched_cards: Array<{ nm_id: string; kopecks: number }>;
  /** What stays on «Без артикула»: report − Σ article values (the rows' own no-article part included). */
  remainder: number;
  /** Articles that got an API cost. */
  articles: number;
  days: number;
}
export type CostAttribution = Partial<Record<AttributedField, KindAttribution>>;

type Article = ArticleInfo & { aggregates: AggregateValues };

/**
 * The article of the line a card without rows in the report gets (its spend as its own cost), with the
 * card's vendor code beside it when WB's answers gave one («Карточка 99000001 (ART-7)»).
 */
export function cardLineArticle(nmId: string, vendorCode?: string): string {
  const code = vendorCode?.trim();
  return code ? `Карточка ${nmId} (${code})` : `Карточка ${nmId}`;
}

/**
 * The report's articles with WB's costs laid on (a new array; the input is untouched), the orders WB
 * puts down to each article's ads (kopecks, by index of the returned array), the summary per kind and
 * warnings. With no costs of any kind, the articles come back as they were.
 */
export function attributeCosts(
  articles: readonly Article[],
  costs: ReportCosts,
): { articles: Article[]; adRevenue: number[]; summary: CostAttribution; warnings: ReportWarning[] } {
  const out: Article[] = articles.map((a) => ({ ...a, aggregates: { ...a.aggregates } }));
  const summary: CostAttribution = {};
  const warnings: ReportWarning[] = [];
  // nm_id → the first article carrying it (one card, one article; the rows name it).
  const byNm = new Map<string, number>();
  out.forEach((a, i) => {
    const nm = a.nm_id.trim();
    if (a.article !== '' && nm !== '' && nm !== '0' && !byNm.has(nm)) byNm.set(nm, i);
  });
  const adRevenue = out.map(() => 0);
  // Items added for cards without rows (one per card, shared by the kinds).
  const cardLines = new Set<number>();
  // Vendor codes of cards, from any kind whose answers carry them (paid storage's rows).
  const codes = new Map<string, string>();
  for (const field of ATTRIBUTED_FIELDS)
    for (const [nm, code] of Object.entries(costs[field]?.names ?? {}))
      if (code && !codes.has(nm.trim())) codes.set(nm.trim(), code);
  const lineOf = (nm: string): number => {
    const known = byNm.get(nm);
    if (known !== undefined) return known;
    out.push({
      article: cardLineArticle(nm, codes.get(nm)),
      category: '',
      nm_id: nm,
      brand: '',
      aggregates: zeroAggregates(),
    });
    adRevenue.push(0);
    const i = out.length - 1;
    byNm.set(nm, i);
    cardLines.add(i);
    return i;
  };
  let none = out.findIndex((a) => a.article === '');
  for (const field of ATTRIBUTED_FIELDS) {
    const given = costs[field];
    if (!given) continue;
    const report = out.reduce((s, a) => s + (a.aggregates[field] ?? 0), 0);
    // A report without any of this cost (a «по выкупам» report beside the week's main one) has nothing to
    // lay out: the API's spend belongs to the report that paid it.
    if (report === 0) continue;
    const own = new Map<number, number>();
    let api = 0;
    const unmatched: Array<{ nm_id: string; kopecks: number }> = [];
    for (const [rawNm, kop] of Object.entries(given.byNm)) {
      if (kop === 0) continue;
      api += kop;
      const nm = rawNm.trim();
      if (nm === '' || nm === '0') continue; // no card: stays inside the remainder
      const i = lineOf(nm);
      if (cardLines.has(i)) unmatched.push({ nm_id: nm, kopecks: kop });
      own.set(i, (own.get(i) ?? 0) + kop);
    }
    if (field === 'ads' && given.revenueByNm)
      for (const [nm, kop] of Object.entries(given.revenueByNm)) {
        const i = byNm.get(nm.trim());
        if (i !== undefined) adRevenue[i] = (adRevenue[i] ?? 0) + kop;
      }
    let onArticles = 0;
    out.forEach((a, i) => {
      if (a.article === '') return;
      const c = own.get(i);
      if (c !== undefined) a.aggregates[field] = c;
      onArticles += a.aggregates[field] ?? 0;
    });
    const remainder = report - onArticles;
    if (none < 0 && remainder !== 0) {
      out.push({ article: '', category: '', nm_id: '', brand: '', aggregates: zeroAggregates() });
      adRevenue.push(0);
      none = out.length - 1;
    }
    if (none >= 0) out[none]!.aggregates[field] = remainder;
    const unmatchedSum = unmatched.reduce((s, u) => s + u.kopecks, 0);
    const attributed = [...own.values()].reduce((s, v) => s + v, 0) - unmatchedSum;
    unmatched.sort((a, b) => b.kopecks - a.kopecks);
    summary[field] = {
      report,
      api,
      attributed,
      unmatched: unmatchedSum,
      unmatched_cards: unmatched.slice(0, 20),
      remainder,
      articles: [...own.keys()].filter((i) => !cardLines.has(i)).length,
      days: given.days ?? 0,
    };
    if (remainder < 0)
      warnings.push({
        code: 'cost_attribution_exceeds_report',
        message: `${FIELD_TITLES[field]}: по данным API WB на артикулы приходится ${roubles(onArticles)} ₽, больше, чем в отчёте (${roubles(report)} ₽); разница ${roubles(-remainder)} ₽ вычтена из строки «Без артикула», итог отчёта не изменён.`,
        details: { field, report, on_articles: onArticles, remainder },
      });
  }
  return { articles: out, adRevenue, summary, warnings };
}

const FIELD_TITLES = Object.fromEntries(COST_KINDS.map((k) => [k.field, k.title])) as Record<AttributedField, string>;

function roubles(kopecks: number): string {
  const sign = kopecks < 0 ? '-' : '';
  const a = Math.abs(kopecks);
  return `${sign}${Math.floor(a / 100)}.${String(a % 100).padStart(2, '0')}`;
}
