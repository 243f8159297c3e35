/**
 * Key formats of the single table (docs/ARCHITECTURE.md "Data"). Table: `pk`, `sk` (strings); GSIs `gsi1`
 * (`gsi1pk`, `gsi1sk`) and `gsi2` (`gsi2pk`, `gsi2sk`), projection ALL; TTL attribute `ttl` (epoch s).
 * Every record also carries `type` (the entity) so scans and debugging read well.
 *
 * | entity            | pk                          | sk                     | GSI                                               | access pattern |
 * |-------------------|-----------------------------|------------------------|---------------------------------------------------|----------------|
 * | user              | USER#<userId>               | PROFILE                |                                                   | user by id |
 * | email marker      | EMAIL#<email lower-case>    | EMAIL                  |                                                   | user by email; uniqueness (conditional put with the user, one transaction) |
 * | role              | ROLE#<name>                 | ROLE                   |                                                   | does role `seller` exist |
 * | limit history     | USER#<userId>               | LIMIT#<historyId>      |                                                   | by user newest first (ids sort by time; query descending) |
 * | idempotency key   | IDEMPOTENCY#<scope>#<key>   | IDEMPOTENCY            |                                                   | top-up replay, refund once per report; `ttl` |
 * | mail throttle     | THROTTLE#<kind>#<email>     | THROTTLE               |                                                   | ≤ 3 mails per hour per address; `ttl` |
 * | IP throttle       | THROTTLE#<register_ip or reset_ip>#<ip> | THROTTLE   |                                                   | registrations / reset requests per source IP per hour; `ttl` |
 * | sign-in lockout   | THROTTLE#<login_account or login_ip>#<email or ip> | THROTTLE |                                     | failures in 15 min, `locked_until`; `ttl` |
 * | used token        | TOKEN#<jti>                 | USED                   |                                                   | one-time reset links; `ttl` = token expiry |
 * | combine job       | JOB#<userId>#<jobId>        | JOB                    |                                                   | a combine job's state for any process: status, progress, report id or error; `ttl` |
 * | report            | USER#<userId>               | REPORT#<reportId>      | gsi1: USER#<userId>#SELLER#<sellerId> / REPORT#<reportId> | reports by user newest first (query pk, begins_with REPORT#, descending); by seller via gsi1 descending |
 * |                   |                             |                        | gsi2 (only while `building`): USER#<userId>#BUILDING / <created_at> | a user's unfinished uploads, oldest first (recovery of abandoned uploads) |
 * | report item       | ITEMS#<userId>#<reportId>   | ITEM#<seq, 6 digits>   |                                                   | an item's correction (manual values, rev): item by item_id (`<reportId>.<seq>` → GetItem); before chunks, the whole item |
 * | item chunk        | ITEMS#<userId>#<reportId>   | CHUNK#<first seq, 15 digits> |                                             | a report's computed items, gzip-compressed, a few per report (items.repo.ts; query pk + sk range of a generation) |
 * | seller            | USER#<userId>               | SELLER#<sellerId>      |                                                   | sellers by user (query pk, begins_with SELLER#) |
 * | seller number     | USER#<userId>               | SELLERNUM#<number>     |                                                   | seller by user and number; uniqueness (conditional put with the seller) |
 * | product           | USER#<userId>#PRODUCTS#<shard 0-7> | PRODUCT#<article> |                                            | products by user and article (GetItem; shard = sha256(article)[0] % 8, PRODUCT_SHARDS); list = one Query per shard, merged by article |
 * | own costs         | USER#<userId>               | OWNCOSTS               |                                                   | every own per-unit cost line of the user in one record (GetItem; conditional Put on `rev`) |
 * | report identity   | USER#<userId>               | RIDENT#<identity>#<reportId> |                                             | does the user have this report already (query begins_with RIDENT#<identity>#, one read) |
 * | report summary    | USER#<userId>               | SUMMARY#<reportId>#<chunk, 3 digits> |                                     | analytics: every summary of a user in one query (begins_with SUMMARY#); a report's chunks (begins_with SUMMARY#<reportId>#) |
 * | period cost       | USER#<userId>               | PCOST#<costId>         |                                                   | a user's period costs (query begins_with PCOST#; P&L, docs/METRICS.md) |
 * | purchase          | USER#<userId>               | PURCH#<purchaseId>     |                                                   | a user's purchases of goods (query begins_with PURCH#; cash flow) |
 * | WB balance reading | USER#<userId>              | WBBAL#<as_of ISO>#<wb seller id> |                                         | WB's account balance as read by the sync (newest first: query descending; cash flow) |
 * | WB connection     | USER#<userId>               | WBCONN#<connectionId>  | gsi1 (while active): WBSYNC#DUE / <due ISO>#<userId>#<connectionId> | a user's connections (begins_with WBCONN#); connections due for a sync step (the tick's one Query) |
 * | WB account marker | USER#<userId>               | WBACCT#<wb seller id>  |                                                   | one connection per WB account and user (put with the connection, conditional) |
 * | WB call budget    | WBRATE#<wb seller id>       | WBRATE (Finance API) or WBRATE#<api> |                                     | the next moment a call to WB (per API) for this WB account is allowed, whoever's connection makes it |
 * | WB article costs  | WBCOST#<userId>#<wb seller id> | <kind>#<YYYY-MM-DD>#<part> |                                             | a seller's per-day per-nmId costs of one kind (ads, storage, acceptance) from one origin; a period = one Query over the sk range |
 *
 * Ownership is structural: every user-owned record's key contains the owner's id, so a read with the
 * caller's id cannot reach another user's record (it is simply not found → 404). An item id embeds its
 * report id, and its partition embeds the user id, for the same reason. gsi2 is sparse: only reports
 * still being built carry its attributes.
 */
