import { z } from 'zod';
import { http, type HttpOptions, type HttpRequest } from '../../shared/http';
import { getReportView, presentView } from '../../shared/reports/queries';
import { reportJson } from '../../shared/reports/large-json';

const route = { auth: 'user', path: z.object({ id: z.string() }) } satisfies HttpOptions;

/** GET /api/reports/{id} → {report} with items, totals, commission by category, warnings and stale. */
export async function main(req: HttpRequest<typeof route>) {
  return reportJson(
    200,
    { report: presentView(await getReportView(req.user, req.path.id)) },
    req.headers['accept-encoding'],
  );
}

export const handler = http(route, main);
