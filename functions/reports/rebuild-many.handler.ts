import { route, ROUTES } from '../../shared/http';
import { rebuildMany } from '../../shared/reports/rebuild/rebuild';
import { rebuildDeps } from '../../shared/reports/rebuild/rebuild-deps';

/**
 * POST /api/reports/rebuild {report_ids?} → {rebuilt, processing, skipped}: 200 when every accepted
 * rebuild finished within UPLOAD_WAIT_MS, else 202 (`processing` lists those the worker is still on);
 * without ids every report of the caller with a source.
 */
export const handler = route(ROUTES.rebuildMany, async (req) => {
  const r = await rebuildMany(rebuildDeps, req.user, req.body.report_ids, undefined, req.budgetMs);
  return r.processing.length > 0 ? { status: 202, body: r } : { status: 200, body: r };
});
