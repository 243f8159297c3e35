/**
 * The composition of the purchase and cash-flow use cases: the real stores and the clock, as const
 * objects the handlers pass (docs/ARCHITECTURE.md, wiring).
 */
import { systemClock } from '../deps';
import { newId } from '../store/keys';
import * as purchases from '../store/purchases.repo';
import { getProducts } from '../store/products.repo';
import { getSeller } from '../store/sellers.repo';
import { balancesSince, latestBalances } from '../store/wb-balance.repo';
import { listConnections } from '../store/wb-connections.repo';
import { pnlDeps } from '../pnl/deps';
import type { PurchaseDeps } from './purchases';
import type { CashFlowDeps } from './cashflow';

export const purchaseDeps: PurchaseDeps = {
  purchases,
  catalog: { getProducts },
  sellers: { getSeller },
  clock: systemClock,
  ids: { newId: () => newId() },
};

export const cashFlowDeps: CashFlowDeps = {
  pnl: pnlDeps,
  purchases,
  balances: { latestBalances, balancesSince },
  connections: { listConnections },
  clock: systemClock,
};
