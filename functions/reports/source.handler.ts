import { binary, redirect, route, ROUTES } from '../../shared/http';
import { sourceDeps } from '../../shared/reports/upload/source-deps';
import { reportSource } from '../../shared/reports/upload/source-file';

/**
 * GET /api/reports/{id}/source → the stored source file as uploaded, with its original name; a big
 * one → 302 to a presigned GET (5 minutes). No stored source → 404 source_missing.
 */
export const handler = route(ROUTES.source, async (req) => {
  const source = await reportSource(sourceDeps, req.user.id, req.path.id);
  if (source.kind === 'redirect') return redirect(source.url, 302);
  return binary(source.data, { contentType: source.contentType, filename: source.filename });
});
