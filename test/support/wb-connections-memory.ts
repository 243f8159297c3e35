/**
 * The WB connection store of a sync step (StepDeps['connections']) in memory, with the real store's
 * rules: a write is conditional on the revision read, and a claim also moves the WB account's call budget
 * (conditional on it being due). For the step's unit tests and the sync bench, where DynamoDB's latency
 * is not what is measured.
 */
import { dueAt, type WbConnectionRecord } from '../../shared/store/wb-connections.repo';
import type { StepDeps } from '../../shared/marketplaces/wb/sync/step';
import { newConnectionRecord } from '../../shared/marketplaces/wb/sync/connections';
import { localKeyWrapper, sealToken } from '../../shared/marketplaces/wb/token-crypto';

/** The step tests' token key (a fixed local key). */
export const testKeyWrapper = localKeyWrapper(Buffer.alloc(32, 7).toString('base64'));

/**
 * A connection as the connect route leaves it at `t0`: WB seller 4242 for seller S1 of user U1, its
 * token `the-token` sealed with testKeyWrapper, syncing from 2025-01-01; `over` replaces any field.
 */
export async function testConnection(t0: number, over: Partial<WbConnectionRecord> = {}): Promise<WbConnectionRecord> {
  const c = newConnectionRecord({
    id: 'C1',
    userId: 'U1',
    sellerId: 'S1',
    wbSellerId: '4242',
    sellerName: null,
    tokenHint: '…abcd',
    scopes: ['Финансы'],
    expiresAt: new Date(t0 + 100 * 86_400_000).toISOString(),
    from: '2025-01-01',
    now: t0,
    sealed: await sealToken('the-token', testKeyWrapper, { sellerId: 'S1' }),
  });
  return { ...c, ...over };
}

export function memoryConnections(initial: readonly WbConnectionRecord[]): {
  store: StepDeps['connections'];
  /** The records by id, as stored. */
  rows: Map<string, WbConnectionRecord>;
  /** Each WB account's next allowed call (ms), by WB seller id. */
  budget: Map<string, number>;
} {
  const rows = new Map(initial.map((c) => [c.id, c]));
  const budget = new Map<string, number>();
  const holders = new Map<string, string>();
  const save = (c: WbConnectionRecord) => {
    const cur = rows.get(c.id);
    if (!cur || cur.rev !== c.rev) return null;
    const next = { ...c, rev: c.rev + 1 };
    rows.set(c.id, next);
    return next;
  };
  return {
    rows,
    budget,
    store: {
      getConnection: async (_u, id) => rows.get(id) ?? null,
      saveConnection: async (c) => save(c),
      claimStep: async (c, now, until, _api, holder) => {
        if (rows.get(c.id)?.rev !== c.rev) return { kind: 'busy' };
        const b = budget.get(c.wb_seller_id) ?? 0;
        if (b > now) return { kind: 'budget', until: b };
        budget.set(c.wb_seller_id, until);
        if (holder) holders.set(c.wb_seller_id, holder);
        return { kind: 'claimed', connection: save(c)! };
      },
      releaseBudget: async (wbSellerId, holder, nextAt) => {
        if (holders.get(wbSellerId) !== holder) return false;
        holders.delete(wbSellerId);
        budget.set(wbSellerId, nextAt);
        return true;
      },
      dueConnections: async (now) =>
        [...rows.values()]
          .filter((c) => {
            const d = dueAt(c);
            return d !== null && d <= now;
          })
          .map((c) => ({ userId: c.user_id, id: c.id })),
    },
  };
}
