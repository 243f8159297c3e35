/**
 * The user's product catalog: cost price per article (kopecks per unit), as a list of dated periods
 * (`cost_prices: [{valid_from, cost_price}]`, docs/METRICS.md: a report takes the price in force on the
 * middle of its period). `cost_price` is the price in force today (what the list shows) and
 * `cost_price_set` says whether the seller ever gave one: products added by a report keep cost_price 0
 * and `cost_price_set: false` until then. Key `USER#<userId>` /
 * `PRODUCT#<article>` (keys.ts). Articles are WB `sa_name` as written: any characters, Cyrillic, "/",
 * "#" and "%" included; DynamoDB keys take any UTF-8, so the article goes into the sort key as is.
 * Only an article whose key would pass DynamoDB's 1024-byte sort-key limit is keyed by a prefix and a
 * hash instead (stored with the full article, so lists and lookups still see the real text).
 */
import { createHash } from 'node:crypto';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { MAX_ARTICLE_LENGTH } from '../contract/shapes';
import { badRequest, conflict } from '../errors';
import { costPriceOn, costPricesOn, isIsoDate, sortPeriods, type CostPricePeriod } from '../engine/periods';
import { getConfig } from '../config';
import { systemClock } from '../deps';
import { ddb, tableName } from './client';
import { BucketsByKey, TokenBucket } from './write-pace';
import {
  backoff,
  cancellationCodes,
  conditionHeld,
  isConditionFailed,
  isTransactionConflict,
  sleep,
} from './dynamo-errors';
import { PRODUCT_PREFIX, productKey, type Key } from './keys';
import { decodeCursor, encodeCursor } from './cursor';
import { parseStored, RECORD_VERSIONS, storedProduct } from './records';

export interface ProductRecord {
  article: string;
  /** Kopecks per unit, in force today (0 when never set). */
  cost_price: number;
  /** False for a product a report added and the seller has not priced yet. */
  cost_price_set: boolean;
  /** The dated prices, oldest first; empty when never set. */
  cost_prices: CostPricePeriod[];
  created_at: string;
  updated_at: string;
}

const todayIso = () => new Date().toISOString().slice(0, 10);

/** Sort keys are capped at 1024 bytes; keep a margin for the prefix. */
const MAX_ARTICLE_KEY_BYTES = 900;
/** Longest article the catalog accepts (the contract's: shared/contract/shapes.ts). */
export { MAX_ARTICLE_LENGTH };

/** The record's key; an over-long article gets a stable hashed form. */
export function productRecordKey(userId: string, article: string): Key {
  if (Buffer.byteLength(article, 'utf8') <= MAX_ARTICLE_KEY_BYTES) return productKey(userId, article);
  const hash = createHash('sha256').update(article, 'utf8').digest('hex');
  return productKey(userId, `${article.slice(0, 100)}#${hash}`);
}

