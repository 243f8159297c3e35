/**
 * Sellers of a user (docs/API.md, Catalog and sellers). A seller is created on demand when an uploaded
 * file's name carries a seller number; `USER#<userId>` / `SELLERNUM#<number>` is the uniqueness marker
 * (seller by user and number), written in ONE transaction with the seller record under
 * `attribute_not_exists`, so two concurrent uploads of the same seller's files create one seller.
 */
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { badRequest, notFound } from '../errors';
import { sortPeriods, type TaxPeriod } from '../engine/periods';
import type { AllocationMethod, TaxProfile } from '../engine/types';
import { cleanPeriod, profileToday } from './users.repo';
import { ddb, putNew, queryAll, tableName, updateExisting } from './client';
import { cancellationCodes, isTransactionConflict, sleep, backoff } from './dynamo-errors';
import { parseStored, RECORD_VERSIONS, storedSeller } from './records';
import { SELLER_PREFIX, newId, reportSellerIndex, sellerKey, sellerNumberKey } from './keys';

export interface SellerRecord {
  id: string;
  /** The WB seller number as found in file names (digits). */
  number: string;
  name: string;
  /** The seller's own tax profile in force today; null = the user's default applies. */
  tax: TaxProfile | null;
  /** The seller's own tax profile by date; null = the user's default applies. */
  tax_periods: TaxPeriod[] | null;
  /** The seller's own allocation method; null = the user's applies. */
  allocation: AllocationMethod | null;
  created_at: string;
  updated_at: string;
}

/** Seller ids are our ULID-style ids; anything else cannot exist and is answered as not found. */
const SELLER_ID = /^[0-9A-Z]{26}$/;
/** Seller numbers as the file-name parser yields them; bounded so keys stay small. */
const SELLER_NUMBER = /^[0-9A-Za-z_-]{1,64}$/;

export const defaultSellerName = (number: string): string => `Продавец ${number}`;

/** The seller of a stored item; StoredRecordError (naming the key) when it is not of the current shape. */
function fromItem(item: Record<string, unknown>): SellerRecord {
  const s = parseStored('seller', storedSeller, item);
  const periods = s.tax_periods && s.tax_periods.length > 0 ? s.tax_periods.map(cleanPeriod) : null;
  return {
    id: s.id,
    number: s.number,
    name: s.name,
    tax: periods ? profileToday(periods) : null,
    tax_periods: periods,
    allocation: s.allocation,
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

export async function getSeller(userId: string, sellerId: string): Promise<SellerRecord | null> {
  if (!SELLER_ID.test(sellerId)) return null;
  const r = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: sellerKey(userId, sellerId), ConsistentRead: true }),
  );
  return r.Item ? fromItem(r.Item) : null;
}

async function getSellerByNumber(userId: string, number: string): Promise<SellerRecord | null> {
  const r = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: sellerNumberKey(userId, number), ConsistentRead: true }),
  );
  const sellerId = r.Item?.seller_id;
  return typeof sellerId === 'string' ? getSeller(userId, sellerId) : null;
}

/**
 * The user's seller with this number, created (name "Продавец <number>", no own tax profile) when
 * missing. Race-safe: the loser of a concurrent creation reads the winner's seller.
 * A malformed number → 400 `invalid_seller_number`.
 */
export async function ensureSellerByNumber(userId: string, number: string): Promise<SellerRecord> {
  const n = number.trim();
  if (!SELLER_NUMBER.test(n)) throw badRequest('invalid_seller_number', 'Malformed seller number', { number });
  for (let attempt = 0; ; attempt++) {
    const existing = await getSellerByNumber(userId, n);
    if (existing) return existing;
    const now = new Date().toISOString();
    const seller: SellerRecord = {
      id: newId(),
      number: n,
      name: defaultSellerName(n),
      tax: null,
      tax_periods: null,
      allocation: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await ddb().send(
        new TransactWriteCommand({
          TransactItems: [
            putNew({
              ...sellerNumberKey(userId, n),
              type: 'seller_number',
              user_id: userId,
              number: n,
              seller_id: seller.id,
            }),
            putNew({
              ...sellerKey(userId, seller.id),
              type: 'seller',
              v: RECORD_VERSIONS.seller,
              user_id: userId,
              ...seller,
            }),
          ],
        }),
      );
      return seller;
    } catch (e) {
      const codes = cancellationCodes(e);
      const lostRace = codes?.[0] === 'ConditionalCheckFailed';
      if (!(lostRace || isTransactionConflict(e)) || attempt >= 10) throw e;
      // The winner's transaction is committed (marker and seller together), so the re-read finds it.
      if (!lostRace) await sleep(backoff(attempt));
    }
  }
}