import { createHash, randomBytes } from 'node:crypto';

export interface Key {
  pk: string;
  sk: string;
}

export const userKey = (userId: string): Key => ({ pk: `USER#${userId}`, sk: 'PROFILE' });
export const emailKey = (email: string): Key => ({ pk: `EMAIL#${normalizeEmail(email)}`, sk: 'EMAIL' });
export const roleKey = (name: string): Key => ({ pk: `ROLE#${name}`, sk: 'ROLE' });

export const LIMIT_PREFIX = 'LIMIT#';
export const limitHistoryKey = (userId: string, historyId: string): Key => ({
  pk: `USER#${userId}`,
  sk: `${LIMIT_PREFIX}${historyId}`,
});

export const idempotencyKey = (scope: string, key: string): Key => ({
  pk: `IDEMPOTENCY#${scope}#${key}`,
  sk: 'IDEMPOTENCY',
});
export const throttleKey = (kind: string, subject: string): Key => ({
  pk: `THROTTLE#${kind}#${subject}`,
  sk: 'THROTTLE',
});
export const usedTokenKey = (jti: string): Key => ({ pk: `TOKEN#${jti}`, sk: 'USED' });
/** A combine job's stored state (shared/store/jobs.repo.ts); the owner's id is in the key. */
export const jobKey = (userId: string, jobId: string): Key => ({ pk: `JOB#${userId}#${jobId}`, sk: 'JOB' });

export const REPORT_PREFIX = 'REPORT#';
export const reportKey = (userId: string, reportId: string): Key => ({
  pk: `USER#${userId}`,
  sk: `${REPORT_PREFIX}${reportId}`,
});
/** gsi1 attributes of a report linked to a seller (reports by seller, newest first). */
export const reportSellerIndex = (userId: string, sellerId: string, reportId: string) => ({
  gsi1pk: `USER#${userId}#SELLER#${sellerId}`,
  gsi1sk: `${REPORT_PREFIX}${reportId}`,
});

