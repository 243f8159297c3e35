import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { createUploadUrl } from '../../shared/reports/upload/upload';
import { uploadUrlDeps as deps } from '../../shared/reports/upload/file-deps';

const contract = ROUTES.uploadUrl;
const route = fromRoute(contract);

/** POST /api/reports/upload-url {filename, size} → a presigned PUT into the caller's uploads/. */
export async function main(req: HttpRequest<typeof route>) {
  return reply(contract, 200, await createUploadUrl(deps, req.user.id, req.body));
}

export const handler = http(route, main);
