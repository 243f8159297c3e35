import { z } from 'zod';
import { http, type HttpOptions, type HttpRequest } from '../../shared/http';
import { reportJson } from '../../shared/http/large-json';
import { getAnalytics } from '../../shared/reports/analytics';

export const analyticsQuery = z.object({
  from: z.string().max(10).optional(),
  to: z.string().max(10).optional(),
  seller_id: z.string().min(1).max(64).optional(),
  article: z.string().max(300).optional(),
});

const route = { auth: 'user', query: analyticsQuery } satisfies HttpOptions;

/**
 * GET /api/analytics?from=&to=&seller_id=&article= → weeks, totals, previous range with changes, articles
 * with ABC and margin groups, warnings (money in roubles). 400 invalid_range; 404 seller_not_found.
 */
export async function main(req: HttpRequest<typeof route>) {
  return reportJson(200, await getAnalytics(req.user, req.query), req.headers['accept-encoding']);
}

export const handler = http(route, main);
