import { binary, fromRoute, http, redirect, ROUTES, type HttpRequest } from '../../shared/http';
import { getConfig } from '../../shared/config';
import * as files from '../../shared/files/objects';
import { reportSource, type SourceDeps } from '../../shared/reports/upload/source-file';
import * as reports from '../../shared/store/reports.repo';

const deps: SourceDeps = { reports, files, maxInlineBytes: () => getConfig().MAX_INLINE_SOURCE_BYTES };

const route = fromRoute(ROUTES.source);

/**
 * GET /api/reports/{id}/source → the stored source file as uploaded, with its original name; a big
 * one → 302 to a presigned GET (5 minutes). No stored source → 404 source_missing.
 */
export async function main(req: HttpRequest<typeof route>) {
  const source = await reportSource(deps, req.user.id, req.path.id);
  if (source.kind === 'redirect') return redirect(source.url, 302);
  return binary(source.data, { contentType: source.contentType, filename: source.filename });
}

export const handler = http(route, main);
