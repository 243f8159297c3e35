/**
 * A user's purchases of goods (keys.ts: pk `USER#<userId>`, sk `PURCH#<purchaseId>`): money paid to a
 * supplier on a day, optionally for an article and a quantity. They enter the cash flow as money out on
 * their day (docs/METRICS.md, «Cash flow»), not the P&L (the cost of goods is counted by the sales).
 * Money in kopecks.
 */
import { PURCHASE_PREFIX, purchaseKey } from './keys';
import { deleteUserRecord, listUserRecords, putUserRecord, putUserRecords, type UserRecordKind } from './user-records';
import { parseStored, RECORD_VERSIONS, storedPurchase } from './records';

export interface PurchaseRecord {
  id: string;
  seller_id: string | null;
  /** YYYY-MM-DD: the day the money went out. */
  date: string;
  /** Kopecks. */
  amount: number;
  article: string | null;
  quantity: number | null;
  comment: string | null;
  created_at: string;
  updated_at: string;
}

const toItem = (userId: string, p: PurchaseRecord): Record<string, unknown> => ({
  ...purchaseKey(userId, p.id),
  type: 'purchase',
  v: RECORD_VERSIONS.purchase,
  ...p,
});

const fromItem = (item: Record<string, unknown>): PurchaseRecord => {
  const p = parseStored('purchase', storedPurchase, item);
  return {
    id: p.id,
    seller_id: p.seller_id,
    date: p.date,
    amount: p.amount,
    article: p.article,
    quantity: p.quantity,
    comment: p.comment,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
};

const KIND: UserRecordKind<PurchaseRecord> = {
  name: 'purchases',
  prefix: PURCHASE_PREFIX,
  key: purchaseKey,
  toItem,
  fromItem,
};

/** Every purchase of the user, in the order they were added (ids sort by time). */
export const listPurchases = (userId: string): Promise<PurchaseRecord[]> => listUserRecords(KIND, userId);

/** Writes one; with `mustExist`, only over a stored one (false when there is none). */
export const putPurchase = (userId: string, record: PurchaseRecord, mustExist = false): Promise<boolean> =>
  putUserRecord(KIND, userId, record, mustExist);

/** Writes new ones (an import), 25 a batch, unprocessed ones sent again. */
export const putPurchases = (userId: string, records: readonly PurchaseRecord[]): Promise<void> =>
  putUserRecords(KIND, userId, records);

/** Deletes one; false when there was none. */
export const deletePurchase = (userId: string, id: string): Promise<boolean> => deleteUserRecord(KIND, userId, id);
