import { z } from 'zod';
import { http, type HttpOptions, type HttpRequest } from '../../shared/http';
import { fileRefOf } from '../../shared/reports/file-input';
import { presentReport } from '../../shared/reports/present';
import { uploadReport } from '../../shared/reports/upload';
import { reportJson } from '../../shared/reports/large-json';

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
 * POST /api/reports/upload (JSON {upload_id, allow_duplicate?} or multipart file [+ allow_duplicate])
 * → 201 {report} with its items; limits charged. A report the caller already has → 409
 * `duplicate_report` (details.report_id), nothing charged, unless allow_duplicate is true.
 */
export async function main(req: HttpRequest<typeof route>) {
  const r = await uploadReport(req.user, fileRefOf(req.file, req.body.upload_id), {
    allowDuplicate: req.body.allow_duplicate,
  });
  return reportJson(201, { report: presentReport(r.record, r.items, r.seller, false) }, req.headers['accept-encoding']);
}

export const handler = http(route, main);
