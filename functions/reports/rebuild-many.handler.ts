import { z } from 'zod';
import { http, json, type HttpOptions, type HttpRequest } from '../../shared/http';
import { rebuildMany } from '../../shared/reports/rebuild';

const route = {
  auth: 'user',
  body: z.object({ report_ids: z.array(z.string().max(200)).max(1000).optional() }),
} satisfies HttpOptions;

/**
 * POST /api/reports/rebuild {report_ids?} → {rebuilt, processing, skipped}: 200 when every accepted
 * rebuild finished within UPLOAD_WAIT_MS, else 202 (`processing` lists those the worker is still on);
 * without ids every report of the caller with a source.
 */
export async function main(req: HttpRequest<typeof route>) {
  const r = await rebuildMany(req.user, req.body.report_ids);
  return json(r.processing.length > 0 ? 202 : 200, r);
}

export const handler = http(route, main);
