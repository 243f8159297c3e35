import { route, ROUTES } from '../../shared/http';
import { listReportSummaries } from '../../shared/reports/queries';
import { readDeps } from '../../shared/reports/read-deps';

/** GET /api/reports?seller_id=&cursor= → {items: [summary], next_cursor}, newest first. */
export const handler = route(ROUTES.listReports, async (req) => ({
  status: 200,
  body: await listReportSummaries(readDeps, req.user, { sellerId: req.query.seller_id, cursor: req.query.cursor }),
}));
