import { fromRoute, http, noContent, ROUTES, type HttpRequest } from '../../shared/http';
import { deleteObject } from '../../shared/files/objects';
import { removeReport, type RemoveDeps } from '../../shared/reports/queries';
import { summaryDeps } from '../../shared/reports/read-deps';
import { deleteIdentity } from '../../shared/store/report-identities.repo';
import { deleteReport, getReportAnyStatus } from '../../shared/store/reports.repo';

const route = fromRoute(ROUTES.deleteReport);
const deps: RemoveDeps = {
  reports: { getReportAnyStatus, deleteReport },
  summaries: summaryDeps.summaries,
  identities: { deleteIdentity },
  files: { deleteObject },
};

/** DELETE /api/reports/{id} → 204; items and the source file go, limits are not refunded. */
export async function main(req: HttpRequest<typeof route>) {
  await removeReport(deps, req.user.id, req.path.id);
  return noContent();
}

export const handler = http(route, main);
