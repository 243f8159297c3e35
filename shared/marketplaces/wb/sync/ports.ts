/**
 * The WB connection store as the sync's steps use it (shared/store/wb-connections.repo.ts in production,
 * test/support/wb-connections-memory.ts in unit tests): conditional writes by revision, the lease and the
 * WB account's call budget taken in one claim.
 */
import type { WbConnectionRecord } from '../../../store/wb-connections.repo';

/** What a claim got: the connection leased to this step, another step's lease, or the account's budget taken. */
export type StepClaim =
  { kind: 'claimed'; connection: WbConnectionRecord } | { kind: 'busy' } | { kind: 'budget'; until: number };

export interface ConnectionStore {
  getConnection(userId: string, id: string): Promise<WbConnectionRecord | null>;
  /** Writes `c` if its revision is still the stored one; null: another write came first. */
  saveConnection(c: WbConnectionRecord): Promise<WbConnectionRecord | null>;
  /**
   * Leases the connection and reserves its WB account's budget (`api`'s, the Finance API's by default)
   * until `budgetUntil`, held by `holder`, if the budget is free at `now`.
   */
  claimStep(c: WbConnectionRecord, now: number, budgetUntil: number, api?: string, holder?: string): Promise<StepClaim>;
  /** WB answered: the account's next call at `nextAt`, if `holder` still holds the budget. */
  releaseBudget(wbSellerId: string, holder: string, nextAt: number): Promise<boolean>;
  /** Connections whose next step is due by `now`, the most overdue first. */
  dueConnections(now: number, limit: number): Promise<Array<{ userId: string; id: string }>>;
}
