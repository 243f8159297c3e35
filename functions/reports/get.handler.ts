import { route, ROUTES } from '../../shared/http';
import { getReportView, presentView, presentViewColumns } from '../../shared/reports/queries';
import { readDeps } from '../../shared/reports/read-deps';

/**
 * GET /api/reports/{id} → {report} with items, totals, commission by category, warnings and stale.
 * `?items=columns`: the items as `item_columns` (present.ts presentItemColumns) instead of `items`.
 */
export const handler = route(ROUTES.getReport, async (req) => {
  const view = await getReportView(readDeps, req.user, req.path.id);
  const report = req.query.items === 'columns' ? presentViewColumns(view) : presentView(view);
  return { status: 200, body: { report }, large: true };
});
