/**
 * Unit economics of one article over its last weeks, and the what-if on its price (docs/API.md: GET
 * /api/articles/{article}/unit-economics, POST /api/articles/{article}/what-if; docs/METRICS.md «Unit
 * economics over weeks»).
 *
 * Input: the caller, the article, how many weeks (1–52, 4 by default), an optional seller; for the
 * what-if a price before WB's discount or a target margin. Output: the per-unit lines and the weeks
 * used; the margin at the price or the price for the margin (null with a reason when none reaches it).
 *
 * Steps: the caller's report records (one Query, projected) → the weekly reports that count, each week
 * once, as the period analytics and the P&L count them (selectReports: combined reports, copies and a
 * report inside another are left out) → newest week first, the items of its reports until the article
 * was found in N weeks → the pure engine (shared/engine/target-price.ts) sums and divides.
 */
import { reportInfo, selectReports, weekStart, type ReportInfo } from '../../engine/analytics';
import {
  marginAtPrice,
  priceAfterDiscount,
  priceBeforeDiscount,
  priceForMargin,
  unitEconomicsOfWeeks,
  type WeekValues,
  type WeeksUnitEconomics,
} from '../../engine/target-price';
import { AppError, notFound, unprocessable } from '../../errors';
import type { StoredItem } from '../../store/items.repo';
import type { ReportHead } from '../../store/summaries.repo';
import type { SellerRecord } from '../../store/sellers.repo';
import type { ArticleUnitEconomics, WhatIf } from '../../contract/unit-economics-shapes';

/** What the unit economics read: the report heads, a report's items, the seller asked for. */
export interface UnitEconomicsDeps {
  reports: { listReportHeads(userId: string): Promise<ReportHead[]> };
  items: { getItemsOfGen(userId: string, reportId: string, gen: number): Promise<StoredItem[]> };
  sellers: { getSeller(userId: string, sellerId: string): Promise<SellerRecord | null> };
}

export const DEFAULT_UNIT_WEEKS = 4;
export const MAX_UNIT_WEEKS = 52;
/** The longest article, characters (as the catalog's). */
const MAX_ARTICLE = 1000;
/** The highest price the what-if takes, roubles. */
const MAX_PRICE = 100_000_000;

export interface UnitEconomicsQuery {
  weeks?: string | number;
  seller_id?: string;
}

export interface WhatIfInput extends UnitEconomicsQuery {
  price?: number;
  margin?: number;
}

const invalid = (field: string, message: string) => unprocessable('invalid_unit_input', message, { field });

/** The number of weeks asked: an integer 1–52, 4 when absent. */
export function parseWeeks(raw: string | number | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_UNIT_WEEKS;
  const n = typeof raw === 'number' ? raw : /^\d{1,3}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_UNIT_WEEKS)
    throw invalid('weeks', `Недель — целое число от 1 до ${MAX_UNIT_WEEKS}`);
  return n;
}

function checkArticle(article: string): void {
  if (article.trim() === '' || article.length > MAX_ARTICLE)
    throw invalid('article', 'Артикул пуст или длиннее 1000 символов');
}

/** The weeks an article's numbers come from, newest first, and its values in each. */
interface ArticleWeeks {
  weeks: ArticleUnitEconomics['weeks'];
  values: WeekValues[];
  /** Reports where the article sold without a cost price. */
  noCostPrice: string[];
}

const sold = (v: WeekValues) => (v.sales_qty ?? 0) !== 0 || (v.returns_qty ?? 0) !== 0 || (v.realization ?? 0) !== 0;