/** The product of a stored item; StoredRecordError (naming the key) when it is not of the current shape. */
export function productOfItem(item: Record<string, unknown>): ProductRecord {
  const p = parseStored('product', storedProduct, item);
  const periods = sortPeriods(p.cost_prices);
  return {
    article: p.article,
    cost_price: costPriceOn(periods, null, todayIso()) ?? 0,
    cost_price_set: periods.length > 0,
    cost_prices: periods,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}

function productItem(userId: string, article: string, periods: readonly CostPricePeriod[], now: string) {
  const sorted = sortPeriods(periods);
  return {
    ...productRecordKey(userId, article),
    type: 'product',
    v: RECORD_VERSIONS.product,
    user_id: userId,
    article,
    // Lower-cased copy for the case-insensitive search (DynamoDB's contains() is case-sensitive).
    article_lc: article.toLowerCase(),
    cost_price: costPriceOn(sorted, null, todayIso()) ?? 0,
    cost_price_set: sorted.length > 0,
    cost_prices: sorted.map((p) => ({ valid_from: p.valid_from, cost_price: p.cost_price })),
    created_at: now,
    updated_at: now,
  };
}

/**
 * Where a new price goes in an article's history. An explicit `valid_from` (YYYY-MM-DD, or null = from
 * the beginning) replaces the period of that date. Without one: the first price of a product applies
 * from the beginning (its reports had none); a change of an existing price applies from today, so
 * last year's reports keep theirs unless the seller dates the change.
 */
export function withPrice(
  periods: readonly CostPricePeriod[],
  costPrice: number,
  validFrom: string | null | undefined,
  today: string = todayIso(),
): CostPricePeriod[] {
  const from = validFrom !== undefined ? validFrom : periods.length === 0 ? null : today;
  return sortPeriods([...periods.filter((p) => p.valid_from !== from), { valid_from: from, cost_price: costPrice }]);
}

function assertValidFrom(validFrom: string | null | undefined): void {
  if (validFrom === undefined || validFrom === null) return;
  if (!isIsoDate(validFrom))
    throw badRequest('validation_error', 'valid_from must be a date YYYY-MM-DD', { valid_from: validFrom });
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
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

const BATCH_GET_SIZE = 100;
const BATCH_WRITE_SIZE = 25;
const CONCURRENCY = 4;
const MAX_RETRIES = 12;

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
 * Cost prices (kopecks per unit, in force today) of the given articles that are in the catalog, set or
 * not (a product never priced gives 0); an article missing from the result is not in the catalog.
 * The empty article ("Без артикула") has no catalog entry.
 */
export async function getCostPrices(userId: string, articles: readonly string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const p of (await getProducts(userId, articles)).values()) out[p.article] = p.cost_price;
  return out;
}

/** The catalog entries of the given articles (those that exist), by article. */
export async function getProducts(userId: string, articles: readonly string[]): Promise<Map<string, ProductRecord>> {
  const wanted = distinctArticles(articles);
  const items = await batchGet(wanted.map((a) => productRecordKey(userId, a)));
  const out = new Map<string, ProductRecord>();
  for (const item of items) {
    const p = productOfItem(item);
    out.set(p.article, p);
  }
  return out;
}

/**
 * What a report is built with: the price in force on `date` (the middle of the report's period; null =
 * today) of every article whose price the seller has SET. Articles not in the catalog, or added by a
 * report and never priced, are absent (the engine counts them as 0 and names them in the report's
 * `missing_cost_price` warning). `known` lists every article in the catalog.
 */
export async function getReportCostPrices(
  userId: string,
  articles: readonly string[],
  date: string | null,
): Promise<{ prices: Record<string, number>; known: Set<string> }> {
  const products = await getProducts(userId, articles);
  return { prices: costPricesOn(products.values(), date), known: new Set(products.keys()) };
}

/** Items per TransactWriteItems (DynamoDB's maximum). */
const TRANSACT_MAX = 100;
const MAX_TRANSACT_ATTEMPTS = 12;
/**
 * Transactions of new articles in flight at once. Measured on DynamoDB Local (2,000 new articles, a
 * loaded 2-core machine): 8 transactions of 100 in flight 6.5 s, 4 in flight 9.8 s, single conditional
 * puts (16 in flight) 14 s; the unconditional BatchWrite this replaces took 2.7 s but could overwrite a
 * price set meanwhile.
 */
const TRANSACT_CONCURRENCY = 8;

/**
 * The pace of new products per seller (one partition key, `USER#<id>`): a conditional put in a
 * transaction costs 2 write units (an item under 1 KB), a single put 1. A bucket per seller refills at
 * CATALOG_WRITE_UNITS_PER_SECOND and holds one full transaction, so a new seller's 10,000 articles
 * (100 transactions, 20,000 units) go out in about 40 s at the default 500 instead of 1,600 units in the
 * first instant and throttling after; a returning seller's few new articles pass at once. Paced, not
 * spread over keys: the catalog is read and listed by one Query on `USER#<id>` (by article, sorted), which
 * sharded keys would turn into a scatter-gather, for a cost paid once per seller.
 */
export const catalogPace = new BucketsByKey(() => {
  const rate = getConfig().CATALOG_WRITE_UNITS_PER_SECOND;
  return new TokenBucket({ unitsPerSecond: rate, burst: Math.max(rate, TRANSACT_MAX * 2), clock: systemClock });
});

/**
 * Adds the articles missing from the catalog with cost_price 0, not set (docs/METRICS.md: "An article
 * missing from the catalog is added with cost_price 0 when the report is built"). An existing product is
 * never touched, whatever the count: a BatchGet finds which are missing, and each of those is written
 * with the condition `attribute_not_exists(pk)` — in transactions of up to 100 conditional puts, several
 * in flight. A transaction cancelled because some products appeared meanwhile (a concurrent upload, or
 * the seller setting a price) is retried without them; a conflict with another transaction is retried
 * after a backoff. So concurrent uploads never replace a price the seller set. The writes are paced per
 * seller (catalogPace).
 */
export async function ensureProducts(userId: string, articles: readonly string[]): Promise<void> {
  await ensureProductsFound(userId, articles);
}

export interface EnsuredProducts {
  /** The products that were there before (with their prices). */
  found: Map<string, ProductRecord>;
  /** The articles this call added, all with `created_at` = `updated_at` = `at`. */
  created: string[];
  at: string;
}

/** ensureProducts that answers what it found and what it added: one read serves the prices and the writes. */
export async function ensureProductsFound(userId: string, articles: readonly string[]): Promise<EnsuredProducts> {
  const wanted = distinctArticles(articles);
  const now = new Date().toISOString();
  const created: string[] = [];
  if (wanted.length === 0) return { found: new Map(), created, at: now };
  const found = await getProducts(userId, wanted);
  const missing = wanted.filter((a) => !found.has(a));
  await inParallel(chunk(missing, TRANSACT_MAX), TRANSACT_CONCURRENCY, async (part) => {
    let pending = part;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt >= MAX_TRANSACT_ATTEMPTS) throw new Error('products: new articles kept conflicting');
      if (attempt > 0) await sleep(backoff(attempt));
      await catalogPace.take(`USER#${userId}`, pending.length === 1 ? 1 : pending.length * 2);
      try {
        if (pending.length === 1) {
          await ddb().send(
            new PutCommand({
              TableName: tableName(),
              Item: productItem(userId, pending[0]!, [], now),
              ConditionExpression: 'attribute_not_exists(pk)',
            }),
          );
        } else {
          await ddb().send(
            new TransactWriteCommand({
              TransactItems: pending.map((article) => ({
                Put: {
                  TableName: tableName(),
                  Item: productItem(userId, article, [], now),
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              })),
            }),
          );
        }
        created.push(...pending);
        pending = [];
      } catch (e) {
        if (isConditionFailed(e)) {
          pending = [];
          continue;
        }
        const codes = cancellationCodes(e);
        if (codes && codes.includes('ConditionalCheckFailed')) {
          // Those products exist now: leave them as they are, write the rest.
          pending = pending.filter((_, i) => codes[i] !== 'ConditionalCheckFailed');
          continue;
        }
        if (!isTransactionConflict(e) && !(codes && codes.includes('TransactionConflict'))) throw e;
      }
    }
  });
  return { found, created, at: now };
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
  return r.Item ? productOfItem(r.Item) : null;
}

