/**
 * zod schemas of every JSON the API takes and gives (docs: the route table in routes.ts). Money is
 * roubles with 2 decimals here, as in JSON; counts and percents as they are. Server presenters return
 * `z.infer` of these; the web page's types are `z.infer` of these; docs/openapi.json is generated from
 * them. Schemas with an `id` become named components of the OpenAPI document.
 */
import { z } from 'zod';
import { TAX_SYSTEMS, VAT_RATES } from '../engine/types';
import { NULL_REASONS, REASONED_FIELDS } from '../engine/fields';
import { COST_FIELDS, COST_KIND_NAMES } from '../marketplaces/wb/sources/cost-kinds';

/** WB's per-article cost kinds, their titles and how a pending note names them (the web app's words). */
export { COST_KINDS } from '../marketplaces/wb/sources/cost-kinds';
import {
  allocationSchema,
  emailSchema,
  isoDateSchema,
  taxPeriodsSchema,
  taxProfilePatchSchema,
  taxProfileSchema,
} from './inputs';

// --- Tax profile (docs/METRICS.md: VAT and USN) ---

export { VAT_RATES, USN_RATE_MIN, USN_RATE_MAX, DEFAULT_USN_RATES } from '../engine/types';

export const taxSystemSchema = z.enum(TAX_SYSTEMS);

// Request inputs several routes share (email, tax profile, tax periods, allocation, cursor).
export { cursorQuerySchema, emailSchema } from './inputs';

export const allocationMethodSchema = z
  .enum(['realization', 'quantity', 'none'])
  .describe('How «Без артикула» costs are spread over the articles');

/** A tax profile as answers show it (stored profiles were validated on save). */
export const taxProfileJsonSchema = z
  .object({
    tax_system: taxSystemSchema,
    usn_rate: z.number().describe('Percent'),
    vat_rate: z.number().describe(`Percent, one of ${VAT_RATES.join(', ')}; 0 = not a VAT payer`),
  })
  .meta({ id: 'TaxProfile' });

/** One dated period of a tax profile (valid_from null = from the beginning). */
export const taxPeriodJsonSchema = taxProfileJsonSchema.extend({ valid_from: z.string().nullable() });

/**
 * The longest id a path may carry (ours are ULIDs, 26 characters; an item's `<report>.<seq>`): a longer one
 * is no record's, and answers 400 before it reaches a store key (DynamoDB refuses keys over 2 KB with a 500).
 */
export const MAX_PATH_ID_LENGTH = 64;
export const pathId = z.string().min(1).max(MAX_PATH_ID_LENGTH);
const idPath = z.object({ id: pathId });

const distinctIds = (min: number, max: number) =>
  z
    .array(z.string().min(1).max(64))
    .min(min)
    .max(max)
    .refine((ids) => new Set(ids).size === ids.length, 'report_ids must be distinct');

export const page = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), next_cursor: z.string().nullable().describe('null on the last page') });

// --- Auth ---

export const statusReplySchema = <S extends string>(status: S) => z.object({ status: z.literal(status) });

export const confirmResultSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('confirmed'), email: z.string() }),
  z.object({ status: z.literal('already_confirmed') }),
]);

export const userSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    role: z.string(),
    confirmed: z.boolean(),
    limits: z.number().int().describe('Report rows left'),
    initial_limits: z.number().int().describe('Limits after the last top-up (or at registration)'),
    tax: taxProfileJsonSchema.describe('The default tax profile in force today'),
    tax_periods: z.array(taxPeriodJsonSchema).describe('The default tax profile by date, oldest first'),
    allocation: allocationMethodSchema,
  })
  .meta({ id: 'User' });

export const userReplySchema = z.object({ user: userSchema });
export const loginResultSchema = z.object({ token: z.string(), user: userSchema });

export const limitOperationSchema = z.enum(['expense', 'topup', 'refund']);
export const limitHistoryEntrySchema = z
  .object({
    id: z.string(),
    operation: limitOperationSchema,
    rows: z.number().int(),
    limits_after: z.number().int(),
    report_id: z.string().nullable(),
    created_at: z.string(),
    report_title: z.string().nullable().describe('The report’s title now; null without a report or once it is gone'),
    report_deleted: z.boolean().describe('The report this record is about was deleted (or its upload undone)'),
  })
  .meta({ id: 'LimitHistoryEntry' });
export const limitTotalsSchema = z.object({
  charged: z.number().int().describe('Rows charged by uploads'),
  refunded: z.number().int().describe('Rows given back for failed uploads'),
  topped_up: z.number().int().describe('Rows added by operators'),
});
export const limitHistoryPageSchema = page(limitHistoryEntrySchema).extend({
  totals: limitTotalsSchema.optional().describe('Sums of the whole history; on the first page (no cursor) only'),
});

