/** zod schemas of inputs several routes share. */
import { z } from 'zod';

/** An email address, trimmed and lower-cased before validation (accounts are keyed by it). */
export const emailSchema = z.string().trim().toLowerCase().max(254).pipe(z.email());

/**
 * VAT rates the service knows (0 = not a VAT payer); docs/METRICS.md, tax profile. Each exists only on
 * some dates (5 and 7 from 2025, 22 from 2026, 20 before 2026): a dated period is checked on save (422
 * `vat_rate_not_in_force`), and a report applies the rule of shared/report/periods.ts.
 */
export const VAT_RATES = [0, 5, 7, 10, 20, 22] as const;

export const taxProfileSchema = z.object({
  tax_system: z.enum(['usn_income', 'usn_income_expenses', 'none']),
  usn_rate: z.number().min(0).max(15),
  vat_rate: z.literal(VAT_RATES),
});

/** The same fields, each optional: a PATCH merges them over the stored profile. */
export const taxProfilePatchSchema = taxProfileSchema.partial().strict();

/** A calendar date YYYY-MM-DD. */
export const isoDateSchema = z.iso.date();

/** One period of a dated tax profile: in force from valid_from (null = from the beginning) to the next one. */
export const taxPeriodSchema = taxProfileSchema.extend({ valid_from: isoDateSchema.nullable() }).strict();

/** A dated tax profile: 1..50 periods, no two starting on the same day. */
export const taxPeriodsSchema = z
  .array(taxPeriodSchema)
  .min(1)
  .max(50)
  .refine((ps) => new Set(ps.map((p) => p.valid_from ?? '')).size === ps.length, {
    message: 'Two periods start on the same day',
  });

/** How «Без артикула» costs are spread over the articles. */
export const allocationSchema = z.enum(['realization', 'quantity', 'none']);

/** An opaque pagination cursor from a previous page. */
export const cursorQuerySchema = z.object({ cursor: z.string().min(1).max(600).optional() });
