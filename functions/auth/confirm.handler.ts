import { z } from 'zod';
import { confirm } from '../../shared/auth/accounts';
import { http, json, type HttpOptions, type HttpRequest } from '../../shared/http';
import { badRequest } from '../../shared/errors';

const route = { auth: 'none', query: z.object({ token: z.string().max(4096).optional() }) } satisfies HttpOptions;

/** GET /api/auth/confirm?token= → 200 confirmed | already_confirmed; a bad link → 400 invalid_token. */
export async function main(req: HttpRequest<typeof route>) {
  if (!req.query.token) throw badRequest('invalid_token', 'The link is invalid or has expired');
  return json(200, await confirm(req.query.token));
}

export const handler = http(route, main);
