import { updateMe } from '../../shared/auth/profile';
import { settingsDeps } from '../../shared/auth/profile-deps';
import { route, ROUTES } from '../../shared/http';

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
export const handler = route(ROUTES.updateMe, async (req) => ({
  status: 200,
  body: await updateMe(settingsDeps, req.user, req.body),
}));
