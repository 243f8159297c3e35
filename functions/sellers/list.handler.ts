import { presentSeller } from '../../shared/catalog/present-product';
import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { listSellers } from '../../shared/store/sellers.repo';

const contract = ROUTES.listSellers;
const route = fromRoute(contract);

/** GET /api/sellers → {items: [{id, number, name, tax}]} (tax null: the user's default applies). */
export async function main(req: HttpRequest<typeof route>) {
  return reply(contract, 200, { items: (await listSellers(req.user.id)).map(presentSeller) });
}

export const handler = http(route, main);
