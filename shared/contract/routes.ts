/**
 * The route table: every HTTP route of the API with its method, path, who may call it, its inputs,
 * its answers and the error codes it may answer with. Each handler is bound to its entry once
 * (shared/http `route`/`routes`: input schemas, auth and the answer's check come from here), the web
 * client calls routes by their key, the function named in `fn` (functions.ts) serves the route
 * (serverless.yml is generated from both), and docs/openapi.json is generated from this table (openapi.ts).
 */
import { z } from 'zod';
import type { ErrorCode } from './errors';
import type { FunctionName } from './functions';
import * as s from './shapes';
import * as p from './pnl-shapes';
import * as c from './cashflow-shapes';
import * as t from './telegram-shapes';
import * as ue from './unit-economics-shapes';
import * as n from './notification-shapes';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Auth = 'none' | 'user' | 'admin';

export interface ResponseSpec {
  description: string;
  /** JSON body schema; absent for empty or binary bodies. */
  schema?: z.ZodType;
  /** For non-JSON bodies (files). */
  contentType?: string;
  /** Response headers of this answer, by name: their description. */
  headers?: Readonly<Record<string, string>>;
}

/** The summary export's header: the ids of the chosen reports that are stale, comma-separated ('' when none). */
export const STALE_REPORTS_HEADER = 'X-Stale-Reports';

export interface RouteSpec {
  /** The function serving the route (functions.ts declares it; serverless.yml is generated from both). */
  fn: FunctionName;
  method: Method;
  /** The path as API Gateway declares it, `{name}` for parameters. */
  path: string;
  auth: Auth;
  tag: 'auth' | 'reports' | 'catalog' | 'wb' | 'analytics' | 'pnl' | 'cashflow' | 'notifications' | 'app' | 'docs';
  summary: string;
  description?: string;
  /** JSON body; for multipart routes, the text fields of the form. */
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  /** Accepts multipart/form-data with a `file` field (besides, or instead of, the JSON body). */
  multipart?: boolean;
  /** The body is optional (an empty body is read as `{}`). */
  bodyOptional?: boolean;
  responses: Readonly<Record<number, ResponseSpec>>;
  /** Error codes of this route besides the ones every route of its kind may answer (see implicitErrors). */
  errors: readonly ErrorCode[];
}

const route = <const R extends RouteSpec>(r: R): R => r;

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const XLS = 'application/vnd.ms-excel';

/** What the reader refuses a file with (shared/engine/errors.ts), besides 413 and 415. */
const READER_ERRORS = [
  'zip_bomb',
  'too_many_entries',
  'too_many_rows',
  'cell_too_long',
  'no_report_in_zip',
  'missing_headers',
  'empty_report',
  'value_out_of_range',
  'corrupt_file',
  'value_out_of_range',
] as const satisfies readonly ErrorCode[];

const FILE_INPUT_ERRORS = [
  'invalid_multipart',
  'upload_not_found',
  'file_too_large',
  'unsupported_format',
  'not_a_spreadsheet',
  ...READER_ERRORS,
] as const satisfies readonly ErrorCode[];

