import { z } from 'zod';
import { http, json, type HttpOptions, type HttpRequest } from '../../shared/http';
import { rebuildMany } from '../../shared/reports/rebuild';

const route = {
  auth: 'user',
  body: z.object({ report_ids: z.array(z.string().max(200)).max(1000).optional() }),
} satisfies HttpOptions;

/** POST /api/reports/rebuild {report_ids?} → {rebuilt, skipped}; without ids every report of the caller with a source. */
export async function main(req: HttpRequest<typeof route>) {
  return json(200, await rebuildMany(req.user, req.body.report_ids));
}

export const handler = http(route, main);