/**
 * gsi2 attributes of a report still being built. Sparse (removed when the report becomes ready), so
 * finding a user's unfinished uploads reads only those, never the user's other reports.
 */
export const reportBuildingIndex = (userId: string, createdAt: string) => ({
  gsi2pk: `USER#${userId}#BUILDING`,
  gsi2sk: createdAt,
});

export const ITEM_PREFIX = 'ITEM#';
/** Chunks of computed items share the items partition (so they are the owner's by key, like items). */
export const ITEM_CHUNK_PREFIX = 'CHUNK#';
export const itemsPartition = (userId: string, reportId: string): string => `ITEMS#${userId}#${reportId}`;
/** Item ids are `<reportId>.<seq>` so an item is found by its id alone, within the caller's partition. */
export const itemId = (reportId: string, seq: number): string => `${reportId}.${String(seq).padStart(6, '0')}`;
export function itemKey(userId: string, id: string): Key | null {
  const m = /^([0-9A-Za-z]+)\.(\d{6,})$/.exec(id);
  if (!m) return null;
  return { pk: itemsPartition(userId, m[1]!), sk: `${ITEM_PREFIX}${m[2]}` };
}

export const SELLER_PREFIX = 'SELLER#';
export const sellerKey = (userId: string, sellerId: string): Key => ({
  pk: `USER#${userId}`,
  sk: `${SELLER_PREFIX}${sellerId}`,
});
export const sellerNumberKey = (userId: string, number: string): Key => ({
  pk: `USER#${userId}`,
  sk: `SELLERNUM#${number}`,
});

export const PRODUCT_PREFIX = 'PRODUCT#';
/**
 * Partition keys a seller's catalog is spread over. DynamoDB serves one partition at most 1,000 write
 * units and 3,000 read units a second; with every product under one key a new seller's 5,000 articles
 * (1 unit each, plain put) took 5 s at best. Spread by a hash of the article over 8 keys, they may go
 * out at 8,000 units a second, and the list (docs/ARCHITECTURE.md "Data") reads 8 Queries merged by
 * article. 8, not more: each list page costs one Query per key.
 */
export const PRODUCT_SHARDS = 8;
/** The shard of an article: the first byte of its SHA-256 (stable across processes and versions). */
export const productShard = (article: string): number =>
  createHash('sha256').update(article, 'utf8').digest()[0]! % PRODUCT_SHARDS;
/** The partition key of one of a user's catalog shards. */
export const productPartition = (userId: string, shard: number): string => `USER#${userId}#PRODUCTS#${shard}`;
/**
 * A product's key: the shard of `article`, sorted by `skArticle` (the article itself, or the hashed
 * form of an over-long one: products.repo.ts productRecordKey).
 */
export const productKey = (userId: string, article: string, skArticle: string = article): Key => ({
  pk: productPartition(userId, productShard(article)),
  sk: `${PRODUCT_PREFIX}${skArticle}`,
});
/** Where products were kept before the shards (`npm run migrate` moves them: scripts/migrate.ts). */
export const legacyProductKey = (userId: string, skArticle: string): Key => ({
  pk: `USER#${userId}`,
  sk: `${PRODUCT_PREFIX}${skArticle}`,
});

/** All of a user's own per-unit cost lines (own-costs.repo.ts), one record. */
export const ownCostsKey = (userId: string): Key => ({ pk: `USER#${userId}`, sk: 'OWNCOSTS' });

/** One record per uploaded report under its identity (shared/reports/upload/report-identity.ts). */
export const IDENTITY_PREFIX = 'RIDENT#';
export const identityPrefix = (identity: string): string => `${IDENTITY_PREFIX}${identity}#`;
export const reportIdentityKey = (userId: string, identity: string, reportId: string): Key => ({
  pk: `USER#${userId}`,
  sk: `${identityPrefix(identity)}${reportId}`,
});

