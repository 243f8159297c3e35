import { z } from 'zod';
import { login } from '../../shared/auth/accounts';
import { emailSchema, http, json, sourceIp, type HttpOptions, type HttpRequest } from '../../shared/http';

const route = {
  auth: 'none',
  body: z.object({ email: emailSchema, password: z.string().min(1).max(200) }),
} satisfies HttpOptions;

/** POST /api/auth/login → 200 {token, user}; any wrong input → 401 invalid_credentials. */
export async function main(req: HttpRequest<typeof route>) {
  return json(200, await login(req.body.email, req.body.password, sourceIp(req)));
}

export const handler = http(route, main);
