/**
 * The one-off migration (scripts/migrate.ts) against DynamoDB Local and s3rver: records of the old
 * shapes are written first — a report without `v` whose items are stored one record per item (one of
 * them corrected), `building` uploads (one abandoned, one fresh), a product with only `cost_price`,
 * a seller and a user with only `tax` — then the readers refuse them naming the key, a dry run
 * changes nothing, the migration brings each to the current shape (the readers see the same report,
 * items, prices and profiles as before), undoes the abandoned upload once (refund, items, source,
 * record), leaves the fresh one for a later run, and running it again changes nothing.
 */
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TAX_PROFILE } from '../../shared/engine/types';
import { putObject, sourceObjectKey } from '../../shared/files/objects';
import { ddb, putNew, tableName } from '../../shared/store/client';
import { getItems, writeItems } from '../../shared/store/items.repo';
import {
  itemsPartition,
  legacyProductKey,
  newId,
  productKey,
  reportBuildingIndex,
  reportKey,
  sellerKey,
  userKey,
} from '../../shared/store/keys';
import { chargeLimits, listLimitHistory } from '../../shared/store/limits.repo';
import {
  ensureProducts,
  getProduct,
  listAllProducts,
  listProducts,
  putProduct,
} from '../../shared/store/products.repo';
import { getReportAnyStatus } from '../../shared/store/reports.repo';
import { getSeller } from '../../shared/store/sellers.repo';
import { getUserById } from '../../shared/store/users.repo';
import { buildItems, readReport } from '../../shared/engine';
import { ABANDONED_UPLOAD_AFTER_MS, migrate } from '../../scripts/migrate';
import { makeReport, newUser, objectExists, uploadOk } from '../support/reports';

const MINUTE = 60_000;

async function raw(key: { pk: string; sk: string }) {
  const r = await ddb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk = :sk',
      ExpressionAttributeValues: { ':pk': key.pk, ':sk': key.sk },
      ConsistentRead: true,
    }),
  );
  return r.Items?.[0];
}

async function itemRecords(userId: string, reportId: string) {
  const r = await ddb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': itemsPartition(userId, reportId) },
      ConsistentRead: true,
    }),
  );
  return r.Items ?? [];
}

/** A report as it was stored before versions and chunks: no `v`, no `items_gen`/`version`/`status`, one record per item. */
async function toLegacyReport(userId: string, reportId: string): Promise<void> {
  const items = await getItems(userId, reportId);
  for (const c of await itemRecords(userId, reportId))
    await ddb().send(new DeleteCommand({ TableName: tableName(), Key: { pk: c.pk, sk: c.sk } }));
  for (const [i, it] of items.entries()) {
    const seq = 1_000_000 + i + 1;
    const corrected = i === 0;
    await ddb().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          pk: itemsPartition(userId, reportId),
          sk: `ITEM#${seq}`,
          type: 'item',
          item_id: it.item_id,
          article: it.article,
          category: it.category,
          nm_id: it.nm_id,
          brand: it.brand,
          computed: it.computed,
          manual_values: corrected ? { ads: 777 } : {},
          effective: corrected ? { ...it.effective, ads: 777 } : it.effective,
          rev: corrected ? 2 : 0,
        },
      }),
    );
  }
  await ddb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: reportKey(userId, reportId),
      UpdateExpression: 'REMOVE #v, items_gen, version, #s',
      ExpressionAttributeNames: { '#v': 'v', '#s': 'status' },
    }),
  );
}

/** A pre-worker upload whose process died after its charge: a `building` record without `v`, source and items stored. */
async function legacyBuilding(userId: string, seed: number, ageMs: number) {
  const g = makeReport({ rows: 40, seed });
  const parsed = await readReport({ buffer: g.file, filename: g.filename });
  const { items } = buildItems(parsed, { tax: DEFAULT_TAX_PROFILE, costPrices: {} });
  const id = newId();
  const sourceKey = sourceObjectKey(userId, id, g.filename);
  await putObject(sourceKey, g.file);
  const createdAt = new Date(Date.now() - ageMs).toISOString();
  await chargeLimits({
    userId,
    rows: parsed.rows,
    reportId: id,
    extraItems: [
      putNew({
        ...reportKey(userId, id),
        ...reportBuildingIndex(userId, createdAt),
        type: 'report',
        id,
        user_id: userId,
        title: 'crashed upload',
        status: 'building',
        rows: parsed.rows,
        source_path: sourceKey,
        seller_id: null,
        created_at: createdAt,
      }),
    ],
  });
  await writeItems(userId, id, 1, items);
  return { id, sourceKey, rows: parsed.rows };
}

