/**
 * The P&L, tax thresholds and period costs in the contract (docs/API.md, «P&L and period costs»).
 * Money in roubles with two decimals; months `YYYY-MM`.
 */
import { z } from 'zod';
import { COST_KIND_NAMES } from '../marketplaces/wb/sources/cost-kinds';

const month = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'YYYY-MM');
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD');

export const PERIOD_COST_CATEGORY_VALUES = ['salaries', 'rent', 'services', 'other'] as const;
/** Longest name of a period cost. */
export const MAX_PERIOD_COST_NAME = 200;
/** Period costs a user may keep. */
export const MAX_PERIOD_COSTS = 1000;

export const periodCostBodySchema = z
  .object({
    name: z.string().trim().min(1).max(MAX_PERIOD_COST_NAME),
    category: z.enum(PERIOD_COST_CATEGORY_VALUES),
    amount: z.number().positive().describe('Roubles, at most two decimals; per month for a monthly cost'),
    kind: z.enum(['monthly', 'one_off']),
    from_month: month.nullable().optional().describe('Monthly: the first month'),
    to_month: month.nullable().optional().describe('Monthly: the last month; null or absent: open'),
    date: day.nullable().optional().describe('One-off: the day'),
    seller_id: z.string().min(1).max(64).nullable().optional().describe('The seller; null: all sellers together'),
  })
  .describe('A monthly cost needs from_month; a one-off needs date');

export const periodCostSchema = z.object({
  id: z.string(),
  seller_id: z.string().nullable(),
  name: z.string(),
  category: z.enum(PERIOD_COST_CATEGORY_VALUES),
  amount: z.number(),
  kind: z.enum(['monthly', 'one_off']),
  from_month: month.nullable(),
  to_month: month.nullable(),
  date: day.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export const periodCostListSchema = z.object({ costs: z.array(periodCostSchema) });
export const periodCostListQuerySchema = z.object({
  seller_id: z.string().min(1).max(64).optional().describe('Only this seller’s costs'),
});
export const periodCostImportFormSchema = z.object({
  seller_id: z.string().min(1).max(64).optional().describe('The seller the imported costs belong to'),
});
export const periodCostImportResultSchema = z.object({
  created: z.number().int(),
  errors: z.array(z.object({ row: z.number().int().describe('1-based row of the file'), message: z.string() })),
});

export const pnlQuerySchema = z.object({
  from: z
    .string()
    .max(7)
    .optional()
    .describe(
      'YYYY-MM, the first month; with `to`, or neither: then the 3 months ending with the newest month a report covers',
    ),
  to: z.string().max(7).optional().describe('YYYY-MM, the last month (at most 36 months)'),
  seller_id: z.string().min(1).max(64).optional(),
});

const lineValues = z.record(z.string(), z.number()).describe('Line key → roubles (expenses as positive amounts)');

const crossing = z.object({ month, from: day }).nullable();
export const thresholdSchema = z.object({
  seller_id: z.string().nullable(),
  seller_name: z.string(),
  tax_system: z.enum(['usn_income', 'usn_income_expenses']),
  year: z.number().int(),
  as_of: month,
  income: z.number().describe('Income of the calendar year so far (the USN base), roubles'),
  previous_year_income: z.number().nullable(),
  exemption_threshold: z.number(),
  rate5_limit: z.number(),
  rate7_limit: z.number(),
  source: z.string(),
  share: z.number().describe('income / exemption threshold, %'),
  level: z.enum(['below', 'approaching', 'crossed']),
  warning_share: z.number(),
  vat_from: crossing.describe('The month the income went above the threshold and the day VAT applies from'),
  rate7_from: crossing,
  usn_lost_from: crossing,
  vat_rate: z.number().describe('The rate due from vat_from (5 or 7); 0 while exempt'),
  message: z.string(),
  proposals: z
    .array(
      z.object({
        valid_from: day,
        tax_system: z.enum(['usn_income', 'usn_income_expenses']),
        usn_rate: z.number(),
        vat_rate: z.number(),
      }),
    )
    .describe('Dated tax periods to add in the settings (none when one is in force already)'),
});
export const thresholdListSchema = z.object({ thresholds: z.array(thresholdSchema) });
export const thresholdQuerySchema = z.object({
  seller_id: z.string().min(1).max(64).optional(),
  year: z
    .string()
    .regex(/^\d{4}$/)
    .optional()
    .describe('The calendar year; default: this year'),
});

export const pnlSchema = z.object({
  from: month,
  to: month,
  seller_id: z.string().nullable(),
  lines: z
    .array(z.object({ key: z.string(), title: z.string(), sign: z.number().int() }))
    .describe('The lines in order: sign +1 income, −1 expense, 0 for reference (not added)'),
  months: z.array(
    z.object({
      month,
      lines: lineValues,
      net_profit: z.number(),
      margin: z.number().nullable(),
      income: z.number().describe('The USN base of the month (realization + compensations)'),
      covered_days: z.number().int(),
      days: z.number().int(),
      reports: z.array(
        z.object({ report_id: z.string(), days: z.number().int(), share: z.number().describe('% of the report') }),
      ),
      costs_pending: z
        .array(z.enum(COST_KIND_NAMES))
        .describe(
          'The per-article costs (ads, storage, acceptance) WB’s APIs have not answered yet for a report of the month: its figures for them are not final. Empty otherwise',
        ),
      period_costs: z.array(
        z.object({
          id: z.string(),
          name: z.string(),
          category: z.enum(PERIOD_COST_CATEGORY_VALUES),
          amount: z.number(),
        }),
      ),
    }),
  ),
  totals: z.object({
    lines: lineValues,
    net_profit: z.number(),
    margin: z.number().nullable(),
    income: z.number(),
    covered_days: z.number().int(),
    days: z.number().int(),
  }),
  sources: z.array(
    z.object({
      report_id: z.string(),
      title: z.string(),
      period_from: day,
      period_to: day,
      split: z.array(z.object({ month, days: z.number().int(), share: z.number() })),
    }),
  ),
  split_rule: z.literal('days').describe('How a report straddling months is split: by its days (docs/METRICS.md)'),
  thresholds: z.array(thresholdSchema),
  warnings: z.array(z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) })),
});

export type PeriodCost = z.infer<typeof periodCostSchema>;
export type PeriodCostBody = z.infer<typeof periodCostBodySchema>;
export type Pnl = z.infer<typeof pnlSchema>;
export type TaxThreshold = z.infer<typeof thresholdSchema>;
