import { z } from 'zod';
import { binary, http, type HttpOptions, type HttpRequest } from '../../shared/http';
import { summaryWorkbook } from '../../shared/reports/exports';

const route = {
  auth: 'user',
  body: z.object({
    report_ids: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(100)
      .refine((ids) => new Set(ids).size === ids.length, 'report_ids must be distinct'),
  }),
} satisfies HttpOptions;

/** POST /api/reports/summary-export {report_ids: 1..100} → the legacy .xls summary; any id not the caller's → 404. */
export async function main(req: HttpRequest<typeof route>) {
  const file = await summaryWorkbook(req.user.id, req.body.report_ids);
  return binary(file.data, { contentType: file.contentType, filename: file.filename });
}

export const handler = http(route, main);