export const changePasswordBodySchema = z
  .object({ current_password: z.string().min(1).max(200), new_password: z.string().max(200) })
  .strict();

export const appConfigSchema = z.object({
  product_name: z.string(),
  support_contact: z.string().nullable().describe('SUPPORT_CONTACT; null when unset'),
  demo_email: z.string().nullable().describe('Set only on a local stack with a demo account'),
});

export const topUpBodySchema = z
  .object({
    email: emailSchema.optional(),
    user_id: z.string().min(1).max(64).optional(),
    rows: z.number().int().positive().max(1_000_000_000),
    idempotency_key: z.string().min(1).max(200).optional(),
  })
  .refine((b) => (b.email === undefined) !== (b.user_id === undefined), {
    message: 'Give exactly one of email and user_id',
    path: ['email'],
  });
export const topUpResultSchema = z.object({
  user_id: z.string(),
  limits: z.number().int(),
  initial_limits: z.number().int(),
});

// --- Reports ---

/** Per-item (or totals) values keyed by field name (docs/METRICS.md); null where undefined (margin without realization). */
export const valuesSchema = z.record(z.string(), z.number().nullable()).meta({ id: 'Values' });

export const sellerRefSchema = z
  .object({ id: z.string(), number: z.string(), name: z.string() })
  .meta({ id: 'SellerRef' });

export const droppedManualValueSchema = z.object({
  article: z.string(),
  field: z.string(),
  value: z.number().nullable(),
});

export const reportStatusSchema = z.enum(['processing', 'ready', 'failed']).meta({ id: 'ReportStatus' });
export const reportProgressSchema = z
  .object({
    step: z.enum(['queued', 'reading', 'pricing', 'writing', 'finishing']),
    rows_read: z.number().int(),
    rows_total: z.number().int(),
    items_written: z.number().int(),
    items_total: z.number().int(),
  })
  .meta({ id: 'ReportProgress' });
export const failureSchema = z.object({
  code: z.string(),
  message: z.string(),
  duplicate_of: z.string().optional().describe('`duplicate_report`: the report with the same rows'),
});

export const reportSourceSchema = z
  .enum(['file', 'wb_api', 'combined'])
  .describe('Where the rows came from: an uploaded file, WB’s Finance API (a connection), or other reports')
  .meta({ id: 'ReportSource' });

export const reconciliationStatusSchema = z
  .enum(['match', 'mismatch', 'unavailable'])
  .meta({ id: 'ReconciliationStatus' });
export const reconciliationFieldSchema = z
  .object({
    field: z
      .string()
      .describe('Our total (docs/METRICS.md) compared: payout, for_pay, logistics, storage, acceptance, …'),
    wb_field: z.string().describe('The figure of WB’s report list it is compared with (bankPaymentSum, forPaySum, …)'),
    wb: z.number().describe('WB’s figure, roubles'),
    ours: z.number().describe('Ours, roubles'),
    diff: z.number().describe('ours − wb, roubles'),
  })
  .meta({ id: 'ReconciliationField' });
export const reconciliationSchema = z
  .object({
    status: reconciliationStatusSchema.describe(
      '`match`: every figure equal to the kopeck; `mismatch`: some differ (the fields say which); `unavailable`: WB’s list gave no figures for this report',
    ),
    fields: z.array(reconciliationFieldSchema),
    reports: z
      .array(
        z.object({
          report_id: z.string().describe('Our report the WB report was imported as'),
          wb_report_id: z.string().describe('WB’s report id (weekly, buyouts of type 2 or 3, daily)'),
          status: reconciliationStatusSchema,
          fields: z.array(reconciliationFieldSchema),
        }),
      )
      .optional()
      .describe(
        'A combined report of WB imports: each WB report’s own totals against its own list sums; `fields` above are the sums over them',
      ),
  })
  .meta({ id: 'Reconciliation' });

