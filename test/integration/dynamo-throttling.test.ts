/**
 * Throttling is normal on DynamoDB (docs/OPERATIONS.md, "Throttling"): the use cases that write the
 * most contended records — the upload's charge, a manual value, the catalog sync of a new seller — run
 * on DynamoDB Local behind a loopback proxy that answers some of their requests as DynamoDB does under
 * load (test/support/dynamo-faults.ts). A few faults: the request succeeds after the client's retries,
 * with every effect exactly once. Faults that outlast the retries: a clean failure (429 `rate_limited`
 * with Retry-After), nothing charged, nothing half-written.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as manualValueHandler } from '../../functions/reports/manual-value.handler';
import { toAppError } from '../../shared/errors';
import { bucketName, s3 } from '../../shared/files/client';
import { CatalogSync } from '../../shared/reports/worker/catalog-sync';
import { listLimitHistory } from '../../shared/store/limits.repo';
import { addProducts, getProducts } from '../../shared/store/products.repo';
import { listReports } from '../../shared/store/reports.repo';
import { getUserById } from '../../shared/store/users.repo';
import { startFaultProxy, type FaultProxy } from '../support/dynamo-faults';
import { getReportOk, makeReport, newUser, uploadMultipart, uploadOk } from '../support/reports';
import { apiEvent, bodyOf } from '../support/test-event';

/** The catalog store a sync writes to (the report composition's, shared/reports/deps.ts). */
const products = { getProducts, addProducts };

let proxy: FaultProxy;
/** Low, so that a shard's bucket runs dry within the test (production: DynamoDB's 1,000 per key). */
const CATALOG_UNITS = 100;

beforeAll(async () => {
  // Before this file's first store call: its DynamoDB client is made with the proxy's endpoint.
  proxy = await startFaultProxy(process.env.DYNAMODB_ENDPOINT!);
  process.env.DYNAMODB_ENDPOINT = proxy.url;
  process.env.CATALOG_WRITE_UNITS_PER_SECOND = String(CATALOG_UNITS);
});
afterAll(async () => {
  await proxy.stop();
});

type ErrorBody = { error: { code: string; details: Record<string, unknown> } };
const faultsAnswered = () => proxy.seen.filter((s) => s.fault !== null).length;

async function sources(userId: string): Promise<string[]> {
  const r = await s3().send(new ListObjectsV2Command({ Bucket: bucketName(), Prefix: `sources/${userId}/` }));
  return (r.Contents ?? []).map((o) => o.Key!);
}

function putValue(token: string, itemId: string, body: unknown) {
  return manualValueHandler(
    apiEvent({
      method: 'PUT',
      path: `/api/reports/items/${itemId}/manual-value`,
      token,
      pathParameters: { item_id: itemId },
      body,
    }),
  );
}

describe('upload charge under throttling', () => {
  it('a conflict, a throttled cancellation, ThrottlingException and ProvisionedThroughputExceeded: charged once, report ready', async () => {
    const u = await newUser(1000, 'throttle');
    const g = makeReport({ rows: 60, seed: 221 });
    const before = faultsAnswered();
    proxy.inject('TransactWriteItems', 'cancel_conflict');
    proxy.inject('TransactWriteItems', 'cancel_throttling');
    proxy.inject('TransactWriteItems', 'throttling');
    proxy.inject('TransactWriteItems', 'provisioned');
    const r = await uploadMultipart(u.token, g);
    expect(r.statusCode).toBe(201);
    expect(faultsAnswered() - before).toBe(4);
    const report = bodyOf<{ report: { id: string; status: string; rows: number } }>(r).report;
    expect(report.status).toBe('ready');
    expect((await getUserById(u.id))?.limits).toBe(1000 - report.rows);
    const history = (await listLimitHistory(u.id)).items;
    expect(history.filter((h) => h.operation === 'expense')).toHaveLength(1);
  });

  it('conflicts alone are outlasted: the charge retries them beyond the client (limits.repo)', async () => {
    const u = await newUser(1000, 'throttle');
    const before = faultsAnswered();
    // The client's 6 sends, then the charge's own retry of a conflict.
    proxy.inject('TransactWriteItems', 'cancel_conflict', 7);
    const r = await uploadMultipart(u.token, makeReport({ rows: 60, seed: 224 }));
    expect(r.statusCode).toBe(201);
    expect(faultsAnswered() - before).toBe(7);
    expect((await listLimitHistory(u.id)).items).toHaveLength(1);
  });

  it('throttling through every retry: 429 rate_limited with Retry-After, nothing charged, no report, no source kept', async () => {
    const u = await newUser(1000, 'throttle');
    const g = makeReport({ rows: 60, seed: 222 });
    // The transient-transaction retry sends a transaction 6 times in all (shared/store/client.ts).
    proxy.inject('TransactWriteItems', 'cancel_throttling', 6);
    const r = await uploadMultipart(u.token, g);
    proxy.clear();
    expect(r.statusCode).toBe(429);
    expect(bodyOf<ErrorBody>(r).error.code).toBe('rate_limited');
    expect(r.headers?.['Retry-After']).toBe('2');
    expect((await getUserById(u.id))?.limits).toBe(1000);
    expect((await listLimitHistory(u.id)).items).toHaveLength(0);
    expect((await listReports(u.id)).items).toHaveLength(0);
    expect(await sources(u.id)).toEqual([]);
    // And the same upload goes through once the store has room.
    expect((await uploadMultipart(u.token, g)).statusCode).toBe(201);
  });
});

