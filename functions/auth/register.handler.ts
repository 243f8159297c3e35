import { z } from 'zod';
import { register } from '../../shared/auth/accounts';
import { emailSchema, http, json, sourceIp, type HttpOptions, type HttpRequest } from '../../shared/http';

const route = { auth: 'none', body: z.object({ email: emailSchema }) } satisfies HttpOptions;

/** POST /api/auth/register → 202 for a new and an existing address alike (no enumeration). */
export async function main(req: HttpRequest<typeof route>) {
  await register(req.body.email, sourceIp(req));
  return json(202, { status: 'confirmation_sent' });
}

export const handler = http(route, main);
