import { contractBody, fromRoute, http, ROUTES, type HttpRequest } from '../../shared/http';
import { presentDropped, presentReport } from '../../shared/reports/present-report';
import { rebuildDeps } from '../../shared/reports/rebuild/rebuild-deps';
import { startRebuild } from '../../shared/reports/rebuild/rebuild';
import { reportJson } from '../../shared/http/large-json';

const contract = ROUTES.rebuildOne;
const route = fromRoute(contract);

/**
 * POST /api/reports/{id}/rebuild → 200 {report, dropped_manual_values} when the worker finished within
 * UPLOAD_WAIT_MS; else 202 {report (status processing, task rebuild, without items), dropped_manual_values: []}
 * (the outcome arrives as the report's `last_rebuild`). 409 source_missing without a stored source.
 * Within the request's budget (REQUEST_DEADLINE_MS): 202 once the task started, else 503 `try_again`.
 */
export async function main(req: HttpRequest<typeof route>) {
  const r = await startRebuild(rebuildDeps, req.user, req.path.id, undefined, req.budgetMs);
  const answer = {
    report: presentReport(r.record, r.items, r.seller, false),
    dropped_manual_values: r.dropped.map(presentDropped),
  };
  const body = r.done ? contractBody(contract, 200, answer) : contractBody(contract, 202, answer);
  return reportJson(r.done ? 200 : 202, body, req.headers['accept-encoding']);
}

export const handler = http(route, main);
