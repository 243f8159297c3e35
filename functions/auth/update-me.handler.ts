import { fromRoute, http, reply, ROUTES, taxProfileSchema, type HttpRequest } from '../../shared/http';
import { validation } from '../../shared/errors';
import { toPublicUser, updateTax } from '../../shared/store/users.repo';

const contract = ROUTES.updateMe;
const route = fromRoute(contract);

/**
 * PATCH /api/auth/me {tax} → the user with the new default tax profile. Fields not sent keep their
 * stored value (the profile starts as DEFAULT_TAX_PROFILE); the merged profile is validated whole.
 */
export async function main(req: HttpRequest<typeof route>) {
  const merged = taxProfileSchema.safeParse({ ...req.user.tax, ...req.body.tax });
  if (!merged.success)
    throw validation(
      merged.error.issues.map((i) => ({ ...i, path: ['tax', ...i.path] })),
      'body',
    );
  const user = await updateTax(req.user.id, merged.data);
  return reply(contract, 200, { user: toPublicUser(user) });
}

export const handler = http(route, main);