export const reportSummarySchema = z
  .object({
    id: z.string(),
    title: z.string(),
    report_number: z.string().nullable(),
    seller: sellerRefSchema.nullable(),
    period_from: z.string().nullable(),
    period_to: z.string().nullable(),
    rows: z.number().int(),
    is_combined: z.boolean(),
    source_path: z.string().nullable(),
    source_available: z.boolean(),
    source_report_ids: z.array(z.string()).optional().describe('Combined reports only'),
    source: reportSourceSchema.optional().describe('Absent on reports stored before the field existed: `file`'),
    wb_report_id: z.string().optional().describe('Imported from WB (`source: wb_api`): WB’s report id'),
    wb_connection_id: z.string().optional().describe('Imported from WB: the connection that imported it'),
    reconciliation: reconciliationSchema
      .optional()
      .describe(
        'Imported from WB, or combined from WB imports (then per WB report too): our totals against the sums of WB’s report list («Итого к оплате» and its parts)',
      ),
    created_at: z.string(),
    rebuilt_at: z.string().optional().describe('Absent until the report is rebuilt'),
    totals: valuesSchema,
    status: reportStatusSchema.describe(
      '`processing` (see `task` and `progress`), `ready`, or `failed` (see `error`, `refunded_rows`; the charge refunded)',
    ),
    task: z
      .enum(['upload', 'rebuild'])
      .optional()
      .describe('While processing: `upload` (no items yet) or `rebuild` (the current items stay readable)'),
    progress: reportProgressSchema.optional().describe('While processing'),
    error: failureSchema.optional().describe('When failed'),
    refunded_rows: z.number().int().optional().describe('When failed: the rows given back'),
    stale: z
      .boolean()
      .optional()
      .describe(
        'A rebuild would change the numbers: cost prices or tax settings changed since the build, or (combined) a source changed',
      ),
    stale_reason: z.string().nullable().optional().describe('Why the report is stale, in Russian; null when it is not'),
    last_rebuild: z
      .object({
        finished_at: z.string(),
        dropped_manual_values: z.array(droppedManualValueSchema),
        error: failureSchema.optional(),
      })
      .optional()
      .describe('The outcome of the last rebuild done by the worker'),
  })
  .meta({ id: 'ReportSummary' });
export const reportPageSchema = page(reportSummarySchema);

/** Why an item's margin or ROI is null (docs/METRICS.md): only the null ones are named. */
const nullReasonsSchema = z
  .partialRecord(z.enum(REASONED_FIELDS), z.enum(NULL_REASONS))
  .describe(
    'Why `effective.margin` / `effective.roi` is null: `no_cost_price` (no cost price: profit would be overstated by the whole cost), `no_realization` (margin: realization ≤ 0), `no_net_sales` (ROI: no units sold net); a field with a value is not named',
  );

export const itemSchema = z
  .object({
    item_id: z.string(),
    article: z.string(),
    category: z.string(),
    nm_id: z.string(),
    brand: z.string(),
    computed: valuesSchema,
    manual_values: valuesSchema,
    effective: valuesSchema,
    null_reasons: nullReasonsSchema,
  })
  .meta({ id: 'Item' });

export const categoryCommissionSchema = z
  .object({
    category: z.string(),
    realization: z.number(),
    commission: z.number(),
    percent: z.number().nullable(),
  })
  .meta({ id: 'CategoryCommission' });

export const reportWarningSchema = z
  .object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() })
  .meta({ id: 'ReportWarning' });

export const reportSchema = reportSummarySchema
  .extend({
    tax_profile: taxProfileJsonSchema,
    allocation: z
      .object({
        method: allocationMethodSchema,
        spread: z
          .record(z.enum(['storage', 'acceptance', 'deductions', 'penalties', 'ads']), z.number())
          .describe('Roubles spread, per cost field'),
        total: z.number(),
        articles: z.number().int(),
        reason: z.enum(['nothing_to_spread', 'no_base']).optional(),
      })
      .nullable()
      .describe('Null on reports built before allocation existed'),
    cost_attribution: z
      .partialRecord(
        z.enum(COST_FIELDS),
        z.object({
          report_total: z
            .number()
            .describe('Roubles of the field in the report’s rows (for ads: the «ВБ.Продвижение» deductions)'),
          from_api: z
            .number()
            .describe(
              'Roubles laid on articles from WB’s API whose cards have rows in the report (unmatched not included)',
            ),
          without_article: z
            .number()
            .describe(
              'Roubles that stay on «Без артикула» (report_total − what the articles carry), spread by the allocation',
            ),
          api_total: z.number().describe('Roubles the API gives for the period, every card'),
          unmatched: z
            .number()
            .describe(
              'Roubles the API gives for cards without rows in the report: each such card is an item of its own (article «Карточка <nm_id>», with «(<vendor code>)» when WB’s answers give it, zero sales, this spend as its cost), never spread onto other articles',
            ),
          unmatched_cards: z
            .array(z.object({ nm_id: z.string(), amount: z.number() }))
            .describe('Up to 20, largest first'),
          articles: z.number().int(),
          days: z.number().int().describe('Days of the period the API answered for'),
        }),
      )
      .nullable()
      .describe(
        'Per-article costs from WB’s APIs (docs/METRICS.md); null when the report was built from its rows alone',
      ),
    costs_pending: z
      .array(z.enum(COST_KIND_NAMES))
      .describe(
        'Imported from WB: the per-article costs WB’s other APIs have not answered for the report’s week yet (ads, storage, acceptance); while not empty those costs are spread by sales and not final. Empty otherwise',
      ),
    items: z.array(itemSchema),
    commission_by_category: z.array(categoryCommissionSchema),
    warnings: z.array(reportWarningSchema),
    stale: z.boolean().describe('A rebuild would change the numbers (cost prices or tax profile changed)'),
    stale_reason: z.string().nullable().describe('Why the report is stale, in Russian; null when it is not'),
    stale_sources: z
      .array(
        z.object({
          id: z.string(),
          title: z.string().nullable(),
          change: z.enum(['rebuilt', 'corrected', 'deleted']),
        }),
      )
      .optional()
      .describe('A combined report: its sources that changed since it was combined'),
  })
  .meta({ id: 'Report' });
