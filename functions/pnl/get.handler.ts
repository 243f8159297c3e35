import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { contractBody, fromRoute, http, reply, ROUTES, type HttpRequest, type HttpResult } from '../../shared/http';
import { reportJson } from '../../shared/http/large-json';
import { pnlDeps } from '../../shared/pnl/deps';
import { getPnl, getTaxThresholds } from '../../shared/pnl/pnl';

const deps = pnlDeps();

const pnlRoute = fromRoute(ROUTES.pnl);
/**
 * GET /api/pnl?from=YYYY-MM&to=YYYY-MM&seller_id= → {months, totals, sources, thresholds, warnings}
 * (roubles). 400 invalid_range; 404 seller_not_found.
 */
export async function pnl(req: HttpRequest<typeof pnlRoute>) {
  const body = contractBody(ROUTES.pnl, 200, await getPnl(deps, req.user, req.query));
  return reportJson(200, body, req.headers['accept-encoding']);
}

const thresholdsRoute = fromRoute(ROUTES.taxThresholds);
/** GET /api/tax-thresholds?seller_id=&year= → {thresholds}: USN sellers against the VAT thresholds. */
export async function thresholds(req: HttpRequest<typeof thresholdsRoute>) {
  return reply(ROUTES.taxThresholds, 200, await getTaxThresholds(deps, req.user, req.query));
}

const handlers = { pnl: http(pnlRoute, pnl), thresholds: http(thresholdsRoute, thresholds) };

/** ONE Lambda serves the P&L and the thresholds, dispatched on the path. */
export async function handler(event: APIGatewayProxyEventV2, context?: Partial<Context>): Promise<HttpResult> {
  const path = event.rawPath ?? event.requestContext?.http?.path ?? event.routeKey ?? '';
  if (/tax-thresholds/.test(path) || /tax-thresholds/.test(event.routeKey ?? ''))
    return handlers.thresholds(event, context);
  return handlers.pnl(event, context);
}
