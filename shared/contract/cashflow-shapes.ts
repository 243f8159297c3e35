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

const month = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'YYYY-MM');

export const cashFlowQuerySchema = z.object({
  from: z.string().max(7).describe('YYYY-MM, the first month'),
  to: z.string().max(7).describe('YYYY-MM, the last month (at most 36 months)'),
  seller_id: z.string().min(1).max(64).optional(),
});

const payoutStatus = z.enum(['held', 'approved', 'paid']);

export const cashFlowSchema = z.object({
  from: month,
  to: month,
  seller_id: z.string().nullable(),
  today: day.describe('The day the statuses and the forecast are computed for'),
  balance: z
    .object({
      currency: z.string(),
      current: z.number().describe('«На балансе», roubles'),
      for_withdraw: z.number().describe('«Можно вывести», roubles'),
      as_of: z.string().describe('When WB said so (ISO time; the oldest reading when several WB accounts are summed)'),
      accounts: z.number().int(),
    })
    .nullable()
    .describe('The newest reading of WB’s account balance the sync kept (hourly at most); null without one'),
  balance_status: z
    .object({
      connected: z.number().int().describe('WB connections of the user (the balance is read through them)'),
      notes: z.array(
        z.object({
          wb_seller_id: z.string().nullable(),
          code: z
            .enum([
              'wb_not_connected',
              'wb_connection_stopped',
              'wb_balance_pending',
              'wb_balance_scope',
              'wb_balance_rate_limited',
              'wb_balance_unavailable',
              'wb_balance_invalid',
            ])
            .describe('Why the balance is not read (now)'),
          message: z.string().describe('The same in Russian, for the page'),
          at: z.string().nullable().describe('When WB refused (ISO); null when no call was made'),
        }),
      ),
    })
    .describe('Why WB’s balance is not read, per connection; no notes when every connection read it'),
  payouts: z.array(
    z.object({
      report_id: z.string(),
      wb_report_id: z.string().nullable(),
      period_from: day,
      period_to: day,
      amount: z.number().describe('WB’s bankPaymentSum where synced, the report’s payout otherwise, roubles'),
      amount_source: z.enum(['wb_bank_payment', 'report_payout']),
      formed_date: day,
      approved_date: day,
      expected_date: day,
      status: payoutStatus,
      paid_by: z
        .enum(['balance_rise', 'before_history'])
        .nullable()
        .describe(
          'paid: «Можно вывести» rose by the payout from its day (balance_rise), or its day passed before the balance was first read (before_history)',
        ),
      paid_on: day.nullable().describe('The Moscow day the balance showed it (balance_rise)'),
    }),
  ),
  months: z.array(
    z.object({
      month,
      inflow: z.number(),
      outflow: z.number(),
      net: z.number(),
      position: z.number().describe('The running sum of net from the first month of the range'),
      lines: z.array(
        z.object({
          key: z.enum(['payouts', 'own_costs', 'period_costs', 'purchases', 'usn']),
          title: z.string(),
          sign: z.number().int(),
          amount: z.number(),
        }),
      ),
    }),
  ),
  forecast: z.array(
    z.object({
      week_start: day,
      inflow: z.number().describe('Held and approved payouts expected that week'),
      outflow: z
        .number()
        .describe('Monthly period costs by their days, one-off costs, purchases and USN due that week'),
    }),
  ),
  tax_calendar: z.array(
    z.object({
      due_date: day,
      kind: z.enum(['usn_advance', 'usn_year']),
      period: z.string().describe('The quarter (2026-Q1) the payment is for; the year’s balance is for Q4'),
      amount: z.number().describe('The P&L’s USN of the quarter’s months, roubles'),
    }),
  ),
  rules: z
    .array(
      z.object({
        valid_from: day,
        objection_days: z.number().int(),
        payout_weekdays: z.array(z.number().int()),
        source: z.string(),
      }),
    )
    .describe('WB’s payout rules the dates come from (a dated setting)'),
});

export type CashFlow = z.infer<typeof cashFlowSchema>;
