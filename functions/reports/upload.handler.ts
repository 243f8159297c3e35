import { z } from 'zod';
import { http, type HttpOptions, type HttpRequest } from '../../shared/http';
import { fileRefOf } from '../../shared/reports/file-input';
import { presentReport } from '../../shared/reports/present';
import { uploadReport } from '../../shared/reports/upload';
import { reportJson } from '../../shared/reports/large-json';

const route = {
  auth: 'user',
  multipart: true,
  body: z.object({ upload_id: z.string().max(200).optional() }),
} satisfies HttpOptions;

/** POST /api/reports/upload (JSON {upload_id} or multipart file) → 201 {report} with its items; limits charged. */
export async function main(req: HttpRequest<typeof route>) {
  const r = await uploadReport(req.user, fileRefOf(req.file, req.body.upload_id));
  return reportJson(201, { report: presentReport(r.record, r.items, r.seller, false) }, req.headers['accept-encoding']);
}

export const handler = http(route, main);
