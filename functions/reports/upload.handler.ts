import { badRequest } from '../../shared/errors';
import { route, ROUTES } from '../../shared/http';
import { failureError } from '../../shared/reports/worker/failures';
import { fileRefOf } from '../../shared/reports/upload/file-input';
import { presentReport } from '../../shared/reports/present-report';
import { reportDeps } from '../../shared/reports/deps';
import { uploadReport } from '../../shared/reports/upload/upload';

/**
 * POST /api/reports/upload (JSON {upload_id, allow_duplicate?} or multipart file [+ allow_duplicate];
 * optional `Idempotency-Key` header): limits charged once, the report built by the worker. → 201
 * {report} with its items when it is ready within UPLOAD_WAIT_MS; 202 {report} with `status:
 * processing` and `progress` otherwise (poll GET /api/reports/{id}); a failure within the wait answers
 * its error (the charge refunded; details carry report_id and refunded_rows). A repeat (same key or
 * upload_id) answers the first request's report. A report the caller already has → 409
 * `duplicate_report` (details.report_id), nothing charged, unless allow_duplicate is true. Answers
 * within the request's budget (REQUEST_DEADLINE_MS): 202 with the charged report, or 503 `try_again`
 * when nothing was charged by then.
 */
export const handler = route(ROUTES.upload, async (req) => {
  const key = req.headers['idempotency-key'];
  if (key !== undefined && !/^[\x21-\x7e]{1,200}$/.test(key))
    throw badRequest('validation_error', 'Idempotency-Key must be 1..200 visible ASCII characters');
  const r = await uploadReport(reportDeps, req.user, fileRefOf(req.file, req.body.upload_id), {
    idempotencyKey: key,
    allowDuplicate: req.body.allow_duplicate,
    budgetMs: req.budgetMs,
  });
  if (r.record.status === 'failed' && r.record.error)
    throw failureError(r.record.error, { report_id: r.record.id, refunded_rows: r.record.refunded_rows ?? 0 });
  const report = presentReport(r.record, r.items, r.seller, false);
  if (r.record.status === 'ready') return { status: 201, body: { report }, large: true };
  return { status: 202, body: { report }, large: true };
});
