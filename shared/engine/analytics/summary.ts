/**
 * The compact per-report summary analytics reads instead of a report's items (docs/API.md: analytics):
 * the report's totals of the figures analytics shows, and per article the effective realization,
 * profit and quantities with the snapshot cost price. Built from the report's items whenever they or
 * its totals are finalized (upload, rebuild, manual value). Pure: no AWS, no HTTP.
 *
 * Encoded column-wise (one array per figure) as gzip'd JSON: 5,000 articles take about 100 KB, so a
 * year of weekly reports is one Query of ~5 MB.
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { ComputedItem, ItemValues } from '../types';

/** Report-level figures of a week (money in kopecks, quantities in units). */
export const WEEK_FIELDS = [
  'realization',
  'for_pay',
  'payout',
  'profit',
  'sales_qty',
  'returns_qty',
  'expenses',
] as const;
type WeekField = (typeof WEEK_FIELDS)[number];
export type WeekFigures = Record<WeekField, number>;

/**
 * Per-article figures (effective values; cost_price and own_cost_price are the snapshot's computed
 * amounts per unit). A summary written before own_cost_price existed reads it as 0.
 */
const ARTICLE_FIELDS = ['realization', 'profit', 'sales_qty', 'returns_qty', 'cost_price', 'own_cost_price'] as const;

export interface ArticleFigures {
  article: string;
  realization: number;
  profit: number;
  sales_qty: number;
  returns_qty: number;
  cost_price: number;
  /** Absent (0) in figures made before own costs. */
  own_cost_price?: number;
}

export interface SummaryContent {
  totals: WeekFigures;
  articles: ArticleFigures[];
  /**
   * A fingerprint of the report's computed (uncorrected) values: the same week read from its zip, xlsx
   * or xls gives the same one. The identity fallback for reports without seller and report numbers.
   */
  content_hash: string;
}

export const emptyWeekFigures = (): WeekFigures => ({
  realization: 0,
  for_pay: 0,
  payout: 0,
  profit: 0,
  sales_qty: 0,
  returns_qty: 0,
  expenses: 0,
});

const num = (v: number | null | undefined): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The summary of a report's items: totals and per-article figures from the EFFECTIVE values. */
export function summarizeItems(items: ReadonlyArray<Pick<ComputedItem, 'article' | 'computed' | 'effective'>>) {
  const totals = emptyWeekFigures();
  const byArticle = new Map<string, ArticleFigures>();
  const hash = createHash('sha256');
  const sorted = [...items].sort((a, b) => (a.article < b.article ? -1 : a.article > b.article ? 1 : 0));
  for (const it of sorted) {
    const e: ItemValues = it.effective;
    for (const f of WEEK_FIELDS) totals[f] += num(e[f]);
    let a = byArticle.get(it.article);
    if (!a) {
      a = {
        article: it.article,
        realization: 0,
        profit: 0,
        sales_qty: 0,
        returns_qty: 0,
        cost_price: 0,
        own_cost_price: 0,
      };
      byArticle.set(it.article, a);
    }
    a.realization += num(e.realization);
    a.profit += num(e.profit);
    a.sales_qty += num(e.sales_qty);
    a.returns_qty += num(e.returns_qty);
    a.cost_price = num(it.computed.cost_price);
    a.own_cost_price = num(it.computed.own_cost_price);
    const c = it.computed;
    hash.update(
      `${it.article}\u0000${num(c.realization)}|${num(c.for_pay)}|${num(c.sales_qty)}|${num(c.returns_qty)}\n`,
    );
  }
  const content: SummaryContent = {
    totals,
    articles: [...byArticle.values()],
    content_hash: hash.digest('hex').slice(0, 32),
  };
  return content;
}

interface Encoded {
  v: 1;
  a: string[];
  c: number[][];
}

/** Articles → gzip'd column-wise JSON. */
function encodeArticles(articles: ReadonlyArray<ArticleFigures>): Buffer {
  const body: Encoded = {
    v: 1,
    a: articles.map((x) => x.article),
    c: ARTICLE_FIELDS.map((f) => articles.map((x) => x[f] ?? 0)),
  };
  return gzipSync(JSON.stringify(body), { level: 6 });
}

export function decodeArticles(data: Uint8Array): ArticleFigures[] {
  const body = JSON.parse(gunzipSync(data).toString('utf8')) as Encoded;
  if (body.v !== 1) throw new Error(`unknown summary encoding ${String(body.v)}`);
  const [realization, profit, sales, returns, cost, own] = ARTICLE_FIELDS.map((_, j) => body.c[j]);
  const out: ArticleFigures[] = new Array<ArticleFigures>(body.a.length);
  for (let i = 0; i < body.a.length; i++)
    out[i] = {
      article: body.a[i]!,
      realization: realization![i]!,
      profit: profit![i]!,
      sales_qty: sales![i]!,
      returns_qty: returns![i]!,
      cost_price: cost![i]!,
      own_cost_price: own?.[i] ?? 0,
    };
  return out;
}

/**
 * Articles split into encoded chunks of at most `maxBytes` each (a DynamoDB item holds 400 KB): halves
 * until every chunk fits. Always at least one chunk (an empty report gives one empty chunk).
 */
export function encodeChunks(articles: ReadonlyArray<ArticleFigures>, maxBytes = 350_000): Buffer[] {
  const data = encodeArticles(articles);
  if (data.length <= maxBytes || articles.length <= 1) return [data];
  const mid = Math.ceil(articles.length / 2);
  return [...encodeChunks(articles.slice(0, mid), maxBytes), ...encodeChunks(articles.slice(mid), maxBytes)];
}
