import { binary, fromRoute, http, ROUTES, type HttpRequest } from '../../shared/http';
import { reportWorkbook } from '../../shared/reports/exports/report-workbook';
import * as reports from '../../shared/store/reports.repo';
import * as sellers from '../../shared/store/sellers.repo';

const deps = { reports, sellers };

const route = fromRoute(ROUTES.exportReport);

/** GET /api/reports/{id}/export → the report as an .xlsx attachment named after its number. */
export async function main(req: HttpRequest<typeof route>) {
  const file = await reportWorkbook(deps, req.user.id, req.path.id);
  return binary(file.data, { contentType: file.contentType, filename: file.filename });
}

export const handler = http(route, main);