export const reportReplySchema = z.object({ report: reportSchema });

/**
 * Items as columns (GET /api/reports/{id}?items=columns): row r is item r; `effective[f][r]` is field
 * `fields[f]`; `computed` and `manual_values` list only what differs, as {field: {row: value}}.
 */
export const itemColumnsSchema = z
  .object({
    count: z.number().int(),
    item_id: z.array(z.string()),
    article: z.array(z.string()),
    category: z.array(z.string()),
    nm_id: z.array(z.string()),
    brand: z.array(z.string()),
    fields: z.array(z.string()),
    effective: z.array(z.array(z.number().nullable())),
    computed: z.record(z.string(), z.record(z.string(), z.number().nullable())),
    manual_values: z.record(z.string(), z.record(z.string(), z.number().nullable())),
    null_reasons: z
      .partialRecord(z.enum(REASONED_FIELDS), z.record(z.string(), z.enum(NULL_REASONS)))
      .describe('As an item’s `null_reasons`, by field then row: {field: {row: reason}}'),
  })
  .meta({ id: 'ItemColumns' });
export const reportColumnsSchema = reportSchema
  .omit({ items: true })
  .extend({ item_columns: itemColumnsSchema })
  .meta({ id: 'ReportColumns' });
export const reportItemsQuerySchema = z.object({
  items: z.enum(['objects', 'columns']).optional().describe('`columns`: the items as `item_columns`'),
});
export const reportOrColumnsReplySchema = z.object({ report: z.union([reportSchema, reportColumnsSchema]) });

export const uploadUrlBodySchema = z.object({
  filename: z.string().min(1).max(1000),
  size: z.number().int().nonnegative(),
});
export const uploadUrlSchema = z.object({
  upload_id: z.string(),
  url: z.string(),
  method: z.literal('PUT'),
  headers: z.record(z.string(), z.string()),
  expires_in: z.number().int().describe('Seconds'),
});

/** JSON `{upload_id}` of a presigned upload; a multipart request sends the `file` field instead. */
export const uploadRefBodySchema = z.object({ upload_id: z.string().max(200).optional() });
export const uploadBodySchema = uploadRefBodySchema.extend({
  // JSON true/false, or the text of a multipart field
  allow_duplicate: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'on'])])
    .optional()
    .transform((v) => v === true || v === 'true' || v === '1' || v === 'on')
    .describe('Upload even when the caller already has this report (charges again)'),
});
export const duplicateOfSchema = z.object({ id: z.string(), title: z.string(), created_at: z.string() });

export const reportFormatSchema = z.enum(['zip', 'xlsx', 'xls']);
export const rowCountSchema = z.object({
  rows: z.number().int(),
  limits: z.number().int(),
  limits_after: z.number().int(),
  enough: z.boolean(),
  format: reportFormatSchema,
  report_number: z.string().nullable(),
  seller_number: z.string().nullable(),
  duplicate_of: duplicateOfSchema
    .nullable()
    .describe('The caller’s report with the same identity: uploading again would charge again'),
});

export const reportPatchBodySchema = z
  .object({
    title: z.string().trim().min(1).max(200).optional(),
    seller_id: z.string().min(1).max(64).nullable().optional().describe('null unlinks the seller'),
  })
  .strict()
  .refine((b) => b.title !== undefined || b.seller_id !== undefined, 'Send title and/or seller_id');
export const reportSummaryReplySchema = z.object({ report: reportSummarySchema });

export const reportListQuerySchema = z.object({
  seller_id: z.string().min(1).max(64).optional(),
  cursor: z.string().min(1).max(600).optional(),
});

export const manualValueBodySchema = z.object({
  field: z.string().min(1).max(100),
  value: z.number().nullable().describe('In the field’s unit (money: roubles); null removes the correction'),
});
export const manualValueResultSchema = z.object({ item: itemSchema, totals: valuesSchema });

export const rebuildResultSchema = z.object({
  report: reportSchema,
  dropped_manual_values: z.array(droppedManualValueSchema),
});

