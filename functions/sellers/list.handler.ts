import { presentSeller } from '../../shared/catalog/present';
import { http, json, type HttpOptions, type HttpRequest } from '../../shared/http';
import { listSellers } from '../../shared/store/sellers.repo';

const route = { auth: 'user' } satisfies HttpOptions;

/** GET /api/sellers → {items: [{id, number, name, tax}]} (tax null: the user's default applies). */
export async function main(req: HttpRequest<typeof route>) {
  return json(200, { items: (await listSellers(req.user.id)).map(presentSeller) });
}

export const handler = http(route, main);