async function articleWeeks(
  deps: UnitEconomicsDeps,
  userId: string,
  article: string,
  count: number,
  sellerId: string | null,
): Promise<ArticleWeeks> {
  const all = await deps.reports.listReportHeads(userId);
  const heads = sellerId === null ? all : all.filter((h) => h.seller_id === sellerId);
  const byId = new Map(heads.map((h) => [h.id, h]));
  const infos: ReportInfo[] = heads.map((h) => reportInfo(h, null, false));
  // One week, one entry: the counted reports grouped by the Monday of their first day, newest first.
  const groups = new Map<string, ReportHead[]>();
  for (const r of selectReports(infos).counted) {
    const week = weekStart(r.period_from as string);
    groups.set(week, [...(groups.get(week) ?? []), byId.get(r.id) as ReportHead]);
  }
  const out: ArticleWeeks = { weeks: [], values: [], noCostPrice: [] };
  let taken = 0;
  for (const week of [...groups.keys()].sort().reverse()) {
    if (taken >= count) break;
    let found = false;
    for (const h of groups.get(week)!.sort((a, b) => ((a.period_from ?? '') < (b.period_from ?? '') ? -1 : 1))) {
      const items = (await deps.items.getItemsOfGen(userId, h.id, h.items_gen)).filter(
        (i) => i.article === article && sold(i.effective),
      );
      if (items.length === 0) continue;
      found = true;
      out.weeks.push({
        report_id: h.id,
        title: h.title,
        period_from: h.period_from as string,
        period_to: h.period_to as string,
      });
      for (const i of items) {
        out.values.push(i.effective);
        if ((i.effective.sales_qty ?? 0) > 0 && (i.effective.cost_price ?? 0) <= 0) out.noCostPrice.push(h.id);
      }
    }
    if (found) taken += 1;
  }
  return out;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** The article's weeks and their unit economics; 404 and 422 as the routes document. */
async function compute(
  deps: UnitEconomicsDeps,
  userId: string,
  article: string,
  q: UnitEconomicsQuery,
): Promise<{ weeks: number; found: ArticleWeeks; ue: WeeksUnitEconomics; sellerId: string | null }> {
  checkArticle(article);
  const weeks = parseWeeks(q.weeks);
  const sellerId = q.seller_id ?? null;
  if (sellerId !== null && !(await deps.sellers.getSeller(userId, sellerId)))
    throw notFound('Seller not found', 'seller_not_found');
  const found = await articleWeeks(deps, userId, article, weeks, sellerId);
  if (found.weeks.length === 0)
    throw new AppError(404, 'article_not_found', `Артикул «${article}» не найден в готовых недельных отчётах`, {
      article,
    });
  if (found.noCostPrice.length > 0)
    throw unprocessable(
      'cost_price_missing',
      `Нет себестоимости артикула «${article}»: укажите её в каталоге и пересчитайте отчёты`,
      { article, report_ids: [...new Set(found.noCostPrice)] },
    );
  return { weeks, found, ue: unitEconomicsOfWeeks(found.values), sellerId };
}

/** GET /api/articles/{article}/unit-economics: the per-unit lines over the article's last weeks. */
export async function getUnitEconomics(
  deps: UnitEconomicsDeps,
  userId: string,
  article: string,
  q: UnitEconomicsQuery,
): Promise<ArticleUnitEconomics> {
  const { weeks, found, ue, sellerId } = await compute(deps, userId, article, q);
  const { economics: _economics, ...rest } = ue;
  return { article, seller_id: sellerId, weeks_asked: weeks, weeks: found.weeks, ...rest };
}

/**
 * POST /api/articles/{article}/what-if: at a `price` before WB's discount, the margin; for a target
 * `margin`, the price before and after WB's discount. Exactly one of the two.
 */
export async function whatIf(
  deps: UnitEconomicsDeps,
  userId: string,
  article: string,
  input: WhatIfInput,
): Promise<WhatIf> {
  const hasPrice = input.price !== undefined;
  const hasMargin = input.margin !== undefined;
  if (hasPrice === hasMargin) throw invalid('price', 'Укажите либо цену, либо целевую маржу');
  if (hasPrice && !(Number.isFinite(input.price) && input.price! > 0 && input.price! <= MAX_PRICE))
    throw invalid('price', 'Цена — число больше нуля, не больше 100 млн ₽');
  if (hasMargin && !(Number.isFinite(input.margin) && input.margin! > -1000 && input.margin! < 100))
    throw invalid('margin', 'Маржа — число меньше 100 %');
  const { found, ue } = await compute(deps, userId, article, input);
  const base = { article, report_ids: found.weeks.map((w) => w.report_id) };
  const u = ue.economics;
  if (!u)
    return {
      ...base,
      price_before_discount: null,
      price: null,
      profit: null,
      margin: null,
      reason: 'no_units',
    };
  if (hasPrice) {
    const after = priceAfterDiscount(u, input.price!);
    const at = marginAtPrice(u, after);
    return {
      ...base,
      price_before_discount: round2(input.price!),
      price: after,
      profit: at.profit,
      margin: at.margin,
      reason: null,
    };
  }
  const after = priceForMargin(u, input.margin!);
  if (after === null)
    return { ...base, price_before_discount: null, price: null, profit: null, margin: null, reason: 'unreachable' };
  const at = marginAtPrice(u, after);
  return {
    ...base,
    price_before_discount: priceBeforeDiscount(u, after),
    price: after,
    profit: at.profit,
    margin: at.margin,
    reason: null,
  };
}
