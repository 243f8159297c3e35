import { getConfig } from '../../shared/config';
import { fromRoute, publicHttp, reply, ROUTES } from '../../shared/http/public';
import { PRODUCT_NAME } from '../../shared/product';

const contract = ROUTES.appConfig;
const route = fromRoute(contract, { secrets: [] });

/**
 * GET /api/config (public) → {product_name, support_contact, demo_email}: what the page shows before
 * and after sign-in from the operator's settings. support_contact is SUPPORT_CONTACT (null when unset);
 * demo_email is set only on the local stack that created a demo account. Touches no AWS service.
 */
export async function main() {
  const c = getConfig();
  return reply(contract, 200, {
    product_name: PRODUCT_NAME,
    support_contact: c.SUPPORT_CONTACT.trim() || null,
    demo_email: c.DEMO_EMAIL.trim() || null,
  });
}

export const handler = publicHttp(route, main);
