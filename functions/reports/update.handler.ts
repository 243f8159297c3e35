import { z } from 'zod';
import { http, json, type HttpOptions, type HttpRequest } from '../../shared/http';
import { presentReportSummary } from '../../shared/reports/present';
import { patchReport } from '../../shared/reports/queries';

const route = {
  auth: 'user',
  body: z
    .object({
      title: z.string().trim().min(1).max(200).optional(),
      seller_id: z.string().min(1).max(64).nullable().optional(),
    })
    .strict()
    .refine((b) => b.title !== undefined || b.seller_id !== undefined, 'Send title and/or seller_id'),
  path: z.object({ id: z.string() }),
} satisfies HttpOptions;

/**
 * PATCH /api/reports/{id} {title?, seller_id?} → 200 {report} (the summary, without items). seller_id
 * null unlinks; a seller or report that is not the caller's → 404 (`seller_not_found`,
 * `report_not_found`).
 */
export async function main(req: HttpRequest<typeof route>) {
  const r = await patchReport(req.user.id, req.path.id, { title: req.body.title, seller_id: req.body.seller_id });
  return json(200, { report: presentReportSummary(r.record, r.seller) });
}

export const handler = http(route, main);
