import { z } from 'zod';
import { http, json, type HttpOptions, type HttpRequest } from '../../shared/http';
import { listReportSummaries } from '../../shared/reports/queries';

const route = {
  auth: 'user',
  query: z.object({ seller_id: z.string().min(1).max(64).optional(), cursor: z.string().min(1).max(600).optional() }),
} satisfies HttpOptions;

/** GET /api/reports?seller_id=&cursor= → {items: [summary], next_cursor}, newest first. */
export async function main(req: HttpRequest<typeof route>) {
  return json(200, await listReportSummaries(req.user.id, { sellerId: req.query.seller_id, cursor: req.query.cursor }));
}

export const handler = http(route, main);
