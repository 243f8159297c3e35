/**
 * The WB connection store of a sync step (StepDeps['connections']) in memory, with the real store's
 * rules: a write is conditional on the revision read, and a claim also moves the WB account's call budget
 * (conditional on it being due). For the step's unit tests and the sync bench, where DynamoDB's latency
 * is not what is measured.
 */
import { dueAt, type WbConnectionRecord } from '../../shared/store/wb-connections.repo';
import type { StepDeps } from '../../shared/marketplaces/wb/sync/step';

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
