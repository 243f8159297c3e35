import { contractBody, fromRoute, http, ROUTES, type HttpRequest } from '../../shared/http';
import { fileRefOf } from '../../shared/reports/file-input';
import { presentReport } from '../../shared/reports/present';
import { uploadReport } from '../../shared/reports/upload';
import { reportJson } from '../../shared/reports/large-json';

const contract = ROUTES.upload;
const route = fromRoute(contract);

/**
 * POST /api/reports/upload (JSON {upload_id, allow_duplicate?} or multipart file [+ allow_duplicate])
 * → 201 {report} with its items; limits charged. A report the caller already has → 409
 * `duplicate_report` (details.report_id), nothing charged, unless allow_duplicate is true.
 */
export async function main(req: HttpRequest<typeof route>) {
  const r = await uploadReport(req.user, fileRefOf(req.file, req.body.upload_id), {
    allowDuplicate: req.body.allow_duplicate,
  });
  const body = contractBody(contract, 201, { report: presentReport(r.record, r.items, r.seller, false) });
  return reportJson(201, body, req.headers['accept-encoding']);
}

export const handler = http(route, main);
