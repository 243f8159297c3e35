import { patchSeller } from '../../shared/catalog/catalog';
import { updateSellerDeps } from '../../shared/catalog/catalog-deps';
import { route, ROUTES } from '../../shared/http';

/**
 * PATCH /api/sellers/{id} {name?, tax?, tax_periods?, allocation?} → the seller. `tax` (a plain profile)
 * becomes the seller's own profile from the beginning; `tax_periods` its dated profile (a VAT rate not in
 * force on its period's first day → 422 `vat_rate_not_in_force`); null for either removes the seller's
 * own profile so the user's default applies. `allocation` null = the user's method applies.
 * Unknown or another user's seller → 404.
 */
export const handler = route(ROUTES.updateSeller, async (req) => ({
  status: 200,
  body: await patchSeller(updateSellerDeps, req.user.id, req.path.id, {
    name: req.body.name,
    tax: req.body.tax,
    tax_periods: req.body.tax_periods,
    allocation: req.body.allocation,
  }),
}));
