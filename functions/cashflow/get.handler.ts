import { getCashFlow } from '../../shared/cashflow/cashflow';
import { cashFlowDeps } from '../../shared/cashflow/deps';
import { route, ROUTES } from '../../shared/http';

/**
 * GET /api/cash-flow?from=YYYY-MM&to=YYYY-MM&seller_id= → {balance, payouts, months, forecast,
 * tax_calendar, rules} (roubles). 400 invalid_range; 404 seller_not_found.
 */
export const handler = route(ROUTES.cashFlow, async (req) => ({
  status: 200,
  body: await getCashFlow(cashFlowDeps, req.user, req.query),
}));
