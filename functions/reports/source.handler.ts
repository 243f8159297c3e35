import { binary, fromRoute, http, redirect, ROUTES, type HttpRequest } from '../../shared/http';
import { reportSource } from '../../shared/reports/exports';

const route = fromRoute(ROUTES.source);

/**
 * GET /api/reports/{id}/source → the stored source file as uploaded, with its original name; a big
 * one → 302 to a presigned GET (5 minutes). No stored source → 404 source_missing.
 */
export async function main(req: HttpRequest<typeof route>) {
  const source = await reportSource(req.user.id, req.path.id);
  if (source.kind === 'redirect') return redirect(source.url, 302);
  return binary(source.data, { contentType: source.contentType, filename: source.filename });
}

export const handler = http(route, main);
