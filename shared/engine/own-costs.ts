/**
 * A seller's own per-unit costs (docs/METRICS.md, Own per-unit costs): named lines such as «Упаковка»
 * 12,50 ₽ a unit, each for one article or the default for every article, each a list of dated amounts
 * like a cost price. Pure: which amount a report takes, and the sum per unit an article gets.
 *
 * The rules:
 * - an article's own line replaces the default line of the same name (a 0 on the article's line
 *   switches a default off for it); the other default lines still apply;
 * - each line's amount is the one in force on the report's day (the middle of its period), chosen as a
 *   cost price is chosen (periods.ts periodInForce: the last period starting on or before the day;
 *   before the first one starts, the first one);
 * - the rows without an article («Без артикула») get no own costs.
 */
import { periodInForce } from './periods';
import type { OwnCostRates } from './types';

/** One dated amount of a line (kopecks per unit). */
export interface OwnCostPeriod {
  /** First day (YYYY-MM-DD) the amount is in force; null = from the beginning. */
  valid_from: string | null;
  amount: number;
}

/** One named cost line: for an article, or the default (article null) for every article. */
export interface OwnCostLine {
  article: string | null;
  name: string;
  /** Dated amounts, oldest first. */
  amounts: OwnCostPeriod[];
}

export const NO_OWN_COSTS: OwnCostRates = Object.freeze({ byArticle: Object.freeze({}), fallback: 0 }) as OwnCostRates;

/** The amount of a line in force on `date` (null: today); 0 for a line without amounts. */
export function ownCostOn(line: Pick<OwnCostLine, 'amounts'>, date: string | null, today?: string): number {
  return periodInForce(line.amounts, date, today)?.amount ?? 0;
}

/**
 * The per-unit sums of a report dated `date` (its period's middle day; null: today). `articles`, when
 * given, limits `byArticle` to them (a report needs only its own articles).
 */
export function ownCostRates(
  lines: readonly OwnCostLine[],
  date: string | null,
  articles?: Iterable<string>,
  today?: string,
): OwnCostRates {
  const wanted = articles ? new Set(articles) : null;
  const defaults = new Map<string, number>();
  const own = new Map<string, Map<string, number>>();
  for (const line of lines) {
    const amount = ownCostOn(line, date, today);
    if (line.article === null) {
      defaults.set(line.name, amount);
      continue;
    }
    if (line.article === '' || (wanted && !wanted.has(line.article))) continue;
    let names = own.get(line.article);
    if (!names) own.set(line.article, (names = new Map()));
    names.set(line.name, amount);
  }
  let fallback = 0;
  for (const amount of defaults.values()) fallback += amount;
  const byArticle: Record<string, number> = {};
  for (const [article, names] of own) {
    let sum = 0;
    for (const [name, amount] of defaults) if (!names.has(name)) sum += amount;
    for (const amount of names.values()) sum += amount;
    byArticle[article] = sum;
  }
  return { byArticle, fallback };
}

/** The per-unit own costs of `article` under `rates` (kopecks); 0 for the rows without an article. */
export function ownCostPerUnit(rates: OwnCostRates | undefined, article: string): number {
  if (!rates || article === '') return 0;
  return Object.prototype.hasOwnProperty.call(rates.byArticle, article) ? rates.byArticle[article]! : rates.fallback;
}
