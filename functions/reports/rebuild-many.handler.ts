import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { rebuildMany } from '../../shared/reports/rebuild';

const contract = ROUTES.rebuildMany;
const route = fromRoute(contract);

/** POST /api/reports/rebuild {report_ids?} → {rebuilt, skipped}; without ids every report of the caller with a source. */
export async function main(req: HttpRequest<typeof route>) {
  return reply(contract, 200, await rebuildMany(req.user, req.body.report_ids));
}

export const handler = http(route, main);