describe('npm run migrate', () => {
  it('brings every old shape to the current version, undoes abandoned uploads once, and is idempotent', async () => {
    const u = await newUser(1000);
    const report = await uploadOk(u.token, makeReport({ rows: 60, seed: 61 }));
    const before = await getItems(u.id, report.id);
    await toLegacyReport(u.id, report.id);
    const stale = await legacyBuilding(u.id, 62, 11 * MINUTE);
    const fresh = await legacyBuilding(u.id, 63, 0);
    const limitsBefore = (await raw(userKey(u.id)))!.limits as number;

    // Old shapes lay under the one catalog key of before.
    const product = legacyProductKey(u.id, 'OLD-1');
    const unpriced = legacyProductKey(u.id, 'OLD-0');
    const at = '2025-01-01T00:00:00.000Z';
    for (const [key, article, price] of [
      [product, 'OLD-1', 12_345],
      [unpriced, 'OLD-0', 0],
    ] as const)
      await ddb().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...key,
            type: 'product',
            user_id: u.id,
            article,
            article_lc: article.toLowerCase(),
            cost_price: price,
            created_at: at,
          },
        }),
      );
    const sellerId = newId();
    const usn15 = { tax_system: 'usn_income_expenses', usn_rate: 15, vat_rate: 0 };
    await ddb().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...sellerKey(u.id, sellerId),
          type: 'seller',
          user_id: u.id,
          id: sellerId,
          number: '42',
          name: 'Старый',
          tax: usn15,
          created_at: at,
        },
      }),
    );
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: userKey(u.id),
        UpdateExpression: 'SET tax = :tax REMOVE #v, tax_periods, allocation',
        ExpressionAttributeNames: { '#v': 'v' },
        ExpressionAttributeValues: { ':tax': usn15 },
      }),
    );

    // The readers know only the current shapes: an old record is an error naming its key.
    const reportSk = reportKey(u.id, report.id).sk;
    await expect(getReportAnyStatus(u.id, report.id)).rejects.toThrow(
      `Stored report record USER#${u.id} / ${reportSk} does not parse: version undefined`,
    );
    await expect(getReportAnyStatus(u.id, stale.id)).rejects.toThrow('does not parse');
    // A product is read from its shard only: not found before the move.
    expect(await getProduct(u.id, 'OLD-1')).toBeNull();
    await expect(getSeller(u.id, sellerId)).rejects.toThrow('Stored seller record');
    await expect(getUserById(u.id)).rejects.toThrow('Stored user record');

    // A dry run says what it would do and writes nothing.
    const dry = await migrate({ dryRun: true });
    expect(dry.upgraded.report).toBeGreaterThanOrEqual(1);
    expect(dry.building_undone).toBeGreaterThanOrEqual(1);
    await expect(getReportAnyStatus(u.id, report.id)).rejects.toThrow('does not parse');
    expect((await itemRecords(u.id, report.id)).every((r) => String(r.sk).startsWith('ITEM#'))).toBe(true);
    expect(await objectExists(stale.sourceKey)).toBe(true);

    const lines: string[] = [];
    const first = await migrate({ out: (l) => lines.push(l) });
    const mine = (pk: string) => first.errors.filter((e) => e.includes(pk));
    expect(mine(u.id)).toEqual([]);
    expect(first.items_rewritten).toBeGreaterThanOrEqual(1);
    expect(first.refunded_rows).toBeGreaterThanOrEqual(stale.rows);
    expect(lines.some((l) => l.includes(fresh.id) && l.includes('run again later'))).toBe(true);

    // The report reads as before: same items and ids, the correction kept (with its revision).
    const migrated = await getReportAnyStatus(u.id, report.id);
    expect(migrated).toMatchObject({ status: 'ready', items_gen: 1, version: 1, item_count: before.length });
    expect((await raw(reportKey(u.id, report.id)))!.v).toBe(1);
    const after = await getItems(u.id, report.id);
    expect(after.map((i) => i.item_id)).toEqual(before.map((i) => i.item_id));
    expect(after.map((i) => i.computed)).toEqual(before.map((i) => i.computed));
    expect(after[0]).toMatchObject({ manual_values: { ads: 777 }, rev: 2 });
    expect(after[0]!.effective.ads).toBe(777);
    expect(after.slice(1).every((i) => i.rev === 0 && Object.keys(i.manual_values).length === 0)).toBe(true);
    const records = await itemRecords(u.id, report.id);
    expect(records.some((r) => r.computed !== undefined)).toBe(false);
    expect(records.filter((r) => String(r.sk).startsWith('ITEM#'))).toHaveLength(1);

    // The abandoned upload is undone: refunded once, nothing of it left; the fresh one waits.
    expect(await getReportAnyStatus(u.id, stale.id)).toBeNull();
    expect(await objectExists(stale.sourceKey)).toBe(false);
    expect(await itemRecords(u.id, stale.id)).toEqual([]);
    expect((await raw(reportKey(u.id, fresh.id)))!.status).toBe('building');
    expect(await objectExists(fresh.sourceKey)).toBe(true);

    // Prices and profiles as the old readers saw them.
    expect(await getProduct(u.id, 'OLD-1')).toMatchObject({
      cost_price: 12_345,
      cost_price_set: true,
      cost_prices: [{ valid_from: null, cost_price: 12_345 }],
      updated_at: at,
    });
    expect(await getProduct(u.id, 'OLD-0')).toMatchObject({ cost_price: 0, cost_price_set: false, cost_prices: [] });
    expect(await raw(product)).toBeUndefined();
    expect(first.products_moved).toBeGreaterThanOrEqual(2);
    expect(await getSeller(u.id, sellerId)).toMatchObject({
      tax: usn15,
      tax_periods: [{ valid_from: null, ...usn15 }],
      allocation: null,
      updated_at: at,
    });
    const user = await getUserById(u.id);
    expect(user).toMatchObject({
      tax: usn15,
      tax_periods: [{ valid_from: null, ...usn15 }],
      allocation: 'realization',
    });
    expect(user!.limits).toBe(limitsBefore + stale.rows);

    // Later (the fresh upload abandoned too), and again: the rest is done, nothing twice.
    const later = await migrate({ now: Date.now() + ABANDONED_UPLOAD_AFTER_MS + MINUTE });
    expect(later.errors.filter((e) => e.includes(u.id))).toEqual([]);
    expect(await getReportAnyStatus(u.id, fresh.id)).toBeNull();
    const again = await migrate({ now: Date.now() + ABANDONED_UPLOAD_AFTER_MS + MINUTE });
    expect(again.building_left).toBe(0);
    expect(again.errors.filter((e) => e.includes(u.id))).toEqual([]);
    const refunds = (await listLimitHistory(u.id)).items.filter((h) => h.operation === 'refund');
    expect(refunds.map((h) => [h.report_id, h.rows]).sort()).toEqual(
      [
        [stale.id, stale.rows],
        [fresh.id, fresh.rows],
      ].sort(),
    );
    expect((await getUserById(u.id))!.limits).toBe(limitsBefore + stale.rows + fresh.rows);
  });

  it("moves a copy of today's catalog records to their shards: prices, lists and lookups as before, once", async () => {
    const u = await newUser(0);
    const at = '2026-05-01T10:00:00.000Z';
    const long = `ДЛИННЫЙ-${'я'.repeat(600)}`;
    // Today's records as the previous version wrote them: one key, current shape.
    const today = [
      { article: 'Футболка/синяя #1', prices: [{ valid_from: null, cost_price: 50_000 }] },
      {
        article: 'A-2',
        prices: [
          { valid_from: null, cost_price: 100 },
          { valid_from: '2026-03-01', cost_price: 200 },
        ],
      },
      { article: 'A-3', prices: [] },
      { article: long, prices: [{ valid_from: null, cost_price: 7 }] },
      { article: 'RACE', prices: [{ valid_from: null, cost_price: 999 }] },
      { article: 'PRICED-SINCE', prices: [{ valid_from: null, cost_price: 1 }] },
    ];
    const skOf = (article: string) => (article === long ? `${long.slice(0, 100)}#hash-of-it` : article);
    for (const p of today) {
      const sk = skOf(p.article);
      await ddb().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...legacyProductKey(u.id, sk),
            type: 'product',
            v: 1,
            user_id: u.id,
            article: p.article,
            article_lc: p.article.toLowerCase(),
            cost_price: p.prices.at(-1)?.cost_price ?? 0,
            cost_price_set: p.prices.length > 0,
            cost_prices: p.prices,
            created_at: at,
            updated_at: at,
          },
        }),
      );
    }
    // Between the deploy and the migration: a report added RACE unpriced at its shard (gives way to the
    // stored price), and the seller priced PRICED-SINCE anew (stays).
    await ensureProducts(u.id, ['RACE']);
    await putProduct(u.id, 'PRICED-SINCE', 4_242, null);

    const first = await migrate();
    expect(first.errors.filter((e) => e.includes(u.id))).toEqual([]);
    expect(await getProduct(u.id, 'Футболка/синяя #1')).toMatchObject({ cost_price: 50_000, cost_price_set: true });
    expect((await getProduct(u.id, 'A-2'))?.cost_prices).toEqual(today[1]!.prices);
    expect(await getProduct(u.id, 'A-3')).toMatchObject({ cost_price: 0, cost_price_set: false });
    expect((await getProduct(u.id, 'RACE'))?.cost_price).toBe(999);
    expect((await getProduct(u.id, 'PRICED-SINCE'))?.cost_price).toBe(4_242);
    // The over-long article keeps its stored sort key, now in the shard of its article.
    const moved = (await listAllProducts(u.id)).find((p) => p.article === long);
    expect(moved?.cost_price).toBe(7);
    // The list, in pages of 2, gives every product once, in key order; nothing is left under the old key.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof listProducts>> = await listProducts(u.id, { limit: 2, cursor });
      seen.push(...page.items.map((p) => p.article));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(today.length);
    expect(new Set(seen).size).toBe(today.length);
    const keyOrder = [...seen].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(seen).toEqual(keyOrder);
    for (const p of today) expect(await raw(legacyProductKey(u.id, skOf(p.article)))).toBeUndefined();
    expect(productKey(u.id, 'A-2').pk).toMatch(new RegExp(`^USER#${u.id}#PRODUCTS#[0-7]$`));

    const again = await migrate();
    expect(again.errors.filter((e) => e.includes(u.id))).toEqual([]);
    expect((await listAllProducts(u.id)).length).toBe(today.length);
  });
});
