/**
 * The user's product catalog: cost price per article (kopecks per unit). Key `USER#<userId>` /
 * `PRODUCT#<article>` (keys.ts). Articles are WB `sa_name` as written: any characters, Cyrillic, "/",
 * "#" and "%" included; DynamoDB keys take any UTF-8, so the article goes into the sort key as is.
 * Only an article whose key would pass DynamoDB's 1024-byte sort-key limit is keyed by a prefix and a
 * hash instead (stored with the full article, so lists and lookups still see the real text).
 */
import { createHash } from 'node:crypto';
import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { badRequest } from '../errors';
import { ddb, tableName } from './client';
import { backoff, isConditionFailed, sleep } from './dynamo-errors';
import { PRODUCT_PREFIX, productKey, type Key } from './keys';
import { decodeCursor, encodeCursor } from './cursor';

export interface ProductRecord {
  article: string;
  /** Kopecks per unit. */
  cost_price: number;
  created_at: string;
  updated_at: string;
}

/** Sort keys are capped at 1024 bytes; keep a margin for the prefix. */
const MAX_ARTICLE_KEY_BYTES = 900;
/** Longest article the catalog accepts (WB's sa_name is at most 75 characters). */
export const MAX_ARTICLE_LENGTH = 300;

/** The record's key; an over-long article gets a stable hashed form. */
export function productRecordKey(userId: string, article: string): Key {
  if (Buffer.byteLength(article, 'utf8') <= MAX_ARTICLE_KEY_BYTES) return productKey(userId, article);
  const hash = createHash('sha256').update(article, 'utf8').digest('hex');
  return productKey(userId, `${article.slice(0, 100)}#${hash}`);
}

function fromItem(item: Record<string, unknown>): ProductRecord {
  return {
    article: String(item.article),
    cost_price: Number(item.cost_price ?? 0),
    created_at: String(item.created_at),
    updated_at: String(item.updated_at ?? item.created_at),
  };
}

function productItem(userId: string, article: string, costPrice: number, now: string) {
  return {
    ...productRecordKey(userId, article),
    type: 'product',
    user_id: userId,
    article,
    // Lower-cased copy for the case-insensitive search (DynamoDB's contains() is case-sensitive).
    article_lc: article.toLowerCase(),
    cost_price: costPrice,
    created_at: now,
    updated_at: now,
  };
}

function assertCostPrice(costPrice: number): void {
  if (!Number.isSafeInteger(costPrice) || costPrice < 0)
    throw badRequest('validation_error', 'cost_price must be a non-negative amount', { cost_price: costPrice });
}

function assertArticle(article: string): void {
  if (article.length === 0 || article.length > MAX_ARTICLE_LENGTH)
    throw badRequest('validation_error', `article must have 1..${MAX_ARTICLE_LENGTH} characters`, { article });
}

const chunk = <T>(xs: readonly T[], n: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
};

/** Runs `fn` over `items` with at most `width` promises in flight. */
async function inParallel<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

const BATCH_GET_SIZE = 100;
const BATCH_WRITE_SIZE = 25;
const CONCURRENCY = 4;
const MAX_RETRIES = 12;
const PUT_CONCURRENCY = 32;
const CONDITIONAL_PUT_MAX = 100;

/** BatchGet of the given keys, retrying UnprocessedKeys with backoff. */
async function batchGet(keys: Key[]): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  await inParallel(chunk(keys, BATCH_GET_SIZE), CONCURRENCY, async (part) => {
    let pending: Key[] = part;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > MAX_RETRIES) throw new Error('products: BatchGet kept returning unprocessed keys');
      if (attempt > 0) await sleep(backoff(attempt));
      const r = await ddb().send(
        new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true } } }),
      );
      found.push(...(r.Responses?.[tableName()] ?? []));
      pending = (r.UnprocessedKeys?.[tableName()]?.Keys as Key[] | undefined) ?? [];
    }
  });
  return found;
}

