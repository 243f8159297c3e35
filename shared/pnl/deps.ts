/**
 * The composition of the P&L and period-cost use cases: the real stores and the clock: const objects
 * the handlers pass (docs/ARCHITECTURE.md, wiring).
 */
import { systemClock } from '../deps';
import { newId } from '../store/keys';
import * as periodCosts from '../store/period-costs.repo';
import { listReportTotals } from '../store/report-totals.repo';
import { getSeller, listSellers } from '../store/sellers.repo';
import type { PeriodCostDeps } from '../costs/period-costs';
import type { PnlDeps } from './pnl';

export const pnlDeps: PnlDeps = {
  reports: { listReportTotals },
  costs: { listPeriodCosts: periodCosts.listPeriodCosts },
  sellers: { getSeller, listSellers },
  clock: systemClock,
};

export const periodCostDeps: PeriodCostDeps = {
  costs: periodCosts,
  sellers: { getSeller },
  clock: systemClock,
  ids: { newId: () => newId() },
};
