/**
 * The step's balance part (step.ts): when planBalance says so, the ONE call of this step is WB's balance.
 * Claimed like a report call (the connection's lease and the WB account's Finance budget in one
 * transaction), the budget released by WB's answer, the reading kept in the history (wb-balance.repo.ts)
 * before the connection is written with the new state and its cursor's next call pushed past the answer.
 * A refusal is written on the connection (`balance.error`) and nothing else changes: the report sync goes on.
 */
import type { WbConnectionRecord } from '../../../store/wb-connections.repo';
import type { BalanceRecord } from '../../../store/wb-balance.repo';
import type { ConnectionStore } from '../sync/ports';
import { openToken, type KeyWrapper } from '../token-crypto';
import type { RatePolicy } from '../rate';
import type { BalanceClient } from './client';
import { afterBalance, BALANCE_EVERY_MS } from './balance-plan';

export interface BalanceStepDeps {
  client: (token: string) => BalanceClient;
  /** Keeps one reading (wb-balance.repo.ts putBalance). */
  putReading: (userId: string, reading: BalanceRecord) => Promise<void>;
  /** After a reading is kept: tells the payouts it shows arrived (notifications/record-deps.ts); never throws. */
  afterReading?: (c: WbConnectionRecord, nowMs: number) => Promise<void>;
  /** Least time between two readings of a connection (default an hour). */
  everyMs?: () => number;
}

export type BalanceStepResult = 'balance' | 'busy' | 'budget';

export async function runBalanceStep(
  deps: BalanceStepDeps,
  ctx: {
    connections: ConnectionStore;
    keyWrapper: () => KeyWrapper;
    policy: RatePolicy;
    leaseMs: number;
    now: () => number;
  },
  c: WbConnectionRecord,
  start: number,
): Promise<BalanceStepResult> {
  const holder = `${c.id}#balance#${c.rev}`;
  const claimed = await ctx.connections.claimStep(
    { ...c, lease_until: start + ctx.leaseMs },
    start,
    start + ctx.leaseMs,
    undefined,
    holder,
  );
  if (claimed.kind === 'busy') return 'busy';
  const settings = { everyMs: deps.everyMs?.() ?? BALANCE_EVERY_MS, policy: ctx.policy };
  if (claimed.kind === 'budget') {
    // Another connection of this WB account is calling: the balance waits for its budget.
    const wait = Math.min(claimed.until, start + ctx.policy.intervalMs);
    const state = c.balance ?? { next_at: 0, last_call_at: null, failures: 0, read_at: null, error: null };
    await ctx.connections.saveConnection({ ...c, balance: { ...state, next_at: Math.max(state.next_at, wait) } });
    return 'budget';
  }
  const cur = claimed.connection;
  const token = await openToken(cur.sealed, ctx.keyWrapper(), { sellerId: cur.seller_id });
  const outcome = await deps.client(token).getBalance();
  const now = ctx.now();
  const advanced = afterBalance(cur.balance, outcome, now, settings);
  await ctx.connections.releaseBudget(cur.wb_seller_id, holder, advanced.accountNextAt);
  if (advanced.reading) {
    await deps.putReading(cur.user_id, {
      wb_seller_id: cur.wb_seller_id,
      connection_id: cur.id,
      currency: advanced.reading.currency,
      current: advanced.reading.current,
      for_withdraw: advanced.reading.for_withdraw,
      as_of: new Date(now).toISOString(),
    });
  }
  const saved = await ctx.connections.saveConnection({
    ...cur,
    lease_until: 0,
    balance: advanced.state,
    cursor: { ...cur.cursor, nextCallAt: Math.max(cur.cursor.nextCallAt, advanced.accountNextAt) },
  });
  if (advanced.reading && saved) await deps.afterReading?.(cur, now);
  return saved ? 'balance' : 'busy';
}