export const rebuildManyBodySchema = z.object({ report_ids: z.array(z.string().max(200)).max(1000).optional() });
export const rebuildManyResultSchema = z.object({
  rebuilt: z.array(z.string()),
  processing: z.array(z.string()).describe('Accepted; the worker is still on them (answer 202)'),
  skipped: z.array(
    z.object({
      id: z.string(),
      reason: z
        .string()
        .describe('not_found, source_missing, time_limit (send the id again), a reader error code, or internal_error'),
    }),
  ),
});

export const MIN_COMBINE = 2;
export const MAX_COMBINE = 100;
export const combineBodySchema = z.object({
  report_ids: distinctIds(MIN_COMBINE, MAX_COMBINE),
  title: z.string().trim().min(1).max(200).optional(),
});
export const jobStatusSchema = z.enum(['queued', 'running', 'done', 'failed']);
/** A chosen report whose numbers a rebuild would change (combine, summary export). */
export const staleSourceSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    reason: z.string().describe('Why it is stale, in Russian'),
  })
  .meta({ id: 'StaleSource' });
export const combineJobSchema = z
  .object({
    job_id: z.string(),
    status: jobStatusSchema,
    progress: z.object({ done: z.number().int(), total: z.number().int(), step: z.string().optional() }),
    report_id: z.string().optional().describe('When done'),
    error: z.object({ code: z.string(), message: z.string() }).optional().describe('When failed'),
    stale_sources: z
      .array(staleSourceSchema)
      .optional()
      .describe(
        'On the answer of POST combine: the chosen reports that are stale (a rebuild would change them), combined with the numbers they have; [] when none',
      ),
  })
  .meta({ id: 'CombineJob' });

export const summaryExportBodySchema = z.object({ report_ids: distinctIds(1, 100) });

// --- Catalog and sellers ---

/**
 * Longest article the catalog prices: a report's article of any sensible length (WB's own are at most 75
 * characters), and short enough that PUT /api/products/{article} percent-encoded (6 bytes a Cyrillic
 * letter) stays within API Gateway's 10 KB request line and headers.
 */
export const MAX_ARTICLE_LENGTH = 1000;

export const productSchema = z
  .object({
    article: z.string(),
    cost_price: z.number().describe('Roubles per unit, in force today (0 when never set)'),
    cost_price_set: z.boolean().describe('False for a product a report added and the seller has not priced yet'),
    cost_prices: z
      .array(z.object({ valid_from: z.string().nullable(), cost_price: z.number() }))
      .describe('Dated prices in roubles, oldest first'),
    updated_at: z.string(),
  })
  .meta({ id: 'Product' });
export const productPageSchema = page(productSchema);
export const productListQuerySchema = z.object({
  search: z.string().max(MAX_ARTICLE_LENGTH).optional(),
  cursor: z.string().min(1).max(1500).optional(),
  missing: z.enum(['1', 'true', '0', 'false']).optional().describe('1: only products whose cost price was never set'),
});
export const productPutBodySchema = z.object({
  cost_price: z.number().finite().min(0).max(100_000_000).describe('Roubles per unit'),
  valid_from: isoDateSchema.nullable().optional().describe('From this day on (YYYY-MM-DD); null: from the beginning'),
});
/** Articles of an import listed back when the catalog does not know them (the rest are counted). */
export const MAX_UNKNOWN_LISTED = 1000;
export const importFormSchema = z.object({
  create_missing: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .describe('true: add the articles the catalog does not know; without it they are listed, not created'),
});
export const importResultSchema = z.object({
  updated: z.number().int(),
  created: z.number().int().describe('Products added (only with create_missing=true)'),
  unknown: z
    .object({
      count: z.number().int().describe('Articles of the file the catalog does not know (not created, nor priced)'),
      articles: z.array(z.string()).describe(`The first ${MAX_UNKNOWN_LISTED} of them, in the file's order`),
    })
    .describe('Without create_missing=true: what the import did not know and left out'),
  errors: z.array(z.object({ row: z.number().int().describe('1-based row of the file'), message: z.string() })),
});

// --- Own per-unit costs (docs/METRICS.md, Own per-unit costs): money in roubles per unit ---

export const ownCostLineSchema = z
  .object({
    article: z
      .string()
      .nullable()
      .describe('null: the default line for every article (an article’s line of the same name replaces it)'),
    name: z.string().describe('The cost’s name, e.g. «Упаковка»'),
    amount: z.number().describe('Roubles per unit, in force today'),
    amounts: z
      .array(z.object({ valid_from: z.string().nullable(), amount: z.number() }))
      .describe('Dated amounts in roubles per unit, oldest first; valid_from null: from the beginning'),
  })
  .meta({ id: 'OwnCostLine' });
