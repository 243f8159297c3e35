import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { presignPut } from '../../shared/files/objects';
import { createUploadUrl, type UploadUrlDeps } from '../../shared/reports/upload/upload';
import { createUpload } from '../../shared/store/uploads.repo';

const contract = ROUTES.uploadUrl;
const route = fromRoute(contract);
const deps: UploadUrlDeps = { uploads: { createUpload }, files: { presignPut } };

/** POST /api/reports/upload-url {filename, size} → a presigned PUT into the caller's uploads/. */
export async function main(req: HttpRequest<typeof route>) {
  return reply(contract, 200, await createUploadUrl(deps, req.user.id, req.body));
}

export const handler = http(route, main);
