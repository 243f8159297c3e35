import { presentSeller } from '../../shared/catalog/present';
import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { updateSeller } from '../../shared/store/sellers.repo';

const contract = ROUTES.updateSeller;
const route = fromRoute(contract);

/**
 * PATCH /api/sellers/{id} {name?, tax?} → the seller. A tax profile is replaced whole; null removes the
 * seller's own profile so the user's default applies. Unknown or another user's seller → 404.
 */
export async function main(req: HttpRequest<typeof route>) {
  const seller = await updateSeller(req.user.id, req.path.id, { name: req.body.name, tax: req.body.tax });
  return reply(contract, 200, presentSeller(seller));
}

export const handler = http(route, main);
