import { z } from 'zod';
import { http, type HttpOptions, type HttpRequest } from '../../shared/http';
import { getReportView, presentView, presentViewColumns } from '../../shared/reports/queries';
import { reportJson } from '../../shared/http/large-json';

const route = {
  auth: 'user',
  path: z.object({ id: z.string() }),
  query: z.object({ items: z.enum(['objects', 'columns']).optional() }),
} satisfies HttpOptions;

/**
 * GET /api/reports/{id} → {report} with items, totals, commission by category, warnings and stale.
 * `?items=columns`: the items as `item_columns` (present.ts, ApiItemColumns) instead of `items`.
 */
export async function main(req: HttpRequest<typeof route>) {
  const view = await getReportView(req.user, req.path.id);
  const report = req.query.items === 'columns' ? presentViewColumns(view) : presentView(view);
  return reportJson(200, { report }, req.headers['accept-encoding']);
}

export const handler = http(route, main);
