/**
 * The stored records the use cases read, each parsed by a versioned zod schema (docs/ARCHITECTURE.md,
 * "Stored records"). Every record carries `v`, the version of its shape; a write writes the current
 * version, a read checks it and parses the record. A record that does not parse is an error naming its
 * key (StoredRecordError, a 500 at the route): it is never cast and used as if it did. Shapes older than
 * the current versions are upgraded once by `npm run migrate` (scripts/migrate.ts), so no read path
 * knows them.
 *
 * The schemas check the fields the code relies on and keep any other attribute as it is (loose objects):
 * a record read and written back loses nothing.
 */
import { z } from 'zod';
import { ALLOCATED_FIELDS } from '../engine/allocation';
import { TAX_SYSTEMS, type ItemValues } from '../engine/types';
import { COST_FIELDS } from '../marketplaces/wb/sources/cost-kinds';

/** The current version of each kind of record; a changed shape gets a new version and a migration. */
export const RECORD_VERSIONS = {
  report: 1,
  product: 1,
  seller: 1,
  user: 1,
  period_cost: 1,
  own_costs: 1,
  purchase: 1,
} as const;
export type RecordKind = keyof typeof RECORD_VERSIONS;

/** A stored record that is not of its kind's current shape: names the record's key and what is wrong. */
export class StoredRecordError extends Error {
  constructor(
    readonly kind: RecordKind,
    readonly key: { pk: unknown; sk: unknown },
    readonly problem: string,
  ) {
    super(`Stored ${kind} record ${String(key.pk)} / ${String(key.sk)} does not parse: ${problem}`);
    this.name = 'StoredRecordError';
  }
}

/** Attributes of the table rather than of the record (keys, index keys, kind, version, expiry). */
const TABLE_ATTRIBUTES = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'type', 'v'] as const;

/**
 * The record of `kind` in `item`: its version checked, the table's attributes dropped, the rest parsed
 * by `schema`. Throws StoredRecordError naming the key when either fails.
 */
export function parseStored<T>(kind: RecordKind, schema: z.ZodType<T>, item: Record<string, unknown>): T {
  const key = { pk: item.pk, sk: item.sk };
  if (item.v !== RECORD_VERSIONS[kind])
    throw new StoredRecordError(
      kind,
      key,
      `version ${JSON.stringify(item.v)}, expected ${RECORD_VERSIONS[kind]} (npm run migrate)`,
    );
  const rest: Record<string, unknown> = { ...item };
  for (const a of TABLE_ATTRIBUTES) delete rest[a];
  const r = schema.safeParse(rest);
  if (!r.success) {
    const problem = r.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.') || '(record)'}: ${i.message}`)
      .join('; ');
    throw new StoredRecordError(kind, key, problem);
  }
  return r.data;
}

// Shared parts.

const isoDate = z.string().nullable();
export const storedTaxProfile = z.object({
  tax_system: z.enum(TAX_SYSTEMS),
  usn_rate: z.number(),
  vat_rate: z.number(),
});
export const storedTaxPeriod = storedTaxProfile.extend({ valid_from: isoDate });
const allocationMethod = z.enum(['realization', 'quantity', 'none']);
/** Values by field name (kopecks, percents, null where undefined). */
const itemValues = z.record(z.string(), z.number().nullable()) as unknown as z.ZodType<ItemValues>;

// The report record (report-record.ts: ReportRecord).

const reportFailure = z.object({ code: z.string(), message: z.string() });