export const ownCostListSchema = z.object({
  items: z.array(ownCostLineSchema).describe('The defaults first, then by article, each by name'),
  updated_at: z.string().nullable().describe('When the lines last changed (null: never)'),
});
export const ownCostPutBodySchema = z.object({
  article: z
    .string()
    .max(MAX_ARTICLE_LENGTH)
    .nullable()
    .optional()
    .describe('The article; null or absent: the default line for every article'),
  name: z.string().trim().min(1).max(100).describe('The cost’s name, e.g. «Упаковка»'),
  amount: z.number().finite().min(0).max(100_000_000).describe('Roubles per unit'),
  valid_from: isoDateSchema
    .nullable()
    .optional()
    .describe(
      'From this day on (YYYY-MM-DD); null: from the beginning; absent: a new line from the beginning, a change from today',
    ),
});
export const ownCostDeleteQuerySchema = z.object({
  article: z.string().min(1).max(MAX_ARTICLE_LENGTH).optional().describe('Absent: the default line'),
  name: z.string().min(1).max(100),
  valid_from: z
    .union([isoDateSchema, z.literal('beginning')])
    .optional()
    .describe('Only this dated amount (`beginning`: the one from the beginning); absent: the whole line'),
});
export const ownCostImportFormSchema = z.object({
  allow_unknown: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .describe('true: apply lines of articles the catalog does not know; without it such a file is not applied'),
});
export const ownCostImportResultSchema = z.object({
  applied: z
    .boolean()
    .describe('True when the whole file was applied; false: nothing was written (see errors, unknown)'),
  created: z.number().int().describe('Lines added'),
  updated: z.number().int().describe('Lines given a new amount'),
  unknown: z.object({
    count: z.number().int().describe('Articles of the file the catalog does not know'),
    articles: z.array(z.string()).describe(`The first ${MAX_UNKNOWN_LISTED} of them, in the file's order`),
  }),
  errors: z.array(z.object({ row: z.number().int().describe('1-based row of the file'), message: z.string() })),
});

export const sellerSchema = sellerRefSchema
  .extend({
    tax: taxProfileJsonSchema.nullable().describe('The seller’s own profile in force today; null: the user’s applies'),
    tax_periods: z.array(taxPeriodJsonSchema).nullable(),
    allocation: allocationMethodSchema.nullable(),
  })
  .meta({ id: 'Seller' });
export const sellerListSchema = z.object({ items: z.array(sellerSchema) });
export const sellerPatchBodySchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    tax: taxProfileSchema.nullable().optional(),
    tax_periods: taxPeriodsSchema.nullable().optional(),
    allocation: allocationSchema.nullable().optional(),
  })
  .strict()
  .refine((b) => b.tax === undefined || b.tax_periods === undefined, {
    message: 'Send either tax or tax_periods, not both',
  });

export const updateMeBodySchema = z
  .object({
    tax: taxProfilePatchSchema.optional(),
    tax_periods: taxPeriodsSchema.optional(),
    allocation: allocationSchema.optional(),
  })
  .strict()
  .refine((b) => !(b.tax && b.tax_periods), { message: 'Send either tax or tax_periods, not both' });

export { idPath };

// --- Period analytics (GET /api/analytics): money in roubles, margin in % ---

export const analyticsQuerySchema = z.object({
  from: z.string().max(10).optional().describe('YYYY-MM-DD; with `to`, or neither (the last weeks with reports)'),
  to: z.string().max(10).optional(),
  seller_id: z.string().min(1).max(64).optional(),
  article: z.string().max(MAX_ARTICLE_LENGTH).optional().describe('Adds `history`: this article week by week'),
});
export const analyticsExportQuerySchema = analyticsQuerySchema.omit({ article: true });

const abcLetterSchema = z.enum(['A', 'B', 'C']);
const marginGroupSchema = z.enum(['high', 'low', 'loss']);
export const analyticsFiguresSchema = z
  .object({
    realization: z.number(),
    for_pay: z.number(),
    payout: z.number(),
    profit: z.number(),
    margin: z.number().nullable(),
    sales_qty: z.number(),
    returns_qty: z.number(),
    expenses: z.number(),
  })
  .meta({ id: 'AnalyticsFigures' });
