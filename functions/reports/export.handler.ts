import { z } from 'zod';
import { binary, http, type HttpOptions, type HttpRequest } from '../../shared/http';
import { reportWorkbook } from '../../shared/reports/exports';

const route = { auth: 'user', path: z.object({ id: z.string() }) } satisfies HttpOptions;

/** GET /api/reports/{id}/export → the report as an .xlsx attachment named after its number. */
export async function main(req: HttpRequest<typeof route>) {
  const file = await reportWorkbook(req.user.id, req.path.id);
  return binary(file.data, { contentType: file.contentType, filename: file.filename });
}

export const handler = http(route, main);
