import { z } from 'zod';
import { forgotPassword } from '../../shared/auth/accounts';
import { emailSchema, http, json, sourceIp, type HttpOptions, type HttpRequest } from '../../shared/http';

const route = { auth: 'none', body: z.object({ email: emailSchema }) } satisfies HttpOptions;

/** POST /api/auth/forgot-password → 202 whatever the address (no enumeration). */
export async function main(req: HttpRequest<typeof route>) {
  await forgotPassword(req.body.email, sourceIp(req));
  return json(202, { status: 'reset_sent' });
}

export const handler = http(route, main);