const distinctArticles = (articles: readonly string[]): string[] => [
  ...new Set(articles.filter((a) => a !== '' && a.length <= MAX_ARTICLE_LENGTH)),
];

/**
 * Cost prices (kopecks per unit) of the given articles that are in the catalog; an article missing
 * from the result counts as 0. The empty article ("Без артикула") has no catalog entry.
 */
export async function getCostPrices(userId: string, articles: readonly string[]): Promise<Record<string, number>> {
  const wanted = distinctArticles(articles);
  const items = await batchGet(wanted.map((a) => productRecordKey(userId, a)));
  const out: Record<string, number> = {};
  for (const item of items) out[String(item.article)] = Number(item.cost_price ?? 0);
  return out;
}

/**
 * Adds the articles missing from the catalog with cost_price 0 (METRICS.md: "An article missing from
 * the catalog is added with cost_price 0 when the report is built"). Existing prices are never touched:
 * a BatchGet finds which are missing, and only those are written. Up to CONDITIONAL_PUT_MAX of them go
 * as conditional puts (a price the user sets between our read and our write survives; a failed
 * condition just means the product exists now). More than that happens on the first upload of a big
 * report, where per-item puts would cost seconds: those go by BatchWrite (25 per request, several in
 * flight, UnprocessedItems retried); BatchWrite has no conditions, so the only price it could replace
 * is one the user set for a brand-new article within the same few hundred milliseconds.
 */
export async function ensureProducts(userId: string, articles: readonly string[]): Promise<void> {
  const wanted = distinctArticles(articles);
  if (wanted.length === 0) return;
  const existing = new Set(Object.keys(await getCostPrices(userId, wanted)));
  const missing = wanted.filter((a) => !existing.has(a));
  const now = new Date().toISOString();
  if (missing.length > CONDITIONAL_PUT_MAX) {
    await batchPut(missing.map((a) => productItem(userId, a, 0, now)));
    return;
  }
  await inParallel(missing, PUT_CONCURRENCY, async (article) => {
    try {
      await ddb().send(
        new PutCommand({
          TableName: tableName(),
          Item: productItem(userId, article, 0, now),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (e) {
      if (!isConditionFailed(e)) throw e;
    }
  });
}

/** BatchWrite puts in chunks of 25, several in flight, retrying UnprocessedItems with backoff. */
async function batchPut(items: ReadonlyArray<Record<string, unknown>>): Promise<void> {
  type WriteRequest = { PutRequest: { Item: Record<string, unknown> } };
  const requests: WriteRequest[] = items.map((Item) => ({ PutRequest: { Item } }));
  await inParallel(chunk(requests, BATCH_WRITE_SIZE), CONCURRENCY, async (part) => {
    let pending = part;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > MAX_RETRIES) throw new Error('products: BatchWrite kept returning unprocessed items');
      if (attempt > 0) await sleep(backoff(attempt));
      const r = await ddb().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (r.UnprocessedItems?.[tableName()] as WriteRequest[] | undefined) ?? [];
    }
  });
}

export async function getProduct(userId: string, article: string): Promise<ProductRecord | null> {
  if (article.length === 0 || article.length > MAX_ARTICLE_LENGTH) return null;
  const r = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: productRecordKey(userId, article), ConsistentRead: true }),
  );
  return r.Item ? fromItem(r.Item) : null;
}

export interface PutProductResult {
  product: ProductRecord;
  created: boolean;
}

/** Sets the article's cost price (kopecks per unit), creating the product when missing. */
export async function putProduct(userId: string, article: string, costPriceKopecks: number): Promise<PutProductResult> {
  assertArticle(article);
  assertCostPrice(costPriceKopecks);
  const now = new Date().toISOString();
  const r = await ddb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: productRecordKey(userId, article),
      UpdateExpression:
        'SET cost_price = :p, updated_at = :now, created_at = if_not_exists(created_at, :now), article = :a, article_lc = :lc, #type = :type, user_id = :u',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ':p': costPriceKopecks,
        ':now': now,
        ':a': article,
        ':lc': article.toLowerCase(),
        ':type': 'product',
        ':u': userId,
      },
      ReturnValues: 'ALL_OLD',
    }),
  );
  const prior = r.Attributes;
  const createdAt = typeof prior?.created_at === 'string' ? prior.created_at : now;
  return {
    product: { article, cost_price: costPriceKopecks, created_at: createdAt, updated_at: now },
    created: prior === undefined,
  };
}

