import { route, ROUTES } from '../../shared/http';
import { createUploadUrl } from '../../shared/reports/upload/upload';
import { uploadUrlDeps } from '../../shared/reports/upload/file-deps';

/** POST /api/reports/upload-url {filename, size} → a presigned PUT into the caller's uploads/. */
export const handler = route(ROUTES.uploadUrl, async (req) => ({
  status: 200,
  body: await createUploadUrl(uploadUrlDeps, req.user.id, req.body),
}));
