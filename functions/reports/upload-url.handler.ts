import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { createUploadUrl } from '../../shared/reports/upload';

const contract = ROUTES.uploadUrl;
const route = fromRoute(contract);

/** POST /api/reports/upload-url {filename, size} → a presigned PUT into the caller's uploads/. */
export async function main(req: HttpRequest<typeof route>) {
  return reply(contract, 200, await createUploadUrl(req.user.id, req.body));
}

export const handler = http(route, main);