export interface ImportRow {
  article: string;
  costPriceKopecks: number;
}

export interface ImportResult {
  created: number;
  updated: number;
}

/**
 * Applies catalog rows (already validated; a later row of the same article wins). Existing articles
 * are updated, new ones created; both written with BatchWrite in chunks of 25 with retry of
 * UnprocessedItems (an import replaces prices by design, so no condition is needed).
 */
export async function importProducts(userId: string, rows: readonly ImportRow[]): Promise<ImportResult> {
  const last = new Map<string, number>();
  for (const r of rows) {
    assertArticle(r.article);
    assertCostPrice(r.costPriceKopecks);
    last.set(r.article, r.costPriceKopecks);
  }
  if (last.size === 0) return { created: 0, updated: 0 };
  const existing = new Map<string, ProductRecord>();
  for (const item of await batchGet([...last.keys()].map((a) => productRecordKey(userId, a)))) {
    const p = fromItem(item);
    existing.set(p.article, p);
  }
  const now = new Date().toISOString();
  let created = 0;
  const items = [...last].map(([article, price]) => {
    const prior = existing.get(article);
    if (!prior) created++;
    return { ...productItem(userId, article, price, now), created_at: prior?.created_at ?? now };
  });
  await batchPut(items);
  return { created, updated: last.size - created };
}

export interface ProductPage {
  items: ProductRecord[];
  next_cursor: string | null;
}

export interface ListProductsOptions {
  /** Case-insensitive substring of the article. */
  search?: string;
  cursor?: string | null;
  limit?: number;
}

const PAGE_SIZE = 100;

/**
 * Products ordered by article (the sort key), `limit` per page. With a search, pages are filled by
 * reading on until `limit` matches or the end; the cursor is the last RETURNED product's sort key
 * (base64url), so nothing is skipped between pages. A malformed cursor → 400 `invalid_cursor`.
 */
export async function listProducts(userId: string, opts: ListProductsOptions = {}): Promise<ProductPage> {
  const limit = Math.max(1, Math.min(opts.limit ?? PAGE_SIZE, 500));
  const pk = productKey(userId, '').pk;
  let startKey: Record<string, unknown> | undefined;
  if (opts.cursor) {
    const sk = decodeCursor(opts.cursor, (key) => key.startsWith(PRODUCT_PREFIX));
    startKey = { pk, sk };
  }
  const search = opts.search?.trim().toLowerCase() ?? '';
  const items: Array<{ sk: string; product: ProductRecord }> = [];
  let exhausted = false;
  while (items.length < limit) {
    const r = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: search ? 'contains(article_lc, :q)' : undefined,
        ExpressionAttributeValues: { ':pk': pk, ':prefix': PRODUCT_PREFIX, ...(search ? { ':q': search } : {}) },
        // Read a little ahead so the page's last item is known to be followed by more (or not).
        Limit: search ? Math.max(limit * 4, 200) : limit + 1,
        ExclusiveStartKey: startKey,
        ConsistentRead: true,
      }),
    );
    for (const item of r.Items ?? []) items.push({ sk: String(item.sk), product: fromItem(item) });
    startKey = r.LastEvaluatedKey;
    if (!startKey) {
      exhausted = true;
      break;
    }
  }
  const page = items.slice(0, limit);
  const more = items.length > limit || !exhausted;
  return {
    items: page.map((i) => i.product),
    next_cursor: more && page.length > 0 ? encodeCursor(page[page.length - 1].sk) : null,
  };
}
