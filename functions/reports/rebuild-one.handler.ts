import { route, ROUTES } from '../../shared/http';
import { presentDropped, presentReport } from '../../shared/reports/present-report';
import { startRebuild } from '../../shared/reports/rebuild/rebuild';
import { rebuildDeps } from '../../shared/reports/rebuild/rebuild-deps';

/**
 * POST /api/reports/{id}/rebuild → 200 {report, dropped_manual_values} when the worker finished within
 * UPLOAD_WAIT_MS; else 202 {report (status processing, task rebuild, without items), dropped_manual_values: []}
 * (the outcome arrives as the report's `last_rebuild`). 409 source_missing without a stored source.
 * Within the request's budget (REQUEST_DEADLINE_MS): 202 once the task started, else 503 `try_again`.
 */
export const handler = route(ROUTES.rebuildOne, async (req) => {
  const r = await startRebuild(rebuildDeps, req.user, req.path.id, undefined, req.budgetMs);
  const body = {
    report: presentReport(r.record, r.items, r.seller, false),
    dropped_manual_values: r.dropped.map(presentDropped),
  };
  return r.done ? { status: 200, body, large: true } : { status: 202, body, large: true };
});