export interface PutProductResult {
  product: ProductRecord;
  created: boolean;
}

const MAX_PUT_ATTEMPTS = 8;

/**
 * Sets the article's cost price (kopecks per unit), creating the product when missing. `validFrom`
 * places it in the history (withPrice: undefined = the first price from the beginning, a change from
 * today; a date = from that date; null = from the beginning). Read, then written on the condition that
 * the record did not change meanwhile (retried), so two writers never lose each other's periods.
 */
export async function putProduct(
  userId: string,
  article: string,
  costPriceKopecks: number,
  validFrom?: string | null,
): Promise<PutProductResult> {
  assertArticle(article);
  assertCostPrice(costPriceKopecks);
  assertValidFrom(validFrom);
  const key = productRecordKey(userId, article);
  for (let attempt = 0; ; attempt++) {
    const r = await ddb().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
    const prior = r.Item;
    const now = new Date().toISOString();
    const periods = withPrice(prior ? productOfItem(prior).cost_prices : [], costPriceKopecks, validFrom);
    const createdAt = typeof prior?.created_at === 'string' ? prior.created_at : now;
    const item = { ...productItem(userId, article, periods, now), created_at: createdAt };
    try {
      await ddb().send(
        new PutCommand({
          TableName: tableName(),
          Item: item,
          ...(prior
            ? {
                ConditionExpression: 'attribute_exists(pk) AND updated_at = :prev',
                ExpressionAttributeValues: { ':prev': prior.updated_at ?? prior.created_at },
              }
            : { ConditionExpression: 'attribute_not_exists(pk)' }),
        }),
      );
      return { product: productOfItem(item), created: prior === undefined };
    } catch (e) {
      if (!isConditionFailed(e)) throw e;
      if (attempt + 1 >= MAX_PUT_ATTEMPTS)
        throw conflict('product_busy', 'The product is being changed by another request; try again');
      await sleep(backoff(attempt));
    }
  }
}

export interface ImportRow {
  article: string;
  costPriceKopecks: number;
  /** From the file's optional date column (YYYY-MM-DD); absent = as a plain PUT (withPrice). */
  validFrom?: string | null;
}

