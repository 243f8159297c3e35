import { route, ROUTES } from '../../shared/http';
import { presentReportSummary } from '../../shared/reports/present-report';
import { patchReport } from '../../shared/reports/queries';
import { readDeps } from '../../shared/reports/read-deps';

/**
 * PATCH /api/reports/{id} {title?, seller_id?} → 200 {report} (the summary, without items). seller_id
 * null unlinks; a seller or report that is not the caller's → 404 (`seller_not_found`,
 * `report_not_found`).
 */
export const handler = route(ROUTES.updateReport, async (req) => {
  const r = await patchReport(readDeps, req.user.id, req.path.id, {
    title: req.body.title,
    seller_id: req.body.seller_id,
  });
  return { status: 200, body: { report: presentReportSummary(r.record, r.seller) } };
});