export const ROUTES = {
  // --- auth ---
  register: route({
    fn: 'authRegister',
    method: 'POST',
    path: '/api/auth/register',
    auth: 'none',
    tag: 'auth',
    summary: 'Register an email; a confirmation link is mailed',
    description: 'Answers the same for a new and an existing address (no enumeration).',
    body: z.object({ email: s.emailSchema }),
    errors: ['too_many_attempts'],
    responses: { 202: { description: 'The mail is on its way', schema: s.statusReplySchema('confirmation_sent') } },
  }),
  confirm: route({
    fn: 'authConfirm',
    method: 'GET',
    path: '/api/auth/confirm',
    auth: 'none',
    tag: 'auth',
    summary: 'Confirm the address from the mailed link; the password is mailed',
    query: z.object({ token: z.string().max(4096).optional() }),
    responses: { 200: { description: 'Confirmed (or confirmed before)', schema: s.confirmResultSchema } },
    errors: ['invalid_token'],
  }),
  login: route({
    fn: 'authLogin',
    method: 'POST',
    path: '/api/auth/login',
    auth: 'none',
    tag: 'auth',
    summary: 'Sign in: a bearer token and the user',
    body: z.object({ email: s.emailSchema, password: z.string().min(1).max(200) }),
    responses: { 200: { description: 'Signed in', schema: s.loginResultSchema } },
    errors: ['invalid_credentials', 'too_many_attempts'],
  }),
  me: route({
    fn: 'authMe',
    method: 'GET',
    path: '/api/auth/me',
    auth: 'user',
    tag: 'auth',
    summary: 'The caller',
    responses: { 200: { description: 'The caller', schema: s.userReplySchema } },
    errors: [],
  }),
  updateMe: route({
    fn: 'authUpdateMe',
    method: 'PATCH',
    path: '/api/auth/me',
    auth: 'user',
    tag: 'auth',
    summary: 'Change the default tax profile (plain or by dates) or the allocation method',
    body: s.updateMeBodySchema,
    responses: { 200: { description: 'The user with the new settings', schema: s.userReplySchema } },
    errors: ['vat_rate_not_in_force', 'not_found'],
  }),
  forgotPassword: route({
    fn: 'authForgotPassword',
    method: 'POST',
    path: '/api/auth/forgot-password',
    auth: 'none',
    tag: 'auth',
    summary: 'Mail a password reset link',
    description: 'Answers the same whatever the address (no enumeration).',
    body: z.object({ email: s.emailSchema }),
    responses: { 202: { description: 'Accepted', schema: s.statusReplySchema('reset_sent') } },
    errors: ['too_many_attempts'],
  }),
  changePassword: route({
    fn: 'authChangePassword',
    method: 'POST',
    path: '/api/auth/change-password',
    auth: 'user',
    tag: 'auth',
    summary: 'Change the password; every earlier session ends',
    description: 'The answer carries a new token: the page keeps working with it.',
    body: s.changePasswordBodySchema,
    responses: { 200: { description: 'Signed in anew', schema: s.loginResultSchema } },
    errors: ['invalid_current_password', 'weak_password', 'password_changed'],
  }),
  limitHistory: route({
    fn: 'authLimitHistory',
    method: 'GET',
    path: '/api/auth/limit-history',
    auth: 'user',
    tag: 'auth',
    summary: 'The caller’s limit changes, newest first',
    query: s.cursorQuerySchema,
    responses: { 200: { description: 'A page', schema: s.limitHistoryPageSchema } },
    errors: ['invalid_cursor'],
  }),
  topUp: route({
    fn: 'authTopUp',
    method: 'POST',
    path: '/api/auth/top-up',
    auth: 'admin',
    tag: 'auth',
    summary: 'Add limits to a user (operators only)',
    description: 'A repeated idempotency_key returns the first result and changes nothing.',
    body: s.topUpBodySchema,
    responses: { 200: { description: 'The new balance', schema: s.topUpResultSchema } },
    errors: ['not_found', 'transaction_conflict', 'idempotency_key_mismatch', 'idempotency_key_reused'],
  }),

  // --- reports ---
  uploadUrl: route({
    fn: 'reportsUploadUrl',
    method: 'POST',
    path: '/api/reports/upload-url',
    auth: 'user',
    tag: 'reports',
    summary: 'A presigned PUT for a big report file',
    body: s.uploadUrlBodySchema,
    responses: { 200: { description: 'Where to PUT the file', schema: s.uploadUrlSchema } },
    errors: ['unsupported_format', 'file_too_large'],
  }),
  countRows: route({
    fn: 'reportsCountRows',
    method: 'POST',
    path: '/api/reports/count-rows',
    auth: 'user',
    tag: 'reports',
    summary: 'How many rows an upload would charge (charges nothing)',
    description: 'JSON {upload_id} of a presigned upload, or multipart/form-data with the file in `file`.',
    body: s.uploadRefBodySchema,
    multipart: true,
    responses: { 200: { description: 'Rows against the caller’s limits', schema: s.rowCountSchema } },
    errors: FILE_INPUT_ERRORS,
  }),
  upload: route({
    fn: 'reportsUpload',
    method: 'POST',
    path: '/api/reports/upload',
    auth: 'user',
    tag: 'reports',
    summary: 'Upload a WB report: build it and charge its rows',
    description:
      'JSON {upload_id} of a presigned upload, or multipart/form-data with the file in `file`. Big answers are gzip-encoded when the client accepts gzip.',
    body: s.uploadBodySchema,
    multipart: true,
    responses: {
      201: { description: 'The report with its items (ready within UPLOAD_WAIT_MS)', schema: s.reportReplySchema },
      202: {
        description:
          'The report is being built: `status: processing` with `progress`, no items yet (poll GET /api/reports/{id})',
        schema: s.reportReplySchema,
      },
    },
    errors: [
      ...FILE_INPUT_ERRORS,
      'insufficient_limits',
      'duplicate_report',
      'source_changed',
      'invalid_seller_number',
      'transaction_conflict',
      'idempotency_key_reused',
      'report_not_found',
      'processing_failed',
      'try_again',
    ],
  }),
  listReports: route({
    fn: 'reportsList',
    method: 'GET',
    path: '/api/reports',
    auth: 'user',
    tag: 'reports',
    summary: 'The caller’s reports, newest first',
    query: s.reportListQuerySchema,
    responses: { 200: { description: 'A page of summaries', schema: s.reportPageSchema } },
    errors: ['invalid_cursor'],
  }),
  getReport: route({
    fn: 'reportsGet',
    method: 'GET',
    path: '/api/reports/{id}',
    auth: 'user',
    tag: 'reports',
    summary: 'One report with its items',
    params: s.idPath,
    query: s.reportItemsQuerySchema,
    responses: {
      200: {
        description: 'The report; with `?items=columns` its items come as `item_columns` instead of `items`',
        schema: s.reportOrColumnsReplySchema,
      },
    },
    errors: ['report_not_found'],
  }),
  updateReport: route({
    fn: 'reportsUpdate',
    method: 'PATCH',
    path: '/api/reports/{id}',
    auth: 'user',
    tag: 'reports',
    summary: 'Rename a report or link it to a seller (seller_id null unlinks)',
    params: s.idPath,
    body: s.reportPatchBodySchema,
    responses: { 200: { description: 'The summary (without items)', schema: s.reportSummaryReplySchema } },
    errors: ['report_not_found', 'seller_not_found'],
  }),
  deleteReport: route({
    fn: 'reportsDelete',
    method: 'DELETE',
    path: '/api/reports/{id}',
    auth: 'user',
    tag: 'reports',
    summary: 'Delete a report, its items and its source file (a copy of a week the user has is refunded)',
    params: s.idPath,
    responses: { 204: { description: 'Deleted' } },
    errors: ['report_not_found', 'report_processing'],
  }),
  manualValue: route({
    fn: 'reportsManualValue',
    method: 'PUT',
    path: '/api/reports/items/{item_id}/manual-value',
    auth: 'user',
    tag: 'reports',
    summary: 'Correct one value of an item by hand (null removes the correction)',
    params: z.object({ item_id: s.pathId }),
    body: s.manualValueBodySchema,
    responses: { 200: { description: 'The item and the report’s new totals', schema: s.manualValueResultSchema } },
    errors: [
      'item_not_found',
      'field_not_correctable',
      'invalid_manual_value',
      'value_out_of_range',
      'report_rebuilt',
      'report_busy',
    ],
  }),
  rebuildOne: route({
    fn: 'reportsRebuildOne',
    method: 'POST',
    path: '/api/reports/{id}/rebuild',
    auth: 'user',
    tag: 'reports',
    summary: 'Rebuild a report from its stored source (corrections re-applied by article)',
    params: s.idPath,
    responses: {
      200: {
        description: 'The rebuilt report (the worker finished within UPLOAD_WAIT_MS)',
        schema: s.rebuildResultSchema,
      },
      202: {
        description:
          'Accepted: the report in `processing` (task rebuild), dropped_manual_values empty; the outcome arrives as the report’s `last_rebuild`',
        schema: s.rebuildResultSchema,
      },
    },
    // The worker's outcome is answered when it ends within the wait (as for an upload).
    errors: [
      'report_not_found',
      'source_missing',
      'report_busy',
      'source_changed',
      'file_too_large',
      'not_a_spreadsheet',
      'try_again',
      ...READER_ERRORS,
    ],
  }),
  rebuildMany: route({
    fn: 'reportsRebuildMany',
    method: 'POST',
    path: '/api/reports/rebuild',
    auth: 'user',
    tag: 'reports',
    summary: 'Rebuild several reports (without ids: every report with a source)',
    body: s.rebuildManyBodySchema,
    bodyOptional: true,
    responses: {
      200: { description: 'What was rebuilt and what was skipped', schema: s.rebuildManyResultSchema },
      202: { description: 'Some rebuilds are still running (`processing`)', schema: s.rebuildManyResultSchema },
    },
    errors: ['try_again'],
  }),
  exportReport: route({
    fn: 'reportsExport',
    method: 'GET',
    path: '/api/reports/{id}/export',
    auth: 'user',
    tag: 'reports',
    summary: 'The report as an .xlsx file',
    params: s.idPath,
    responses: { 200: { description: 'The workbook (attachment)', contentType: XLSX } },
    errors: ['report_not_found'],
  }),
  source: route({
    fn: 'reportsSource',
    method: 'GET',
    path: '/api/reports/{id}/source',
    auth: 'user',
    tag: 'reports',
    summary: 'The stored source file as uploaded',
    params: s.idPath,
    responses: {
      200: { description: 'The file (attachment, original name)', contentType: 'application/octet-stream' },
      302: { description: 'A big file: Location is a presigned GET valid 5 minutes' },
    },
    errors: ['report_not_found', 'source_missing'],
  }),
  summaryExport: route({
    fn: 'reportsSummaryExport',
    method: 'POST',
    path: '/api/reports/summary-export',
    auth: 'user',
    tag: 'reports',
    summary: 'Several reports as the legacy .xls summary',
    body: s.summaryExportBodySchema,
    responses: {
      200: {
        description: 'The workbook (attachment)',
        contentType: XLS,
        headers: {
          [STALE_REPORTS_HEADER]:
            'The ids of the chosen reports that are stale (a rebuild would change them; their numbers went into the summary as they are), comma-separated; empty when none',
        },
      },
    },
    errors: ['report_not_found', 'overlapping_reports'],
  }),
  combine: route({
    fn: 'reportsCombine',
    method: 'POST',
    path: '/api/reports/combine',
    auth: 'user',
    tag: 'reports',
    summary: 'Combine reports into a new one (a job; usually done at once)',
    body: s.combineBodySchema,
    responses: { 202: { description: 'The job', schema: s.combineJobSchema } },
    errors: ['report_not_found', 'overlapping_reports', 'try_again'],
  }),
  recombine: route({
    fn: 'reportsCombine',
    method: 'POST',
    path: '/api/reports/{id}/recombine',
    auth: 'user',
    tag: 'reports',
    summary: 'Combine a combined report again from its sources (its corrections kept by article)',
    params: s.idPath,
    responses: { 202: { description: 'The job (report_id is this report’s)', schema: s.combineJobSchema } },
    errors: ['report_not_found', 'not_combined', 'source_missing', 'report_busy', 'try_again'],
  }),
  combineStatus: route({
    fn: 'reportsCombine',
    method: 'GET',
    path: '/api/reports/combine-status/{job_id}',
    auth: 'user',
    tag: 'reports',
    summary: 'A combine job',
    params: z.object({ job_id: s.pathId }),
    responses: { 200: { description: 'The job', schema: s.combineJobSchema } },
    errors: ['job_not_found'],
  }),

  // --- catalog and sellers ---
  listProducts: route({
    fn: 'productsList',
    method: 'GET',
    path: '/api/products',
    auth: 'user',
    tag: 'catalog',
    summary: 'The caller’s products (cost prices), by article',
    query: s.productListQuerySchema,
    responses: { 200: { description: 'A page', schema: s.productPageSchema } },
    errors: ['invalid_cursor'],
  }),
  putProduct: route({
    fn: 'productsPut',
    method: 'PUT',
    path: '/api/products/{article}',
    auth: 'user',
    tag: 'catalog',
    summary: 'Set a product’s cost price (roubles); created when missing',
    description: 'The article is percent-encoded in the path.',
    // The path holds the article percent-encoded: up to 12 characters for each of its 1,000 (a 4-byte
    // UTF-8 character); the use case bounds the decoded article itself.
    params: z.object({
      article: z
        .string()
        .min(1)
        .max(s.MAX_ARTICLE_LENGTH * 12),
    }),
    body: s.productPutBodySchema,
    responses: { 200: { description: 'The product', schema: s.productSchema } },
    errors: ['product_busy', 'value_out_of_range'],
  }),
  importProducts: route({
    fn: 'productsImport',
    method: 'POST',
    path: '/api/products/import',
    auth: 'user',
    tag: 'catalog',
    summary: 'Import cost prices from an .xlsx or .csv file (columns Артикул, Себестоимость)',
    description:
      'Good rows are applied even when others fail; the failed ones are listed. Articles the catalog does not know are listed in `unknown` and not created unless the form field create_missing=true.',
    multipart: true,
    body: s.importFormSchema,
    responses: { 200: { description: 'What was applied', schema: s.importResultSchema } },
    errors: [
      'file_required',
      'invalid_multipart',
      'file_too_large',
      'unsupported_format',
      'missing_columns',
      'too_many_rows',
      'corrupt_file',
      'empty_file',
      'import_too_large',
      'cell_too_long',
      'too_many_entries',
    ],
  }),
  listOwnCosts: route({
    fn: 'ownCosts',
    method: 'GET',
    path: '/api/own-costs',
    auth: 'user',
    tag: 'catalog',
    summary: 'The caller’s own per-unit costs (packaging, fulfilment, …): default and per-article lines',
    responses: { 200: { description: 'Every line', schema: s.ownCostListSchema } },
    errors: [],
  }),
  putOwnCost: route({
    fn: 'ownCosts',
    method: 'PUT',
    path: '/api/own-costs',
    auth: 'user',
    tag: 'catalog',
    summary: 'Set one dated amount of an own cost line (roubles per unit); the line is created when missing',
    body: s.ownCostPutBodySchema,
    responses: { 200: { description: 'The line', schema: s.ownCostLineSchema } },
    errors: ['own_costs_busy', 'value_out_of_range', 'too_many_own_costs'],
  }),
  deleteOwnCost: route({
    fn: 'ownCosts',
    method: 'DELETE',
    path: '/api/own-costs',
    auth: 'user',
    tag: 'catalog',
    summary: 'Delete an own cost line, or one dated amount of it',
    query: s.ownCostDeleteQuerySchema,
    responses: { 204: { description: 'Deleted' } },
    errors: ['own_cost_not_found', 'own_costs_busy'],
  }),
  importOwnCosts: route({
    fn: 'ownCostsImport',
    method: 'POST',
    path: '/api/own-costs/import',
    auth: 'user',
    tag: 'catalog',
    summary: 'Import own per-unit costs from an .xlsx or .csv file (columns Артикул, Статья, Сумма за шт, Действует с)',
    description:
      'Applied whole or not at all: a file with a bad row, or with articles the catalog does not know (unless allow_unknown=true), writes nothing and answers applied=false with the rows and articles to fix. An empty article cell is the default line for every article.',
    multipart: true,
    body: s.ownCostImportFormSchema,
    responses: { 200: { description: 'What was applied', schema: s.ownCostImportResultSchema } },
    errors: [
      'file_required',
      'invalid_multipart',
      'file_too_large',
      'unsupported_format',
      'own_cost_columns_missing',
      'too_many_rows',
      'too_many_own_costs',
      'own_costs_busy',
      'corrupt_file',
      'empty_file',
      'import_too_large',
      'cell_too_long',
      'too_many_entries',
    ],
  }),
  listSellers: route({
    fn: 'sellersList',
    method: 'GET',
    path: '/api/sellers',
    auth: 'user',
    tag: 'catalog',
    summary: 'The caller’s sellers (found in uploaded file names)',
    responses: { 200: { description: 'Every seller', schema: s.sellerListSchema } },
    errors: [],
  }),
  updateSeller: route({
    fn: 'sellersUpdate',
    method: 'PATCH',
    path: '/api/sellers/{id}',
    auth: 'user',
    tag: 'catalog',
    summary: 'Rename a seller or set its own tax profile (null: the user’s default applies)',
    params: s.idPath,
    body: s.sellerPatchBodySchema,
    responses: { 200: { description: 'The seller', schema: s.sellerSchema } },
    errors: ['seller_not_found', 'vat_rate_not_in_force'],
  }),

  // --- WB connections (docs/WB-API.md) ---
  wbConnect: route({
    fn: 'wbConnections',
    method: 'POST',
    path: '/api/wb/connections',
    auth: 'user',
    tag: 'wb',
    summary: 'Connect a WB account with an API token; reports then arrive by themselves',
    description:
      'The token is checked with one cheap call to WB (the report list of one day); it is stored sealed and never returned. The first sync starts at once.',
    body: s.wbConnectBodySchema,
    responses: { 201: { description: 'The connection', schema: s.wbConnectionReplySchema } },
    errors: [
      'too_many_attempts',
      'wb_token_invalid',
      'wb_token_no_finance',
      'wb_token_forbidden',
      'wb_token_expired',
      'wb_connection_exists',
      'wb_unavailable',
    ],
  }),
  wbConnections: route({
    fn: 'wbConnections',
    method: 'GET',
    path: '/api/wb/connections',
    auth: 'user',
    tag: 'wb',
    summary: 'The caller’s WB connections with their sync state',
    responses: { 200: { description: 'Every connection', schema: s.wbConnectionListSchema } },
    errors: [],
  }),
  wbConnection: route({
    fn: 'wbConnections',
    method: 'GET',
    path: '/api/wb/connections/{id}',
    auth: 'user',
    tag: 'wb',
    summary: 'One WB connection with its sync state and progress',
    params: s.idPath,
    responses: { 200: { description: 'The connection', schema: s.wbConnectionReplySchema } },
    errors: ['wb_connection_not_found'],
  }),
  wbUpdateConnection: route({
    fn: 'wbConnections',
    method: 'PATCH',
    path: '/api/wb/connections/{id}',
    auth: 'user',
    tag: 'wb',
    summary: 'Replace the token (checked as on connect), pause or resume, or change the first day imported',
    params: s.idPath,
    body: s.wbConnectionPatchBodySchema,
    responses: { 200: { description: 'The connection', schema: s.wbConnectionReplySchema } },
    errors: [
      'too_many_attempts',
      'wb_connection_not_found',
      'wb_token_invalid',
      'wb_token_no_finance',
      'wb_token_forbidden',
      'wb_token_other_account',
      'wb_token_expired',
      'wb_unavailable',
      'transaction_conflict',
    ],
  }),
  wbDisconnect: route({
    fn: 'wbConnections',
    method: 'DELETE',
    path: '/api/wb/connections/{id}',
    auth: 'user',
    tag: 'wb',
    summary: 'Disconnect: the sealed token and the sync state are deleted; imported reports stay',
    params: s.idPath,
    responses: { 204: { description: 'Disconnected' } },
    errors: ['wb_connection_not_found'],
  }),
  wbSync: route({
    fn: 'wbConnections',
    method: 'POST',
    path: '/api/wb/connections/{id}/sync',
    auth: 'user',
    tag: 'wb',
    summary: 'Start a sync round now (or report the running one)',
    description:
      'The round runs in the background, one WB call a minute per WB account; follow it with GET /api/wb/connections/{id}. A round already running is left as it is.',
    params: s.idPath,
    body: s.wbSyncBodySchema,
    bodyOptional: true,
    responses: { 202: { description: 'The connection with the round started', schema: s.wbConnectionReplySchema } },
    errors: ['wb_connection_not_found', 'wb_connection_blocked', 'transaction_conflict'],
  }),

  // --- Telegram (docs/NOTIFICATIONS.md «Telegram») ---
  telegramStatus: route({
    fn: 'telegram',
    method: 'GET',
    path: '/api/notifications/telegram',
    auth: 'user',
    tag: 'notifications',
    summary: 'The caller’s Telegram link: none, linked (chat, username, since) or broken (the chat blocked the bot)',
    responses: { 200: { description: 'The link and whether the service has a bot', schema: t.telegramStatusSchema } },
    errors: [],
  }),
  telegramLink: route({
    fn: 'telegram',
    method: 'POST',
    path: '/api/notifications/telegram/link',
    auth: 'user',
    tag: 'notifications',
    summary: 'A one-time code (15 minutes) and the deep link that sends it to the bot',
    description:
      'Opening `url` starts the bot with the code; the bot links that chat to the caller (POST /api/telegram/webhook). A code is used once.',
    responses: { 201: { description: 'The code', schema: t.telegramLinkCodeSchema } },
    errors: ['telegram_not_configured'],
  }),
  telegramUnlink: route({
    fn: 'telegram',
    method: 'DELETE',
    path: '/api/notifications/telegram',
    auth: 'user',
    tag: 'notifications',
    summary: 'Unlink the caller’s Telegram chat (the chat is told so, when it can be)',
    responses: { 204: { description: 'Unlinked (or nothing was linked)' } },
    errors: [],
  }),
  telegramWebhook: route({
    fn: 'telegramWebhook',
    method: 'POST',
    path: '/api/telegram/webhook',
    auth: 'none',
    tag: 'notifications',
    summary: 'Telegram’s updates to the bot (`/start <code>`, `/stop`); Telegram alone calls it',
    description:
      'Checked by the header `X-Telegram-Bot-Api-Secret-Token` (the secret given to setWebhook); a wrong or missing one answers 401 and changes nothing. Every other update answers 200, handled or ignored, so Telegram does not send it again.',
    body: t.telegramUpdateSchema,
    responses: { 200: { description: 'The bot’s answer, or {}', schema: t.telegramWebhookReplySchema } },
    errors: ['unauthorized'],
  }),

  // --- the page's settings ---
  appConfig: route({
    fn: 'appConfig',
    method: 'GET',
    path: '/api/config',
    auth: 'none',
    tag: 'app',
    summary: 'What the page shows from the operator’s settings',
    responses: { 200: { description: 'The settings', schema: s.appConfigSchema } },
    errors: [],
  }),

  // --- analytics ---
  analytics: route({
    fn: 'analyticsGet',
    method: 'GET',
    path: '/api/analytics',
    auth: 'user',
    tag: 'analytics',
    summary: 'Period analytics: weeks, totals, the previous range with changes, articles with ABC and margin groups',
    description:
      'Without `from`/`to`: the last weeks that have reports. Money in roubles, margin in %. Big answers are gzip-encoded when the client accepts gzip.',
    query: s.analyticsQuerySchema,
    responses: { 200: { description: 'The analytics of the range', schema: s.analyticsSchema } },
    errors: ['invalid_range', 'seller_not_found'],
  }),
  analyticsExport: route({
    fn: 'analyticsExport',
    method: 'GET',
    path: '/api/analytics/export',
    auth: 'user',
    tag: 'analytics',
    summary: 'The analytics as an .xlsx file (weeks, articles, margin groups)',
    query: s.analyticsExportQuerySchema,
    responses: { 200: { description: 'The workbook (attachment)', contentType: XLSX } },
    errors: ['invalid_range', 'seller_not_found'],
  }),

  unitEconomics: route({
    fn: 'analyticsGet',
    method: 'GET',
    path: '/api/articles/{article}/unit-economics',
    auth: 'user',
    tag: 'analytics',
    summary: 'An article’s unit economics over its last weeks: price, WB’s shares, costs and profit per unit sold',
    description:
      'The article is percent-encoded in the path. One week is one report, counted once (combined reports, copies and a report inside another are left out). Money in roubles per unit sold net of returns, rates in %.',
    params: ue.articlePath,
    query: ue.unitEconomicsQuerySchema,
    responses: { 200: { description: 'The per-unit lines and the weeks used', schema: ue.articleUnitEconomicsSchema } },
    errors: ['article_not_found', 'seller_not_found', 'cost_price_missing', 'invalid_unit_input'],
  }),
  whatIf: route({
    fn: 'analyticsGet',
    method: 'POST',
    path: '/api/articles/{article}/what-if',
    auth: 'user',
    tag: 'analytics',
    summary: 'The margin at a price, or the price (before and after WB’s discount) for a target margin',
    description:
      'Exactly one of `price` (before WB’s discount, roubles) and `margin` (%). Over the same weeks as GET unit-economics. A margin no price reaches answers nulls with `reason: "unreachable"`.',
    params: ue.articlePath,
    body: ue.whatIfBodySchema,
    responses: { 200: { description: 'The answer', schema: ue.whatIfSchema } },
    errors: ['article_not_found', 'seller_not_found', 'cost_price_missing', 'invalid_unit_input'],
  }),

  // --- P&L, tax thresholds and period costs (docs/METRICS.md, «P&L by month») ---
  pnl: route({
    fn: 'pnlGet',
    method: 'GET',
    path: '/api/pnl',
    auth: 'user',
    tag: 'pnl',
    summary: 'The P&L by month: revenue, WB’s costs, cost of goods, period costs, taxes, net profit and margin',
    description:
      'Each week counted once; a report straddling two months is split by its days. Each month lists its reports and the share taken. Money in roubles. `thresholds`: the VAT thresholds of the year of `to` for USN sellers.',
    query: p.pnlQuerySchema,
    responses: { 200: { description: 'The P&L of the months', schema: p.pnlSchema } },
    errors: ['invalid_range', 'seller_not_found'],
  }),
  pnlExport: route({
    fn: 'pnlExport',
    method: 'GET',
    path: '/api/pnl/export',
    auth: 'user',
    tag: 'pnl',
    summary: 'The P&L as an .xlsx for an accountant (months as columns, lines as rows, totals)',
    query: p.pnlQuerySchema,
    responses: { 200: { description: 'The workbook (attachment)', contentType: XLSX } },
    errors: ['invalid_range', 'seller_not_found'],
  }),
  taxThresholds: route({
    fn: 'pnlGet',
    method: 'GET',
    path: '/api/tax-thresholds',
    auth: 'user',
    tag: 'pnl',
    summary: 'Where each USN seller’s income of the year stands against the VAT thresholds',
    description:
      'The warning level from 80 % of the exemption threshold; once crossed, the day VAT applies from and the dated tax periods to add.',
    query: p.thresholdQuerySchema,
    responses: { 200: { description: 'One entry per USN seller', schema: p.thresholdListSchema } },
    errors: ['invalid_range', 'seller_not_found'],
  }),
  listPeriodCosts: route({
    fn: 'periodCosts',
    method: 'GET',
    path: '/api/period-costs',
    auth: 'user',
    tag: 'pnl',
    summary: 'The caller’s period costs (salaries, rent, services…)',
    query: p.periodCostListQuerySchema,
    responses: { 200: { description: 'Every cost, oldest first', schema: p.periodCostListSchema } },
    errors: [],
  }),
  createPeriodCost: route({
    fn: 'periodCosts',
    method: 'POST',
    path: '/api/period-costs',
    auth: 'user',
    tag: 'pnl',
    summary: 'Add a period cost: a monthly amount (from a month, optionally to one) or a one-off on a day',
    body: p.periodCostBodySchema,
    responses: { 201: { description: 'The cost', schema: p.periodCostSchema } },
    errors: ['invalid_period_cost', 'too_many_period_costs', 'seller_not_found'],
  }),
  putPeriodCost: route({
    fn: 'periodCosts',
    method: 'PUT',
    path: '/api/period-costs/{id}',
    auth: 'user',
    tag: 'pnl',
    summary: 'Replace a period cost',
    params: s.idPath,
    body: p.periodCostBodySchema,
    responses: { 200: { description: 'The cost', schema: p.periodCostSchema } },
    errors: ['invalid_period_cost', 'period_cost_not_found', 'seller_not_found'],
  }),
  deletePeriodCost: route({
    fn: 'periodCosts',
    method: 'DELETE',
    path: '/api/period-costs/{id}',
    auth: 'user',
    tag: 'pnl',
    summary: 'Delete a period cost',
    params: s.idPath,
    responses: { 204: { description: 'Deleted' } },
    errors: ['period_cost_not_found'],
  }),
  importPeriodCosts: route({
    fn: 'periodCosts',
    method: 'POST',
    path: '/api/period-costs/import',
    auth: 'user',
    tag: 'pnl',
    summary: 'Import period costs from an .xlsx or .csv (Название, Категория, Сумма, Месяц / По месяц or Дата, Тип)',
    description: 'Good rows are added even when others fail; the failed ones are listed with their row numbers.',
    multipart: true,
    body: p.periodCostImportFormSchema,
    responses: { 200: { description: 'What was added', schema: p.periodCostImportResultSchema } },
    errors: [
      'file_required',
      'invalid_multipart',
      'file_too_large',
      'unsupported_format',
      'period_cost_columns_missing',
      'too_many_period_costs',
      'corrupt_file',
      'empty_file',
      'seller_not_found',
    ],
  }),

  // --- purchases of goods and the cash flow (docs/METRICS.md, «Cash flow») ---
  cashFlow: route({
    fn: 'cashFlowGet',
    method: 'GET',
    path: '/api/cash-flow',
    auth: 'user',
    tag: 'cashflow',
    summary: 'Money in and out by month, the payout calendar, WB’s balance, the next 8 weeks and the USN due dates',
    description:
      'Money in: each counted report’s payout (WB’s bankPaymentSum where synced) on its expected payout day. Money out: the P&L’s own per-unit costs and period costs of the month, purchases by their day, USN by its legal due dates. Money in roubles.',
    query: c.cashFlowQuerySchema,
    responses: { 200: { description: 'The cash flow of the months', schema: c.cashFlowSchema } },
    errors: ['invalid_range', 'seller_not_found'],
  }),
  cashFlowExport: route({
    fn: 'cashFlowExport',
    method: 'GET',
    path: '/api/cash-flow/export',
    auth: 'user',
    tag: 'cashflow',
    summary: 'The cash flow as an .xlsx (months as columns, lines as rows; payouts; forecast and USN due dates)',
    query: c.cashFlowQuerySchema,
    responses: { 200: { description: 'The workbook (attachment)', contentType: XLSX } },
    errors: ['invalid_range', 'seller_not_found'],
  }),
  listPurchases: route({
    fn: 'purchases',
    method: 'GET',
    path: '/api/purchases',
    auth: 'user',
    tag: 'cashflow',
    summary: 'The caller’s purchases of goods, by date',
    query: c.purchaseListQuerySchema,
    responses: { 200: { description: 'Every purchase, oldest date first', schema: c.purchaseListSchema } },
    errors: [],
  }),
  createPurchase: route({
    fn: 'purchases',
    method: 'POST',
    path: '/api/purchases',
    auth: 'user',
    tag: 'cashflow',
    summary: 'Add a purchase of goods: date, amount, optionally the article and quantity, a comment',
    body: c.purchaseBodySchema,
    responses: { 201: { description: 'The purchase', schema: c.purchaseSchema } },
    errors: ['invalid_purchase', 'too_many_purchases', 'seller_not_found'],
  }),
  putPurchase: route({
    fn: 'purchases',
    method: 'PUT',
    path: '/api/purchases/{id}',
    auth: 'user',
    tag: 'cashflow',
    summary: 'Replace a purchase',
    params: s.idPath,
    body: c.purchaseBodySchema,
    responses: { 200: { description: 'The purchase', schema: c.purchaseSchema } },
    errors: ['invalid_purchase', 'purchase_not_found', 'seller_not_found'],
  }),
  deletePurchase: route({
    fn: 'purchases',
    method: 'DELETE',
    path: '/api/purchases/{id}',
    auth: 'user',
    tag: 'cashflow',
    summary: 'Delete a purchase',
    params: s.idPath,
    responses: { 204: { description: 'Deleted' } },
    errors: ['purchase_not_found'],
  }),
  importPurchases: route({
    fn: 'purchases',
    method: 'POST',
    path: '/api/purchases/import',
    auth: 'user',
    tag: 'cashflow',
    summary: 'Import purchases from an .xlsx or .csv (Дата, Сумма, Артикул, Количество, Комментарий)',
    description: 'Good rows are added even when others fail; the failed ones are listed with their row numbers.',
    multipart: true,
    body: c.purchaseImportFormSchema,
    responses: { 200: { description: 'What was added', schema: c.purchaseImportResultSchema } },
    errors: [
      'file_required',
      'invalid_multipart',
      'file_too_large',
      'unsupported_format',
      'purchase_columns_missing',
      'too_many_purchases',
      'corrupt_file',
      'empty_file',
      'seller_not_found',
    ],
  }),

  // --- notifications (docs/NOTIFICATIONS.md) ---
  getNotificationSettings: route({
    fn: 'notifications',
    method: 'GET',
    path: '/api/notifications/settings',
    auth: 'user',
    tag: 'notifications',
    summary: 'The caller’s notification settings: channels, events per channel, quiet hours, profit-drop threshold',
    responses: { 200: { description: 'The settings (defaults until saved)', schema: n.notificationSettingsSchema } },
    errors: [],
  }),
  putNotificationSettings: route({
    fn: 'notifications',
    method: 'PUT',
    path: '/api/notifications/settings',
    auth: 'user',
    tag: 'notifications',
    summary: 'Change the notification settings (events left out keep what they had)',
    body: n.notificationSettingsBodySchema,
    responses: { 200: { description: 'The settings as saved', schema: n.notificationSettingsSchema } },
    errors: ['invalid_notification_settings'],
  }),
  notificationHistory: route({
    fn: 'notifications',
    method: 'GET',
    path: '/api/notifications',
    auth: 'user',
    tag: 'notifications',
    summary: 'What was sent, is waiting, held for quiet hours or failed, newest first (20 a page)',
    query: n.notificationHistoryQuerySchema,
    responses: { 200: { description: 'A page of deliveries', schema: n.notificationHistorySchema } },
    errors: ['invalid_cursor'],
  }),
  unsubscribeConfirm: route({
    fn: 'notificationsUnsubscribe',
    method: 'GET',
    path: '/api/notifications/unsubscribe',
    auth: 'none',
    tag: 'notifications',
    summary: 'The digest’s unsubscribe link: a page asking to confirm (no sign-in)',
    query: n.unsubscribeQuerySchema,
    responses: {
      200: { description: 'A page with the «Отписаться» button', contentType: 'text/html' },
      400: { description: 'A page saying the link is not valid', contentType: 'text/html' },
    },
    errors: [],
  }),
  unsubscribe: route({
    fn: 'notificationsUnsubscribe',
    method: 'POST',
    path: '/api/notifications/unsubscribe',
    auth: 'none',
    tag: 'notifications',
    summary: 'Unsubscribe from the digest in one click (RFC 8058 List-Unsubscribe-Post; no sign-in)',
    description: 'The body (`List-Unsubscribe=One-Click` from a mail service, or a form) is not read.',
    query: n.unsubscribeQuerySchema,
    responses: {
      200: { description: 'A page saying it is done', contentType: 'text/html' },
      400: { description: 'A page saying the link is not valid', contentType: 'text/html' },
    },
    errors: [],
  }),

  // --- docs ---
  openapi: route({
    fn: 'apiOpenapi',
    method: 'GET',
    path: '/api/openapi.json',
    auth: 'none',
    tag: 'docs',
    summary: 'This document (OpenAPI 3.1)',
    responses: { 200: { description: 'The OpenAPI document', contentType: 'application/json' } },
    errors: [],
  }),
} as const;