export const SUMMARY_PREFIX = 'SUMMARY#';
/** One chunk of a report's analytics summary (shared/engine/analytics/summary.ts), in the owner's partition. */
export const summaryKey = (userId: string, reportId: string, chunk: number): Key => ({
  pk: `USER#${userId}`,
  sk: `${SUMMARY_PREFIX}${reportId}#${String(chunk).padStart(3, '0')}`,
});

export const PERIOD_COST_PREFIX = 'PCOST#';
export const periodCostKey = (userId: string, costId: string): Key => ({
  pk: `USER#${userId}`,
  sk: `${PERIOD_COST_PREFIX}${costId}`,
});

export const PURCHASE_PREFIX = 'PURCH#';
export const purchaseKey = (userId: string, purchaseId: string): Key => ({
  pk: `USER#${userId}`,
  sk: `${PURCHASE_PREFIX}${purchaseId}`,
});

export const WB_BALANCE_PREFIX = 'WBBAL#';
export const wbBalanceKey = (userId: string, asOf: string, wbSellerId: string): Key => ({
  pk: `USER#${userId}`,
  sk: `${WB_BALANCE_PREFIX}${asOf}#${wbSellerId}`,
});

export const WB_CONNECTION_PREFIX = 'WBCONN#';
export const wbConnectionKey = (userId: string, connectionId: string): Key => ({
  pk: `USER#${userId}`,
  sk: `${WB_CONNECTION_PREFIX}${connectionId}`,
});
export const wbAccountKey = (userId: string, wbSellerId: string): Key => ({
  pk: `USER#${userId}`,
  sk: `WBACCT#${wbSellerId}`,
});
export const wbRateKey = (wbSellerId: string, api?: string): Key => ({
  pk: `WBRATE#${wbSellerId}`,
  sk: api ? `WBRATE#${api}` : 'WBRATE',
});
/** A seller's per-article costs from WB's other APIs (wb-costs.repo.ts). */
export const wbCostPartition = (userId: string, wbSellerId: string): string => `WBCOST#${userId}#${wbSellerId}`;
export const wbCostSort = (kind: string, date: string, part: string): string => `${kind}#${date}#${part}`;
/**
 * gsi1 of an active connection: every due connection of every user in one Query, oldest due first. (gsi1,
 * not gsi2: the recovery sweep scans all of gsi2 as reports in processing.)
 */
export const WB_DUE_PARTITION = 'WBSYNC#DUE';
export const wbDueIndex = (userId: string, connectionId: string, dueMs: number) => ({
  gsi1pk: WB_DUE_PARTITION,
  gsi1sk: `${new Date(dueMs).toISOString()}#${userId}#${connectionId}`,
});

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID-style id: 10 characters of millisecond time then 16 random ones (Crockford base32), so ids
 * sort by creation time as strings. Sort keys built from them give "newest first" with a descending
 * query. Within one process ids are strictly increasing (monotonic ULID: the same millisecond
 * increments the random part), so records written one after another keep their order.
 */
let lastTime = -1;
let lastRand: number[] = [];

export function newId(now = Date.now()): string {
  let time = now;
  let rand: number[];
  if (time <= lastTime) {
    time = lastTime;
    rand = [...lastRand];
    let i = rand.length - 1;
    while (i >= 0 && rand[i] === 31) rand[i--] = 0;
    if (i < 0) {
      time += 1;
    } else {
      rand[i]! += 1;
    }
  } else {
    rand = [...randomBytes(16)].map((b) => b % 32);
  }
  lastTime = time;
  lastRand = rand;
  let timePart = '';
  let t = time;
  for (let i = 0; i < 10; i++) {
    timePart = CROCKFORD[t % 32] + timePart;
    t = Math.floor(t / 32);
  }
  return timePart + rand.map((d) => CROCKFORD[d]).join('');
}

/** Epoch seconds for the `ttl` attribute, `seconds` from now. */
export const ttlIn = (seconds: number, now = Date.now()): number => Math.ceil(now / 1000) + seconds;
