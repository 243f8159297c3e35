import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { rebuildDeps } from '../../shared/reports/rebuild/rebuild-deps';
import { rebuildMany } from '../../shared/reports/rebuild/rebuild';

const contract = ROUTES.rebuildMany;
const route = fromRoute(contract);

/**
 * POST /api/reports/rebuild {report_ids?} → {rebuilt, processing, skipped}: 200 when every accepted
 * rebuild finished within UPLOAD_WAIT_MS, else 202 (`processing` lists those the worker is still on);
 * without ids every report of the caller with a source.
 */
export async function main(req: HttpRequest<typeof route>) {
  const r = await rebuildMany(rebuildDeps, req.user, req.body.report_ids, undefined, req.budgetMs);
  return r.processing.length > 0 ? reply(contract, 202, r) : reply(contract, 200, r);
}

export const handler = http(route, main);
