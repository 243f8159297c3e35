import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { fileRefOf } from '../../shared/reports/file-input';
import { duplicateLookups } from '../../shared/reports/duplicate-deps';
import { countReportRows, type CountDeps } from '../../shared/reports/upload';

const contract = ROUTES.countRows;
const route = fromRoute(contract);
const deps: CountDeps = { duplicates: duplicateLookups };

/** POST /api/reports/count-rows (JSON {upload_id} or multipart file) → rows against the caller's limits; charges nothing. */
export async function main(req: HttpRequest<typeof route>) {
  return reply(contract, 200, await countReportRows(deps, req.user, fileRefOf(req.file, req.body.upload_id)));
}

export const handler = http(route, main);