describe('manual value under throttling', () => {
  it('succeeds after a conflict and throttling; fails cleanly with 429 when throttling persists', async () => {
    const u = await newUser(100_000, 'throttle');
    const report = await uploadOk(u.token, makeReport({ rows: 80, seed: 223 }));
    const item = report.items.find((i) => i.article !== '')!;

    proxy.inject('TransactWriteItems', 'cancel_conflict');
    proxy.inject('TransactWriteItems', 'provisioned');
    const ok = await putValue(u.token, item.item_id, { field: 'sales_qty', value: 777 });
    expect(ok.statusCode).toBe(200);
    expect(bodyOf<{ item: { manual_values: Record<string, number> } }>(ok).item.manual_values).toEqual({
      sales_qty: 777,
    });

    // The SDK's 5 attempts, all throttled.
    proxy.inject('TransactWriteItems', 'throttling', 5);
    const busy = await putValue(u.token, item.item_id, { field: 'sales_qty', value: 1 });
    proxy.clear();
    expect(busy.statusCode).toBe(429);
    expect(bodyOf<ErrorBody>(busy).error.code).toBe('rate_limited');
    const after = await getReportOk(u.token, report.id);
    expect(after.items.find((i) => i.item_id === item.item_id)?.manual_values).toEqual({ sales_qty: 777 });
  }, 60_000);
});

describe('catalog follow-up of a new seller', () => {
  const articles = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => `${tag}-${String(i).padStart(5, '0')}`);

  it('throttling on its puts: all products written once', async () => {
    const u = await newUser(0, 'catalog');
    const wanted = articles(450, 'faults');
    proxy.inject('PutItem', 'throttling');
    proxy.inject('PutItem', 'provisioned');
    proxy.inject('PutItem', 'throttling');
    const sync = new CatalogSync(u.id, products);
    for (const a of wanted) sync.add(a);
    const { known } = await sync.done([], null);
    expect(known.size).toBe(0);
    expect(await sync.write()).toBe(450);
    expect((await getProducts(u.id, wanted)).size).toBe(wanted.length);
  });

  it('throttling through every retry: write() fails as rate_limited; the next attempt adds the rest, once', async () => {
    const u = await newUser(0, 'catalog');
    const wanted = articles(60, 'busy');
    const sync = new CatalogSync(u.id, products);
    await sync.done(wanted, null);
    // Every put throttled through all of the client's sends.
    for (let i = 0; i < 1000; i++) proxy.inject('PutItem', 'throttling');
    const e = await sync.write().catch((err: unknown) => err);
    proxy.clear();
    expect(toAppError(e).code).toBe('rate_limited');
    // Puts still in flight may have got through once the faults ran out: the rest is missing.
    const written = (await getProducts(u.id, wanted)).size;
    expect(written).toBeLessThan(60);
    // The follow-up's next attempt looks up again and adds exactly what is missing.
    const again = new CatalogSync(u.id, products);
    expect(await again.complete(wanted)).toBe(60 - written);
    expect((await getProducts(u.id, wanted)).size).toBe(60);
  });

  it(`new products spread over the shards, each paced (CATALOG_WRITE_UNITS_PER_SECOND = ${CATALOG_UNITS} per key)`, async () => {
    const u = await newUser(0, 'catalog');
    const wanted = articles(1000, 'paced');
    const from = proxy.seen.length;
    const sync = new CatalogSync(u.id, products);
    await sync.done(wanted, null);
    await sync.write();
    const mine = `USER#${u.id}#PRODUCTS#`;
    const puts = proxy.seen.slice(from).filter((s) => s.op === 'PutItem' && s.pk?.startsWith(mine));
    expect(puts).toHaveLength(1000);
    const byKey = new Map<string, typeof puts>();
    for (const s of puts) byKey.set(s.pk!, [...(byKey.get(s.pk!) ?? []), s]);
    // Eight partition keys of this seller, ~125 products each.
    expect(byKey.size).toBe(8);
    for (const sent of byKey.values()) {
      // A key's bucket holds a second (100 units) and refills at 100 a second: the rest of its ~125 waits.
      expect(sent.at(-1)!.at - sent[0]!.at).toBeGreaterThanOrEqual(100);
      for (const s of sent) {
        expect(sent.filter((t) => t.at >= s.at && t.at < s.at + 1000).length).toBeLessThanOrEqual(2 * CATALOG_UNITS);
      }
    }
    expect((await getProducts(u.id, wanted)).size).toBe(1000);
  });
});
