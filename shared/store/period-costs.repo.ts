/**
 * A user's period costs (keys.ts: pk `USER#<userId>`, sk `PCOST#<costId>`): salaries, rent, services…
 * that enter the P&L below the articles (docs/METRICS.md, «P&L by month»). A cost belongs to a seller,
 * or to none (then it counts only in the P&L of all sellers). Money in kopecks.
 */
import type { PeriodCostCategory } from '../engine/pnl';
import { PERIOD_COST_PREFIX, periodCostKey } from './keys';
import { deleteUserRecord, listUserRecords, putUserRecord, putUserRecords, type UserRecordKind } from './user-records';
import { parseStored, RECORD_VERSIONS, storedPeriodCost } from './records';

export interface PeriodCostRecord {
  id: string;
  seller_id: string | null;
  name: string;
  category: PeriodCostCategory;
  /** Kopecks; per month for a monthly cost. */
  amount: number;
  kind: 'monthly' | 'one_off';
  /** Monthly: the first month (YYYY-MM) and the last one (null: open). */
  from_month: string | null;
  to_month: string | null;
  /** One-off: the day (YYYY-MM-DD). */
  date: string | null;
  created_at: string;
  updated_at: string;
}

const toItem = (userId: string, c: PeriodCostRecord): Record<string, unknown> => ({
  ...periodCostKey(userId, c.id),
  type: 'period_cost',
  v: RECORD_VERSIONS.period_cost,
  ...c,
});

const fromItem = (item: Record<string, unknown>): PeriodCostRecord => {
  const c = parseStored('period_cost', storedPeriodCost, item);
  return {
    id: c.id,
    seller_id: c.seller_id,
    name: c.name,
    category: c.category,
    amount: c.amount,
    kind: c.kind,
    from_month: c.from_month,
    to_month: c.to_month,
    date: c.date,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
};

const KIND: UserRecordKind<PeriodCostRecord> = {
  name: 'period costs',
  prefix: PERIOD_COST_PREFIX,
  key: periodCostKey,
  toItem,
  fromItem,
};

/** Every period cost of the user, in the order they were added (ids sort by time). */
export const listPeriodCosts = (userId: string): Promise<PeriodCostRecord[]> => listUserRecords(KIND, userId);

/** Writes one; with `mustExist`, only over a stored one (false when there is none). */
export const putPeriodCost = (userId: string, record: PeriodCostRecord, mustExist = false): Promise<boolean> =>
  putUserRecord(KIND, userId, record, mustExist);

/** Writes new ones (an import), 25 a batch, unprocessed ones sent again. */
export const putPeriodCosts = (userId: string, records: readonly PeriodCostRecord[]): Promise<void> =>
  putUserRecords(KIND, userId, records);

/** Deletes one; false when there was none. */
export const deletePeriodCost = (userId: string, id: string): Promise<boolean> => deleteUserRecord(KIND, userId, id);
