/**
 * The shapes of an article's unit economics and its what-if (docs/API.md «Unit economics»; docs/METRICS.md
 * «Unit economics over weeks»): money in roubles per unit sold net of returns, rates and margins in %.
 */
import { z } from 'zod';
import { MAX_ARTICLE_LENGTH } from './shapes';

/** The article in the path, percent-encoded: up to 12 characters for each of its 1,000 (see putProduct). */
export const articlePath = z.object({
  article: z
    .string()
    .min(1)
    .max(MAX_ARTICLE_LENGTH * 12),
});

const weeksField = z
  .union([z.string().max(4), z.number()])
  .optional()
  .describe('How many of the article’s last weeks, 1–52 (default 4); anything else answers 422 naming `weeks`');

export const unitEconomicsQuerySchema = z.object({
  weeks: z.string().max(4).optional().describe('How many of the article’s last weeks, 1–52 (default 4)'),
  seller_id: z.string().min(1).max(64).optional(),
});

export const whatIfBodySchema = z.object({
  price: z.number().optional().describe('The price before WB’s discount, roubles: answers the margin at it'),
  margin: z.number().optional().describe('A target margin, %: answers the price before and after WB’s discount'),
  weeks: weeksField,
  seller_id: z.string().min(1).max(64).optional(),
});

const rate = z.number().nullable();
const perUnitSchema = z.object({
  commission: z.number(),
  acquiring: z.number(),
  logistics: z.number(),
  reverse_logistics: z.number(),
  storage: z.number(),
  acceptance: z.number(),
  penalties: z.number().describe('Penalties and deductions'),
  ads: z.number(),
  vat: z.number(),
  usn: z.number(),
  cost_price: z.number(),
  own_costs: z.number(),
  other: z
    .number()
    .describe(
      'Attorney services, acquiring billed separately, the share of the costs without an article, less compensations and extra payments: what remains between the lines and the profit',
    ),
  profit: z.number(),
});

export const unitEconomicsWeekSchema = z.object({
  report_id: z.string(),
  title: z.string(),
  period_from: z.string(),
  period_to: z.string(),
});

export const articleUnitEconomicsSchema = z.object({
  article: z.string(),
  seller_id: z.string().nullable(),
  weeks_asked: z.number().int(),
  weeks: z.array(unitEconomicsWeekSchema).describe('The reports used, newest first: one week counted once'),
  sales_qty: z.number(),
  returns_qty: z.number(),
  units: z.number().describe('Units sold net of returns: the divisor of every per-unit line'),
  return_rate: rate.describe('Returns, % of the units sold'),
  price: z.number().nullable().describe('Realization per unit: the price after WB’s discount'),
  price_before_discount: z.number().nullable().describe('The seller’s price per unit before WB’s discount'),
  discount_rate: rate.describe('WB’s discount, % of the price before it'),
  commission_rate: rate,
  acquiring_rate: rate,
  tax_rate: rate.describe('VAT and USN, % of the realization'),
  drr: rate.describe('ДРР: ads / realization · 100'),
  per_unit: perUnitSchema.nullable().describe('Null when nothing was sold net'),
  margin: rate,
});

export const whatIfSchema = z.object({
  article: z.string(),
  report_ids: z.array(z.string()),
  price_before_discount: z.number().nullable(),
  price: z.number().nullable().describe('After WB’s discount (the realization per unit)'),
  profit: z.number().nullable().describe('Per unit'),
  margin: z.number().nullable(),
  reason: z
    .enum(['unreachable', 'no_units'])
    .nullable()
    .describe('Why there is no answer: no price gives the margin, or nothing was sold net'),
});

export type ArticleUnitEconomics = z.infer<typeof articleUnitEconomicsSchema>;
export type WhatIf = z.infer<typeof whatIfSchema>;
