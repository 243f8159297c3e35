import { getConfig } from '../../shared/config';
import { publicRoute, ROUTES } from '../../shared/http/public';
import { PRODUCT_NAME } from '../../shared/product';

/**
 * GET /api/config (public) → {product_name, support_contact, demo_email}: what the page shows before
 * and after sign-in from the operator's settings. support_contact is SUPPORT_CONTACT (null when unset);
 * demo_email is set only on the local stack that created a demo account. Touches no AWS service.
 */
export const handler = publicRoute(ROUTES.appConfig, { secrets: [] }, async () => {
  const c = getConfig();
  return {
    status: 200,
    body: {
      product_name: PRODUCT_NAME,
      support_contact: c.SUPPORT_CONTACT.trim() || null,
      demo_email: c.DEMO_EMAIL.trim() || null,
    },
  };
});
