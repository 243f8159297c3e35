import { z } from 'zod';
import { badRequest } from '../../shared/errors';
import { http, type HttpOptions, type HttpRequest } from '../../shared/http';
import { failureError } from '../../shared/reports/failures';
import { fileRefOf } from '../../shared/reports/file-input';
import { presentReport } from '../../shared/reports/present';
import { uploadReport } from '../../shared/reports/upload';
import { reportJson } from '../../shared/http/large-json';

const route = {
  auth: 'user',
  multipart: true,
  body: z.object({
    upload_id: z.string().max(200).optional(),
    // JSON true/false, or the text of a multipart field
    allow_duplicate: z
      .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'on'])])
      .optional()
      .transform((v) => v === true || v === 'true' || v === '1' || v === 'on'),
  }),
} satisfies HttpOptions;

/**
 * POST /api/reports/upload (JSON {upload_id, allow_duplicate?} or multipart file [+ allow_duplicate];
 * optional `Idempotency-Key` header): limits charged once, the report built by the worker. → 201
 * {report} with its items when it is ready within UPLOAD_WAIT_MS; 202 {report} with `status:
 * processing` and `progress` otherwise (poll GET /api/reports/{id}); a failure within the wait answers
 * its error (the charge refunded; details carry report_id and refunded_rows). A repeat (same key or
 * upload_id) answers the first request's report. A report the caller already has → 409
 * `duplicate_report` (details.report_id), nothing charged, unless allow_duplicate is true.
 */
export async function main(req: HttpRequest<typeof route>) {
  const key = req.headers['idempotency-key'];
  if (key !== undefined && !/^[\x21-\x7e]{1,200}$/.test(key))
    throw badRequest('validation_error', 'Idempotency-Key must be 1..200 visible ASCII characters');
  const r = await uploadReport(req.user, fileRefOf(req.file, req.body.upload_id), {
    idempotencyKey: key,
    allowDuplicate: req.body.allow_duplicate,
  });
  if (r.record.status === 'failed' && r.record.error)
    throw failureError(r.record.error, { report_id: r.record.id, refunded_rows: r.record.refunded_rows ?? 0 });
  const status = r.record.status === 'ready' ? 201 : 202;
  return reportJson(
    status,
    { report: presentReport(r.record, r.items, r.seller, false) },
    req.headers['accept-encoding'],
  );
}

export const handler = http(route, main);
