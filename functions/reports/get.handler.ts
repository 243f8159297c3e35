import { z } from 'zod';
import { http, json, type HttpOptions, type HttpRequest } from '../../shared/http';
import { getReportView, presentView } from '../../shared/reports/queries';

const route = { auth: 'user', path: z.object({ id: z.string() }) } satisfies HttpOptions;

/** GET /api/reports/{id} → {report} with items, totals, commission by category, warnings and stale. */
export async function main(req: HttpRequest<typeof route>) {
  return json(200, { report: presentView(await getReportView(req.user, req.path.id)) });
}

export const handler = http(route, main);
