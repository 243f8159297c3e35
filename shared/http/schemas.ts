/** zod schemas of inputs several routes share. */
import { z } from 'zod';

/** An email address, trimmed and lower-cased before validation (accounts are keyed by it). */
export const emailSchema = z.string().trim().toLowerCase().max(254).pipe(z.email());

/** VAT rates a Russian simplified-tax payer can have (0 = not a VAT payer); METRICS.md, tax profile. */
export const VAT_RATES = [0, 5, 7, 10, 22] as const;

export const taxProfileSchema = z.object({
  tax_system: z.enum(['usn_income', 'usn_income_expenses', 'none']),
  usn_rate: z.number().min(0).max(15),
  vat_rate: z.literal(VAT_RATES),
});

/** The same fields, each optional: a PATCH merges them over the stored profile. */
export const taxProfilePatchSchema = taxProfileSchema.partial().strict();

/** An opaque pagination cursor from a previous page. */
export const cursorQuerySchema = z.object({ cursor: z.string().min(1).max(600).optional() });