export type Routes = typeof ROUTES;
export type RouteKey = keyof Routes;

/** The error codes any route of this kind may answer, besides its own list. */
export function implicitErrors(r: RouteSpec): ErrorCode[] {
  const out: ErrorCode[] = [];
  if (r.body || r.query || r.params || r.multipart) out.push('validation_error');
  if (r.body) out.push('invalid_json');
  if (r.auth !== 'none') out.push('unauthorized');
  if (r.auth === 'admin') out.push('forbidden');
  // Lambda's 6 MB payload limit, checked by the HTTP stack on every route (shared/http/payload-limit.ts).
  if (r.body || r.multipart) out.push('request_too_large');
  out.push('response_too_large');
  // DynamoDB still throttling after the client's retries (shared/errors.ts storeBusy); API Gateway's
  // own throttling is a 429 too, with its own body.
  if (r.fn !== 'apiOpenapi') out.push('rate_limited');
  // A store (S3, DynamoDB, SES) that timed out or answered 5xx after the clients' retries (shared/errors.ts
  // storeUnavailable), or a request that starts work out of time (shared/reports/deadline.ts).
  if (r.fn !== 'apiOpenapi') out.push('try_again');
  out.push('internal_error');
  return out;
}

/** Every error code a route may answer with. */
export function errorsOf(r: RouteSpec): ErrorCode[] {
  return [...new Set<ErrorCode>([...r.errors, ...implicitErrors(r)])];
}
