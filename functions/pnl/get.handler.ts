import { routes } from '../../shared/http';
import { pnlDeps } from '../../shared/pnl/deps';
import { getPnl, getTaxThresholds } from '../../shared/pnl/pnl';

const deps = pnlDeps;

/** ONE Lambda serves the P&L and the tax thresholds, dispatched from the contract. */
export const handler = routes({
  /**
   * GET /api/pnl?from=YYYY-MM&to=YYYY-MM&seller_id= → {months, totals, sources, thresholds, warnings}
   * (roubles). 400 invalid_range; 404 seller_not_found.
   */
  pnl: async (req) => ({ status: 200, body: await getPnl(deps, req.user, req.query), large: true }),
  /** GET /api/tax-thresholds?seller_id=&year= → {thresholds}: USN sellers against the VAT thresholds. */
  taxThresholds: async (req) => ({ status: 200, body: await getTaxThresholds(deps, req.user, req.query) }),
});
