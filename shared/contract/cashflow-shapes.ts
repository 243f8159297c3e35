/**
 * Purchases of goods and the cash flow in the contract (docs/API.md, «Cash flow and purchases»).
 * Money in roubles with two decimals; days `YYYY-MM-DD`, months `YYYY-MM`.
 */
import { z } from 'zod';

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD');

/** Purchases a user may keep. */
export const MAX_PURCHASES = 5000;
/** Longest comment of a purchase. */
export const MAX_PURCHASE_COMMENT = 500;

export const purchaseBodySchema = z
  .object({
    date: z.string().max(32).describe('YYYY-MM-DD, the day the money went out (2019–2100)'),
    amount: z.number().describe('Roubles paid, more than zero, at most two decimals'),
    article: z.string().trim().min(1).max(1000).nullable().optional().describe('The catalog article bought'),
    quantity: z.number().nullable().optional().describe('Units bought (a whole number)'),
    comment: z.string().max(MAX_PURCHASE_COMMENT).nullable().optional(),
    seller_id: z.string().min(1).max(64).nullable().optional().describe('The seller; null: all sellers together'),
  })
  .describe('A purchase of goods: the money paid to a supplier on a day');

export const purchaseSchema = z.object({
  id: z.string(),
  seller_id: z.string().nullable(),
  date: day,
  amount: z.number(),
  article: z.string().nullable(),
  quantity: z.number().int().nullable(),
  comment: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export const purchaseListSchema = z.object({ purchases: z.array(purchaseSchema) });
export const purchaseListQuerySchema = z.object({
  seller_id: z.string().min(1).max(64).optional().describe('Only this seller’s purchases'),
});
export const purchaseImportFormSchema = z.object({
  seller_id: z.string().min(1).max(64).optional().describe('The seller the imported purchases belong to'),
});
export const purchaseImportResultSchema = z.object({
  created: z.number().int(),
  errors: z.array(z.object({ row: z.number().int().describe('1-based row of the file'), message: z.string() })),
});

export type PurchaseBody = z.infer<typeof purchaseBodySchema>;
export type Purchase = z.infer<typeof purchaseSchema>;
