import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { fileRefOf } from '../../shared/reports/upload/file-input';
import { countRows, fingerprintReport } from '../../shared/engine';
import { fileDeps } from '../../shared/reports/upload/file-deps';
import { saveUploadCount } from '../../shared/store/uploads.repo';
import { countReportRows, type CountDeps } from '../../shared/reports/upload/upload';

const contract = ROUTES.countRows;
const route = fromRoute(contract);
const deps: CountDeps = { ...fileDeps, engine: { countRows, fingerprintReport }, uploads: { saveUploadCount } };

/** POST /api/reports/count-rows (JSON {upload_id} or multipart file) → rows against the caller's limits; charges nothing. */
export async function main(req: HttpRequest<typeof route>) {
  return reply(
    contract,
    200,
    await countReportRows(deps, req.user, fileRefOf(req.file, req.body.upload_id), req.budgetMs),
  );
}

export const handler = http(route, main);
