import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { fileRefOf } from '../../shared/reports/file-input';
import { countReportRows } from '../../shared/reports/upload';

const contract = ROUTES.countRows;
const route = fromRoute(contract);

/** POST /api/reports/count-rows (JSON {upload_id} or multipart file) → rows against the caller's limits; charges nothing. */
export async function main(req: HttpRequest<typeof route>) {
  return reply(contract, 200, await countReportRows(req.user, fileRefOf(req.file, req.body.upload_id), req.budgetMs));
}

export const handler = http(route, main);
