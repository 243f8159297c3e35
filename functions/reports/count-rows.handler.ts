import { z } from 'zod';
import { http, json, type HttpOptions, type HttpRequest } from '../../shared/http';
import { fileRefOf } from '../../shared/reports/file-input';
import { countReportRows } from '../../shared/reports/upload';

const route = {
  auth: 'user',
  multipart: true,
  body: z.object({ upload_id: z.string().max(200).optional() }),
} satisfies HttpOptions;

/** POST /api/reports/count-rows (JSON {upload_id} or multipart file) → rows against the caller's limits; charges nothing. */
export async function main(req: HttpRequest<typeof route>) {
  return json(200, await countReportRows(req.user, fileRefOf(req.file, req.body.upload_id)));
}

export const handler = http(route, main);