export const storedReport = z.looseObject({
  id: z.string(),
  user_id: z.string(),
  title: z.string(),
  report_number: z.string().nullable(),
  seller_id: z.string().nullable(),
  period_from: z.string().nullable(),
  period_to: z.string().nullable(),
  rows: z.number(),
  format: z.enum(['zip', 'xlsx', 'xls', 'wb_api']).nullable(),
  is_combined: z.boolean(),
  source_report_ids: z.array(z.string()).optional(),
  identity: z.string().nullable().optional(),
  // One week is one report (shared/reports/upload/report-identity.ts): WB's number and the rows' fingerprint.
  wb_report_id: z.string().nullable().optional(),
  content_fingerprint: z.string().nullable().optional(),
  content_days: z.record(z.string(), z.string()).nullable().optional(),
  allow_duplicate: z.boolean().optional(),
  read_key: z.string().optional(),
  // Imported from WB's Finance API (shared/reports/worker/wb-import.ts): the connection and WB's own sums.
  source: z.literal('wb_api').optional(),
  wb_connection_id: z.string().optional(),
  wb_sums: z.record(z.string(), z.number()).optional(),
  costs_pending: z.array(z.string()).optional(),
  rebuild_again: z.boolean().optional(),
  wb_parts: z
    .array(
      z.object({
        report_id: z.string(),
        wb_report_id: z.string(),
        totals: z.record(z.string(), z.number()),
        wb_sums: z.record(z.string(), z.number()),
      }),
    )
    .optional(),
  sources: z.array(z.object({ id: z.string(), version: z.number(), rebuilt_at: z.string().nullable() })).optional(),
  covers: z.array(z.string()).optional(),
  source_path: z.string().nullable(),
  source_name: z.string().nullable(),
  source_size: z.number().nullable(),
  created_at: z.string(),
  rebuilt_at: z.string().optional(),
  tax_profile: storedTaxProfile,
  allocation: z
    .object({
      method: allocationMethod,
      spread: z.record(z.enum(ALLOCATED_FIELDS), z.number()),
      total: z.number(),
      articles: z.number(),
      reason: z.enum(['nothing_to_spread', 'no_base']).optional(),
    })
    .optional(),
  // Which part of each registered cost kind came from WB's per-article APIs (engine attribution.ts).
  cost_attribution: z
    .partialRecord(
      z.enum(COST_FIELDS),
      z.looseObject({
        report: z.number(),
        api: z.number(),
        attributed: z.number(),
        unmatched: z.number(),
        unmatched_cards: z.array(z.object({ nm_id: z.string(), kopecks: z.number() })),
        remainder: z.number(),
        articles: z.number(),
        days: z.number(),
      }),
    )
    .nullable()
    .optional(),
  totals: itemValues,
  commission_by_category: z.array(
    z.object({ category: z.string(), realization: z.number(), commission: z.number(), percent: z.number().nullable() }),
  ),
  warnings: z.array(
    z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
  ),
  item_count: z.number(),
  items_gen: z.number(),
  version: z.number(),
  status: z.enum(['processing', 'ready', 'failed']),
  task: z.enum(['upload', 'rebuild']).optional(),
  task_id: z.string().optional(),
  progress: z
    .object({
      step: z.enum(['queued', 'reading', 'pricing', 'writing', 'finishing']),
      rows_read: z.number(),
      rows_total: z.number(),
      items_written: z.number(),
      items_total: z.number(),
    })
    .optional(),
  lease_owner: z.string().optional(),
  lease_until: z.number().optional(),
  attempts: z.number().optional(),
  catalog_task: z.object({ task_id: z.string(), until: z.number(), attempts: z.number() }).optional(),
  error: reportFailure.optional(),
  refunded_rows: z.number().optional(),
  last_rebuild: z
    .object({
      task_id: z.string(),
      finished_at: z.string(),
      dropped: z.array(z.object({ article: z.string(), field: z.string(), value: z.number() })),
      error: reportFailure.optional(),
    })
    .optional(),
});

// The product record (products.repo.ts).

export const storedProduct = z.looseObject({
  article: z.string(),
  cost_price_set: z.boolean(),
  cost_prices: z.array(z.object({ valid_from: isoDate, cost_price: z.number() })),
  created_at: z.string(),
  updated_at: z.string(),
});

// The own per-unit costs of a user, one record (own-costs.repo.ts): the lines gzip'd as JSON in `data`.

export const storedOwnCosts = z.looseObject({
  rev: z.number().int().nonnegative(),
  line_count: z.number().int().nonnegative(),
  data: z.instanceof(Uint8Array),
  updated_at: z.string(),
});
/** The body inside `data` once gunzipped. */
export const storedOwnCostLines = z.object({
  lines: z.array(
    z.object({
      article: z.string().nullable(),
      name: z.string(),
      amounts: z.array(z.object({ valid_from: isoDate, amount: z.number().int().nonnegative() })),
    }),
  ),
});

// The seller record (sellers.repo.ts).

export const storedSeller = z.looseObject({
  id: z.string(),
  number: z.string(),
  name: z.string(),
  tax_periods: z.array(storedTaxPeriod).nullable(),
  allocation: allocationMethod.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

// The user record (users.repo.ts).

export const storedUser = z.looseObject({
  id: z.string(),
  email: z.string(),
  role: z.string(),
  confirmed: z.boolean(),
  password_hash: z.string().optional(),
  limits: z.number(),
  initial_limits: z.number(),
  tax_periods: z.array(storedTaxPeriod).min(1),
  allocation: allocationMethod,
  created_at: z.string(),
  confirmed_at: z.string().optional(),
  password_changed_at: z.string().optional(),
});

// A period cost (period-costs.repo.ts): a seller's monthly or one-off cost outside the reports.

const month = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/);
export const storedPeriodCost = z.looseObject({
  id: z.string(),
  seller_id: z.string().nullable(),
  name: z.string(),
  category: z.enum(['salaries', 'rent', 'services', 'other']),
  amount: z.number().int(),
  kind: z.enum(['monthly', 'one_off']),
  from_month: month.nullable(),
  to_month: month.nullable(),
  date: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

// A purchase of goods (purchases.repo.ts): money paid to a supplier on a day.
export const storedPurchase = z.looseObject({
  id: z.string(),
  seller_id: z.string().nullable(),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  amount: z.number().int(),
  article: z.string().nullable(),
  quantity: z.number().int().nullable(),
  comment: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
