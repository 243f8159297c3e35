import { listUserSellers } from '../../shared/catalog/catalog';
import { listSellersDeps } from '../../shared/catalog/catalog-deps';
import { route, ROUTES } from '../../shared/http';

/** GET /api/sellers → {items: [{id, number, name, tax}]} (tax null: the user's default applies). */
export const handler = route(ROUTES.listSellers, async (req) => ({
  status: 200,
  body: await listUserSellers(listSellersDeps, req.user.id),
}));
