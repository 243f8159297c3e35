import { noContent, route, ROUTES } from '../../shared/http';
import { removeReport } from '../../shared/reports/queries';
import { removeDeps } from '../../shared/reports/remove-deps';

/** DELETE /api/reports/{id} → 204; items and the source file go; a copy of a week the user has is refunded. */
export const handler = route(ROUTES.deleteReport, async (req) => {
  await removeReport(removeDeps, req.user.id, req.path.id);
  return noContent();
});
