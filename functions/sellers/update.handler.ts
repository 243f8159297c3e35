import { presentSeller } from '../../shared/catalog/present-product';
import { ROUTES, reply, fromRoute, http, type HttpRequest } from '../../shared/http';
import { assertTaxPeriods } from '../../shared/reports/worker/report-settings';
import { updateSeller } from '../../shared/store/sellers.repo';

const contract = ROUTES.updateSeller;
const route = fromRoute(contract);

/**
 * PATCH /api/sellers/{id} {name?, tax?, tax_periods?, allocation?} → the seller. `tax` (a plain profile)
 * becomes the seller's own profile from the beginning; `tax_periods` its dated profile (a VAT rate not in
 * force on its period's first day → 422 `vat_rate_not_in_force`); null for either removes the seller's
 * own profile so the user's default applies. `allocation` null = the user's method applies.
 * Unknown or another user's seller → 404.
 */
export async function main(req: HttpRequest<typeof route>) {
  if (req.body.tax_periods) assertTaxPeriods(req.body.tax_periods);
  return reply(
    contract,
    200,
    presentSeller(
      await updateSeller(req.user.id, req.path.id, {
        name: req.body.name,
        tax: req.body.tax,
        tax_periods: req.body.tax_periods,
        allocation: req.body.allocation,
      }),
    ),
  );
}

export const handler = http(route, main);
