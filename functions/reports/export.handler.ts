import { binary, fromRoute, http, ROUTES, type HttpRequest } from '../../shared/http';
import { reportWorkbook } from '../../shared/reports/exports';

const route = fromRoute(ROUTES.exportReport);

/** GET /api/reports/{id}/export → the report as an .xlsx attachment named after its number. */
export async function main(req: HttpRequest<typeof route>) {
  const file = await reportWorkbook(req.user.id, req.path.id);
  return binary(file.data, { contentType: file.contentType, filename: file.filename });
}

export const handler = http(route, main);