/** Every seller of the user, ordered by creation (ids sort by time). */
export async function listSellers(userId: string): Promise<SellerRecord[]> {
  const rows = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': sellerKey(userId, '').pk, ':prefix': SELLER_PREFIX },
    ConsistentRead: true,
  });
  return rows.map(fromItem);
}

export interface SellerPatch {
  name?: string;
  /** A profile replaces the seller's own with one from the beginning; null removes it (the user's default applies again). */
  tax?: TaxProfile | null;
  /** Replaces the seller's dated profile; null removes it. */
  tax_periods?: TaxPeriod[] | null;
  /** The seller's allocation method; null = the user's applies. */
  allocation?: AllocationMethod | null;
}

/** Renames a seller and/or sets its tax profile (validated by the caller). Missing seller → 404. */
export async function updateSeller(userId: string, sellerId: string, patch: SellerPatch): Promise<SellerRecord> {
  if (!SELLER_ID.test(sellerId)) throw notFound('Seller not found', 'seller_not_found');
  const sets = ['updated_at = :now'];
  const values: Record<string, unknown> = { ':now': new Date().toISOString() };
  const names: Record<string, string> = {};
  if (patch.name !== undefined) {
    sets.push('#name = :name');
    names['#name'] = 'name';
    values[':name'] = patch.name;
  }
  const periods =
    patch.tax_periods !== undefined
      ? patch.tax_periods
      : patch.tax !== undefined
        ? patch.tax && [{ valid_from: null, ...patch.tax }]
        : undefined;
  if (periods !== undefined) {
    const sorted = periods === null ? null : sortPeriods(periods.map(cleanPeriod));
    sets.push('tax = :tax', 'tax_periods = :periods');
    values[':tax'] = sorted === null ? null : profileToday(sorted);
    values[':periods'] = sorted;
  }
  if (patch.allocation !== undefined) {
    sets.push('allocation = :allocation');
    values[':allocation'] = patch.allocation;
  }
  const attributes = await updateExisting(
    {
      Key: sellerKey(userId, sellerId),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ExpressionAttributeNames: Object.keys(names).length > 0 ? names : undefined,
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    },
    () => notFound('Seller not found', 'seller_not_found'),
  );
  return fromItem(attributes ?? {});
}

/**
 * Removes a seller that an upload created on demand when nothing else refers to it (issue 12: an
 * aborted and refunded upload left its auto-created seller behind). Kept when the user has touched it
 * (renamed, given a tax profile) or when any report is linked to it (gsi1); the seller and its number
 * marker go in ONE transaction, on the condition that neither changed since they were read.
 * Returns whether it was removed. A concurrent upload that picked the seller up a moment ago may
 * still link it; its report then shows no seller (its tax profile is the user's default either way).
 */
export async function removeSellerIfUnused(userId: string, sellerId: string): Promise<boolean> {
  const seller = await getSeller(userId, sellerId);
  if (!seller) return false;
  const untouched =
    seller.tax === null && seller.name === defaultSellerName(seller.number) && seller.updated_at === seller.created_at;
  if (!untouched) return false;
  const refs = await ddb().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': reportSellerIndex(userId, sellerId, '').gsi1pk },
      Limit: 1,
    }),
  );
  if ((refs.Items ?? []).length > 0) return false;
  try {
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: tableName(),
              Key: sellerKey(userId, sellerId),
              ConditionExpression:
                'attribute_exists(pk) AND (attribute_not_exists(updated_at) OR updated_at = created_at)',
            },
          },
          {
            Delete: {
              TableName: tableName(),
              Key: sellerNumberKey(userId, seller.number),
              ConditionExpression: 'seller_id = :id',
              ExpressionAttributeValues: { ':id': sellerId },
            },
          },
        ],
      }),
    );
    return true;
  } catch (e) {
    if (cancellationCodes(e) || isTransactionConflict(e)) return false;
    throw e;
  }
}