export interface ImportResult {
  created: number;
  updated: number;
  /** Articles of the rows not in the catalog and left out (without `createMissing`), in the rows' order. */
  unknown: string[];
}

export interface ImportOptions {
  /** Add the articles the catalog does not know; without it their rows are left out and listed. */
  createMissing?: boolean;
}

/**
 * Applies catalog rows (already validated; rows of one article are applied in file order, each as a
 * PUT would: dated ones into their period, undated ones as withPrice says). Existing articles are
 * updated, new ones created; both written with BatchWrite in chunks of 25 with retry of UnprocessedItems
 * (an import sets prices by design, so no condition is needed). Articles the catalog does not know are
 * created only with `createMissing`; else they are answered as `unknown` (a typo or another seller's
 * article must not become a product).
 */
export async function importProducts(
  userId: string,
  rows: readonly ImportRow[],
  opts: ImportOptions = {},
): Promise<ImportResult> {
  const last = new Map<string, ImportRow[]>();
  for (const r of rows) {
    assertArticle(r.article);
    assertCostPrice(r.costPriceKopecks);
    assertValidFrom(r.validFrom);
    // push, not a spread: a file of many rows of one article must stay linear (issue 12: no long
    // synchronous loop; 14,000 rows of one article took seconds with a copy per row).
    const list = last.get(r.article);
    if (list) list.push(r);
    else last.set(r.article, [r]);
  }
  if (last.size === 0) return { created: 0, updated: 0, unknown: [] };
  const existing = new Map<string, ProductRecord>();
  for (const item of await batchGet([...last.keys()].map((a) => productRecordKey(userId, a)))) {
    const p = productOfItem(item);
    existing.set(p.article, p);
  }
  const now = new Date().toISOString();
  let created = 0;
  const unknown: string[] = [];
  const applied = [...last].filter(([article]) => {
    if (existing.has(article) || opts.createMissing) return true;
    unknown.push(article);
    return false;
  });
  const items = applied.map(([article, articleRows]) => {
    const prior = existing.get(article);
    if (!prior) created++;
    let periods = prior?.cost_prices ?? [];
    for (const r of articleRows) periods = withPrice(periods, r.costPriceKopecks, r.validFrom);
    return { ...productItem(userId, article, periods, now), created_at: prior?.created_at ?? now };
  });
  if (items.length > 0) await batchPut(items);
  return { created, updated: items.length - created, unknown };
}

export interface ProductPage {
  items: ProductRecord[];
  next_cursor: string | null;
}

export interface ListProductsOptions {
  /** Case-insensitive substring of the article. */
  search?: string;
  /** Only products whose cost price was never set. */
  missing?: boolean;
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
  const filters: string[] = [];
  const values: Record<string, unknown> = {};
  if (search) {
    filters.push('contains(article_lc, :q)');
    values[':q'] = search;
  }
  if (opts.missing) {
    filters.push('cost_price_set = :f');
    values[':f'] = false;
  }
  const filtered = filters.length > 0;
  const items: Array<{ sk: string; product: ProductRecord }> = [];
  let exhausted = false;
  while (items.length < limit) {
    const r = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: filtered ? filters.join(' AND ') : undefined,
        ExpressionAttributeValues: { ':pk': pk, ':prefix': PRODUCT_PREFIX, ...values },
        // Read a little ahead so the page's last item is known to be followed by more (or not).
        Limit: filtered ? Math.max(limit * 4, 200) : limit + 1,
        ExclusiveStartKey: startKey,
        ConsistentRead: true,
      }),
    );
    for (const item of r.Items ?? []) items.push({ sk: String(item.sk), product: productOfItem(item) });
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
    next_cursor: more && page.length > 0 ? encodeCursor(page[page.length - 1]!.sk) : null,
  };
}

/**
 * Removes products an upload added (`ensureProductsFound`'s `created`) when its report failed, unless
 * anything changed them since (a price set: `updated_at` moved on). Best effort, for a failed upload to
 * leave nothing behind.
 */
export async function removeUntouchedProducts(userId: string, articles: readonly string[], at: string): Promise<void> {
  await inParallel([...articles], CONCURRENCY, async (article) => {
    await conditionHeld(
      ddb().send(
        new DeleteCommand({
          TableName: tableName(),
          Key: productRecordKey(userId, article),
          ConditionExpression: 'updated_at = :at AND cost_price_set = :no',
          ExpressionAttributeValues: { ':at': at, ':no': false },
        }),
      ),
    );
  });
}
