import { ROUTES, reply, fromRoute, http, taxProfileSchema, type HttpRequest } from '../../shared/http';
import { validation } from '../../shared/errors';
import { assertTaxPeriods } from '../../shared/reports/worker/report-settings';
import { toPublicUser, updateUserSettings } from '../../shared/store/users.repo';

const contract = ROUTES.updateMe;
const route = fromRoute(contract);

/**
 * PATCH /api/auth/me {tax?, tax_periods?, allocation?} → the user.
 * - `tax` (the plain profile, as before dated profiles): fields not sent keep the value in force today;
 *   the merged profile is validated whole and then applies FROM THE BEGINNING (it replaces any dated periods).
 * - `tax_periods`: the whole dated profile, [{valid_from (YYYY-MM-DD or null = from the beginning),
 *   tax_system, usn_rate, vat_rate}]; a VAT rate that does not exist on its period's first day → 422
 *   `vat_rate_not_in_force`.
 * - `allocation`: `realization` | `quantity` | `none`, how «Без артикула» costs are spread.
 * Reports built with other settings show `stale: true` until rebuilt.
 */
export async function main(req: HttpRequest<typeof route>) {
  let periods = req.body.tax_periods;
  if (req.body.tax) {
    const merged = taxProfileSchema.safeParse({ ...req.user.tax, ...req.body.tax });
    if (!merged.success)
      throw validation(
        merged.error.issues.map((i) => ({ ...i, path: ['tax', ...i.path] })),
        'body',
      );
    periods = [{ valid_from: null, ...merged.data }];
  }
  if (periods) assertTaxPeriods(periods);
  const user = await updateUserSettings(req.user.id, { tax_periods: periods, allocation: req.body.allocation });
  return reply(contract, 200, { user: toPublicUser(user) });
}

export const handler = http(route, main);
