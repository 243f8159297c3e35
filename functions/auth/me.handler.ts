import { presentMe } from '../../shared/auth/profile';
import { route, ROUTES } from '../../shared/http';

/** GET /api/auth/me → the caller as loaded (fresh) by the auth middleware. */
export const handler = route(ROUTES.me, async (req) => ({ status: 200, body: presentMe(req.user) }));