const rangeSchema = z.object({ from: z.string(), to: z.string() });
export const analyticsSchema = z
  .object({
    range: rangeSchema,
    previous_range: rangeSchema,
    seller_id: z.string().nullable(),
    available: z.object({
      report_count: z.number().int(),
      first_week: z.string().nullable(),
      last_week: z.string().nullable(),
    }),
    weeks: z.array(
      analyticsFiguresSchema.extend({
        period_from: z.string(),
        period_to: z.string(),
        report_ids: z.array(z.string()),
      }),
    ),
    totals: analyticsFiguresSchema,
    previous: analyticsFiguresSchema.extend({
      change: z.record(analyticsFiguresSchema.keyof(), z.number().nullable()).describe('In %; margin in points'),
    }),
    articles: z.array(
      z.object({
        article: z.string(),
        realization: z.number(),
        profit: z.number(),
        margin: z.number().nullable(),
        sales_qty: z.number(),
        returns_qty: z.number(),
        abc_revenue: abcLetterSchema.nullable(),
        abc_profit: abcLetterSchema.nullable(),
        margin_group: marginGroupSchema.nullable(),
      }),
    ),
    margin_groups: z.record(
      marginGroupSchema,
      z.object({ count: z.number().int(), realization: z.number(), profit: z.number() }),
    ),
    warnings: z.array(
      z.object({
        code: z.enum(['missing_week', 'duplicate_report', 'report_processing', 'stale_report', 'summary_unavailable']),
        message: z.string(),
        details: z.record(z.string(), z.unknown()),
      }),
    ),
    history: z
      .object({
        article: z.string(),
        weeks: z.array(
          z.object({
            period_from: z.string(),
            period_to: z.string(),
            realization: z.number(),
            profit: z.number(),
            margin: z.number().nullable(),
            sales_qty: z.number(),
            returns_qty: z.number(),
          }),
        ),
      })
      .optional()
      .describe('With `?article=`'),
  })
  .meta({ id: 'Analytics' });

// --- Types (z.infer: the same on the server and in the web page) ---

export type TaxSystem = z.infer<typeof taxSystemSchema>;
export type TaxProfile = z.infer<typeof taxProfileJsonSchema>;
export type TaxPeriod = z.infer<typeof taxPeriodJsonSchema>;
export type AllocationMethod = z.infer<typeof allocationMethodSchema>;
export type User = z.infer<typeof userSchema>;
export type LimitHistoryEntry = z.infer<typeof limitHistoryEntrySchema>;
export type LimitTotals = z.infer<typeof limitTotalsSchema>;
export type LimitHistoryPage = z.infer<typeof limitHistoryPageSchema>;
export type AppConfig = z.infer<typeof appConfigSchema>;
export type Values = z.infer<typeof valuesSchema>;
export type SellerRef = z.infer<typeof sellerRefSchema>;
export type ReportSummary = z.infer<typeof reportSummarySchema>;
export type Item = z.infer<typeof itemSchema>;
export type CategoryCommission = z.infer<typeof categoryCommissionSchema>;
export type ReportWarning = z.infer<typeof reportWarningSchema>;
export type Report = z.infer<typeof reportSchema>;
export type ReportProgress = z.infer<typeof reportProgressSchema>;
export type ItemColumns = z.infer<typeof itemColumnsSchema>;
export type ReportColumns = z.infer<typeof reportColumnsSchema>;
export type ReportAllocation = NonNullable<Report['allocation']>;
export type ReportCostAttribution = NonNullable<Report['cost_attribution']>;
export type UploadUrl = z.infer<typeof uploadUrlSchema>;
export type RowCount = z.infer<typeof rowCountSchema>;
export type DroppedManualValue = z.infer<typeof droppedManualValueSchema>;
export type RebuildResult = z.infer<typeof rebuildResultSchema>;
export type RebuildManyResult = z.infer<typeof rebuildManyResultSchema>;
export type CombineJob = z.infer<typeof combineJobSchema>;
export type StaleSource = z.infer<typeof staleSourceSchema>;
export type Product = z.infer<typeof productSchema>;
export type ImportResult = z.infer<typeof importResultSchema>;
export type OwnCostLineJson = z.infer<typeof ownCostLineSchema>;
export type OwnCostImportResult = z.infer<typeof ownCostImportResultSchema>;
export type Seller = z.infer<typeof sellerSchema>;
export type Analytics = z.infer<typeof analyticsSchema>;
export type AnalyticsFigures = z.infer<typeof analyticsFiguresSchema>;
export type AnalyticsWeek = Analytics['weeks'][number];
export type AnalyticsArticle = Analytics['articles'][number];
export type AbcLetter = z.infer<typeof abcLetterSchema>;
export type MarginGroup = z.infer<typeof marginGroupSchema>;
export type AnalyticsParams = { from?: string; to?: string; seller_id?: string | null; article?: string };
export type Page<T> = { items: T[]; next_cursor: string | null };

// --- WB connections (docs/WB-API.md) ---

