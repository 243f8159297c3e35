import { z } from 'zod';
import { presentSeller } from '../../shared/catalog/present';
import {
  allocationSchema,
  http,
  json,
  taxPeriodsSchema,
  taxProfileSchema,
  type HttpOptions,
  type HttpRequest,
} from '../../shared/http';
import { assertTaxPeriods } from '../../shared/reports/settings';
import { updateSeller } from '../../shared/store/sellers.repo';

const route = {
  auth: 'user',
  body: z
    .object({
      name: z.string().trim().min(1).max(200).optional(),
      tax: taxProfileSchema.nullable().optional(),
      tax_periods: taxPeriodsSchema.nullable().optional(),
      allocation: allocationSchema.nullable().optional(),
    })
    .strict()
    .refine((b) => b.tax === undefined || b.tax_periods === undefined, {
      message: 'Send either tax or tax_periods, not both',
    }),
  path: z.object({ id: z.string() }),
} satisfies HttpOptions;

/**
 * PATCH /api/sellers/{id} {name?, tax?, tax_periods?, allocation?} → the seller. `tax` (a plain profile)
 * becomes the seller's own profile from the beginning; `tax_periods` its dated profile (a VAT rate not in
 * force on its period's first day → 422 `vat_rate_not_in_force`); null for either removes the seller's
 * own profile so the user's default applies. `allocation` null = the user's method applies.
 * Unknown or another user's seller → 404.
 */
export async function main(req: HttpRequest<typeof route>) {
  if (req.body.tax_periods) assertTaxPeriods(req.body.tax_periods);
  return json(
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
