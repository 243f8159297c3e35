import { fromRoute, http, noContent, ROUTES, type HttpRequest } from '../../shared/http';
import { removeReport } from '../../shared/reports/queries';

const route = fromRoute(ROUTES.deleteReport);

/** DELETE /api/reports/{id} → 204; items and the source file go, limits are not refunded. */
export async function main(req: HttpRequest<typeof route>) {
  await removeReport(req.user.id, req.path.id);
  return noContent();
}

export const handler = http(route, main);
