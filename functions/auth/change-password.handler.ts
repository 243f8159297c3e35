import { z } from 'zod';
import { changePassword } from '../../shared/auth/accounts';
import { http, json, type HttpOptions, type HttpRequest } from '../../shared/http';

const route = {
  auth: 'user',
  body: z.object({ current_password: z.string().min(1).max(200), new_password: z.string().max(200) }).strict(),
} satisfies HttpOptions;

/**
 * POST /api/auth/change-password {current_password, new_password} → 200 {token, user}. Every earlier
 * session ends, the calling one included: the page keeps working with the token of the answer.
 * 400 invalid_current_password | weak_password (min_length 8); 409 password_changed.
 */
export async function main(req: HttpRequest<typeof route>) {
  return json(200, await changePassword(req.user, req.body.current_password, req.body.new_password));
}

export const handler = http(route, main);
