/**
 * The user's product catalog: cost price per article (kopecks per unit), as a list of dated periods
 * (`cost_prices: [{valid_from, cost_price}]`, docs/METRICS.md: a report takes the price in force on the
 * middle of its period). `cost_price` is the price in force today (what the list shows) and
 * `cost_price_set` says whether the seller ever gave one: products added by a report keep cost_price 0
 * and `cost_price_set: false` until then. Key `USER#<userId>#PRODUCTS#<shard>` / `PRODUCT#<article>`
 * (keys.ts productKey: a seller's catalog is spread over PRODUCT_SHARDS partition keys by a hash of the
 * article, so a big seller's catalog fills at several times one key's 1,000 write units a second; the
 * list merges one Query per shard by article). Articles are WB `sa_name` as written: any characters, Cyrillic, "/",
 * "#" and "%" included; DynamoDB keys take any UTF-8, so the article goes into the sort key as is.
 * Only an article whose key would pass DynamoDB's 1024-byte sort-key limit is keyed by a prefix and a
 * hash instead (stored with the full article, so lists and lookups still see the real text).
 */
import { createHash } from 'node:crypto';
import { BatchGetCommand, BatchWriteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { MAX_ARTICLE_LENGTH } from '../contract/shapes';
import { badRequest, conflict } from '../errors';
import { costPriceOn, costPricesOn, isIsoDate, sortPeriods, type CostPricePeriod } from '../engine/periods';
import { getConfig } from '../config';
import { systemClock } from '../deps';
import { ddb, queryAll, tableName } from './client';
import { BucketsByKey, TokenBucket } from './write-pace';
import { backoff, conditionHeld, isConditionFailed, sleep } from './dynamo-errors';
import { PRODUCT_PREFIX, PRODUCT_SHARDS, productKey, productPartition, type Key } from './keys';
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

/** The article as its sort key holds it: itself, or a stable hashed form of an over-long one. */
export function productSortArticle(article: string): string {
  if (Buffer.byteLength(article, 'utf8') <= MAX_ARTICLE_KEY_BYTES) return article;
  const hash = createHash('sha256').update(article, 'utf8').digest('hex');
  return `${article.slice(0, 100)}#${hash}`;
}

/** The record's key: the article's shard (keys.ts productKey), sorted by the article. */
export function productRecordKey(userId: string, article: string): Key {
  return productKey(userId, article, productSortArticle(article));
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

/** New products' conditional puts in flight at once (one request each; no transaction needed). */
const PUT_CONCURRENCY = 32;

/**
 * The pace of catalog writes per partition key (a catalog shard, `USER#<id>#PRODUCTS#<n>`): DynamoDB
 * serves one partition at most 1,000 write units a second (docs/ARCHITECTURE.md "Limits"), and a
 * product put (an item under 1 KB) costs 1. A bucket per shard key refills at
 * CATALOG_WRITE_UNITS_PER_SECOND (1,000) and holds one second of it, so a new seller's 5,000 articles
 * (~625 per shard) go out at once, while 80,000 would take ten seconds instead of throttling.
 */
export const catalogPace = new BucketsByKey(() => {
  const rate = getConfig().CATALOG_WRITE_UNITS_PER_SECOND;
  return new TokenBucket({ unitsPerSecond: rate, burst: rate, clock: systemClock });
});

/**
 * Adds the articles missing from the catalog with cost_price 0, not set (docs/METRICS.md: "An article
 * missing from the catalog is added with cost_price 0"). An existing product is never touched, whatever
 * runs at the same time: a BatchGet finds which are missing, and each of those is written with a plain
 * conditional put (`attribute_not_exists(pk)`, 1 write unit; a BatchWrite cannot carry the condition and
 * a transaction would cost 2 units for an atomicity nobody needs), many in flight, paced per shard
 * (catalogPace). A product that appeared meanwhile (another upload, the seller setting a price) is left
 * as it is.
 */
export async function ensureProducts(userId: string, articles: readonly string[]): Promise<void> {
  const wanted = distinctArticles(articles);
  if (wanted.length === 0) return;
  const found = await getProducts(userId, wanted);
  await addProducts(
    userId,
    wanted.filter((a) => !found.has(a)),
  );
}

/**
 * Writes the given articles as new products (cost price 0, not set), each on the condition that it does
 * not exist yet: the caller looked them up as missing (a product that appeared since is left alone).
 * Answers the articles it added. Throttling is retried by the client, then throws (the caller retries
 * the whole call: every put is idempotent).
 */
export async function addProducts(
  userId: string,
  articles: readonly string[],
): Promise<{ created: string[]; at: string }> {
  const now = new Date().toISOString();
  const created: string[] = [];
  const wanted = distinctArticles(articles);
  let next = 0;
  let failure: { error: unknown } | null = null;
  // After a failure no new put starts, and the call answers only once those in flight ended: nothing of
  // it is still being written when the caller's next attempt looks the articles up.
  const lane = async () => {
    while (next < wanted.length && !failure) {
      const article = wanted[next++]!;
      const item = productItem(userId, article, [], now);
      try {
        await catalogPace.take(item.pk, 1);
        const wrote = await conditionHeld(
          ddb().send(
            new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
          ),
        );
        if (wrote) created.push(article);
      } catch (e) {
        failure ??= { error: e };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PUT_CONCURRENCY, wanted.length) }, lane));
  if (failure) throw (failure as { error: unknown }).error;
  return { created, at: now };
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

/** DynamoDB orders string sort keys by their UTF-8 bytes; so does the merge of the shards. */
const byKeyBytes = (a: Buffer, b: Buffer): number => Buffer.compare(a, b);

/** One shard's products in key order, read a page at a time as the merge needs them. */
class ShardReader {
  private buf: Array<{ key: Buffer; sk: string; product: ProductRecord }> = [];
  private next: Record<string, unknown> | undefined;
  private started = false;

  constructor(
    private readonly query: Omit<ConstructorParameters<typeof QueryCommand>[0], 'ExclusiveStartKey' | 'Limit'>,
    private readonly pageSize: number,
  ) {}

  get done(): boolean {
    return this.started && this.buf.length === 0 && !this.next;
  }

  head(): { key: Buffer; sk: string; product: ProductRecord } | undefined {
    return this.buf[0];
  }

  shift() {
    return this.buf.shift();
  }

  /** Reads on until a product is buffered or the shard ends. */
  async fill(): Promise<void> {
    while (this.buf.length === 0 && (!this.started || this.next)) {
      const r = await ddb().send(
        new QueryCommand({ ...this.query, Limit: this.pageSize, ExclusiveStartKey: this.next }),
      );
      this.started = true;
      this.next = r.LastEvaluatedKey;
      for (const item of r.Items ?? []) {
        const sk = String(item.sk);
        this.buf.push({ key: Buffer.from(sk, 'utf8'), sk, product: productOfItem(item) });
      }
    }
  }
}

/**
 * Products ordered by article (the sort key), `limit` per page: one Query per catalog shard, merged by
 * sort key (each shard read a slice at a time, ahead only as far as the merge needs). With a search,
 * each shard reads on until the merge has `limit` matches or the shards end; the cursor is the last
 * RETURNED product's sort key (base64url), the same in every shard, so nothing is skipped between
 * pages. A malformed cursor → 400 `invalid_cursor`.
 */
export async function listProducts(userId: string, opts: ListProductsOptions = {}): Promise<ProductPage> {
  const limit = Math.max(1, Math.min(opts.limit ?? PAGE_SIZE, 500));
  // Every sort key of a shard is PRODUCT#<at least one character>, so "after PRODUCT#" is the start.
  const after = opts.cursor ? decodeCursor(opts.cursor, (key) => key.startsWith(PRODUCT_PREFIX)) : PRODUCT_PREFIX;
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
  // A shard holds ~1/PRODUCT_SHARDS of a page; read a little more so most pages take one Query a shard.
  const slice = Math.ceil((limit + 1) / PRODUCT_SHARDS) + 8;
  const shards = Array.from(
    { length: PRODUCT_SHARDS },
    (_, n) =>
      new ShardReader(
        {
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk AND sk > :after',
          FilterExpression: filtered ? filters.join(' AND ') : undefined,
          ExpressionAttributeValues: { ':pk': productPartition(userId, n), ':after': after, ...values },
          ConsistentRead: true,
        },
        filtered ? Math.max(slice * 4, 100) : slice,
      ),
  );
  const page: Array<{ sk: string; product: ProductRecord }> = [];
  let more = false;
  for (;;) {
    await Promise.all(shards.filter((r) => !r.head() && !r.done).map((r) => r.fill()));
    let least: ShardReader | undefined;
    for (const r of shards) {
      const h = r.head();
      if (h && (!least || byKeyBytes(h.key, least.head()!.key) < 0)) least = r;
    }
    if (!least) break;
    if (page.length === limit) {
      more = true;
      break;
    }
    page.push(least.shift()!);
  }
  return {
    items: page.map((i) => i.product),
    next_cursor: more && page.length > 0 ? encodeCursor(page[page.length - 1]!.sk) : null,
  };
}

/**
 * Every product of the user's catalog (one Query per shard, in parallel; in no particular order): the
 * reads that want the whole catalog (analytics' cost prices, a big report's stale check).
 */
export async function listAllProducts(userId: string): Promise<ProductRecord[]> {
  const shards = await Promise.all(
    Array.from({ length: PRODUCT_SHARDS }, (_, n) =>
      queryAll({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': productPartition(userId, n) },
        ConsistentRead: true,
      }),
    ),
  );
  return shards.flat().map(productOfItem);
}