export const wbConnectionStatusSchema = z
  .enum(['active', 'paused', 'token_invalid', 'token_no_finance', 'token_expired'])
  .describe(
    '`active`: syncing on schedule; `paused`: by the seller; `token_*`: WB refused the token, a new one is needed (PATCH token)',
  )
  .meta({ id: 'WbConnectionStatus' });
export const wbSyncStatusSchema = z
  .enum(['scheduled', 'syncing', 'limits_exhausted', 'stopped', 'error'])
  .describe(
    '`scheduled`: waiting for the next round (next_sync); `syncing`: a round is running (one WB call a minute, progress.next_call_at); `limits_exhausted`: a report is read but the limits do not cover its rows, resumes by itself after a top-up; `stopped`: paused or the token is refused; `error`: WB keeps failing (the sync retries with backoff), a round gave up, or WB did not give a report’s rows (see error, unread_reports)',
  )
  .meta({ id: 'WbSyncStatus' });
const wbSyncErrorSchema = failureSchema.extend({
  wb_status: z
    .number()
    .int()
    .nullable()
    .optional()
    .describe('`wb_unavailable`: WB’s HTTP status of the last failed call (null: no answer, e.g. a timeout)'),
  last_attempt_at: z.string().optional().describe('`wb_unavailable`: the last failed call to WB'),
  next_attempt_at: z.string().optional().describe('`wb_unavailable`: the next call (the sync keeps retrying)'),
});
const wbUnreadReportSchema = z.object({
  wb_report_id: z.number().int(),
  date_from: z.string(),
  date_to: z.string(),
  reason: z.string().describe('What WB answered: an empty first page, a redirect, rows of another report'),
  attempts: z.number().int().describe('Rounds it was asked for and not given'),
  since: z.string().describe('The first time WB did not give it'),
});
export const wbConnectionSchema = z
  .object({
    id: z.string(),
    seller_id: z.string().describe('The user’s seller the imported reports belong to'),
    wb_seller_id: z.string().nullable().describe('WB’s seller id (the token’s `oid`)'),
    status: wbConnectionStatusSchema,
    seller_name: z.string().nullable().describe('As WB’s reports name the seller'),
    token_hint: z.string().describe('The last 4 characters of the token; the token itself is never returned'),
    scopes: z.array(z.string()).describe('The token’s categories, as the token says'),
    expires_at: z.string().describe('The token’s expiry (ISO date-time)'),
    expiry_mail_sent_at: z
      .string()
      .nullable()
      .describe('When the mail that this token expires within 7 days was sent (once per token); null: not yet'),
    from: z.string().describe('Reports are imported from this day on (YYYY-MM-DD)'),
    created_at: z.string(),
    last_sync: z.string().nullable().describe('The end of the last finished round'),
    next_sync: z.string().nullable().describe('When the next round starts'),
    reports_imported: z.number().int(),
    sync: z.object({
      status: wbSyncStatusSchema,
      progress: z.object({
        reports_found: z.number().int().describe('This round: reports WB listed that are not imported yet'),
        reports_imported: z.number().int().describe('This round: reports imported so far'),
        rows_read: z.number().int().describe('This round: rows read from WB'),
        next_call_at: z.string().nullable().describe('The next call to WB (one a minute per WB account)'),
      }),
    }),
    error: wbSyncErrorSchema
      .nullable()
      .describe(
        'Why the sync stopped, is failing (`wb_unavailable`: WB’s status, the last and next attempts) or did not get a report (`wb_report_unread`)',
      ),
    unread_reports: z
      .array(wbUnreadReportSchema)
      .describe(
        'Reports WB listed but did not give the rows of: asked for again in every round (POST …/sync retries now); never skipped',
      ),
  })
  .meta({ id: 'WbConnection' });
export const wbConnectionReplySchema = z.object({ connection: wbConnectionSchema });
export const wbConnectionListSchema = z.object({ items: z.array(wbConnectionSchema) });
const wbTokenSchema = z
  .string()
  .trim()
  .min(1)
  .max(4096)
  .describe('The WB API token («Доступ к API», category «Финансы»)');
export const wbConnectBodySchema = z.object({
  token: wbTokenSchema,
  from: isoDateSchema.optional().describe('Import reports from this day on (default 2025-01-01, WB keeps no earlier)'),
});
export const wbConnectionPatchBodySchema = z
  .object({
    token: wbTokenSchema.optional().describe('A new token of the same WB seller'),
    paused: z.boolean().optional(),
    from: isoDateSchema.optional(),
  })
  .strict();
export const wbSyncBodySchema = z.object({
  from: isoDateSchema
    .optional()
    .describe('Read reports from this day on in this round (already imported ones are skipped)'),
});
export type WbConnection = z.infer<typeof wbConnectionSchema>;
export type Reconciliation = z.infer<typeof reconciliationSchema>;
