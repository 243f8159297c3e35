import { z } from 'zod';
import { http, json, type HttpOptions, type HttpRequest } from '../../shared/http';
import { createUploadUrl } from '../../shared/reports/upload';

const route = {
  auth: 'user',
  body: z.object({ filename: z.string().min(1).max(1000), size: z.number().int().nonnegative() }),
} satisfies HttpOptions;

/** POST /api/reports/upload-url {filename, size} → a presigned PUT into the caller's uploads/. */
export async function main(req: HttpRequest<typeof route>) {
  return json(200, await createUploadUrl(req.user.id, req.body));
}

export const handler = http(route, main);
