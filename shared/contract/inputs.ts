/** zod schemas of inputs several routes share (part of the contract; shared/http re-exports them). */
import { z } from 'zod';
import { TAX_SYSTEMS, USN_RATE_MAX, USN_RATE_MIN, VAT_RATES } from '../engine/types';

export { VAT_RATES };

/** An email address, trimmed and lower-cased before validation (accounts are keyed by it). */
export const emailSchema = z.string().trim().toLowerCase().max(254).pipe(z.email());

export const taxProfileSchema = z.object({
  tax_system: z.enum(TAX_SYSTEMS),
  usn_rate: z.number().min(USN_RATE_MIN).max(USN_RATE_MAX).describe('Percent'),
  vat_rate: z.literal(VAT_RATES).describe('Percent; 0 = not a VAT payer'),
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
