// The only way the page talks to the backend: the routes of the contract (shared/contract/routes.ts,
// docs/openapi.json). Answers are typed by the contract's schemas and, in development and tests,
// checked against them, so a drift between server and page shows at once.
import type { z } from 'zod';
import { ApiError, apiErrorFrom, networkError, type ApiErrorBody } from './errors';
import {
  ROUTES,
  STALE_REPORTS_HEADER,
  type AllocationMethod,
  type AnalyticsParams,
  type Item,
  type ItemColumns,
  type Report,
  type RouteKey,
  type Routes,
  type TaxPeriod,
  type TaxProfile,
  type UploadUrl,
} from './contract';
import { endSessionAndReload, getToken } from './session';

/**
 * Where the API lives. Relative `/api` by default (the dev server proxies it; a same-origin deployment
 * serves it); a CloudFront build sets VITE_API_BASE to the API's origin, with or without the `/api` suffix.
 */
export function resolveApiBase(configured: string | undefined): string {
  const base = (configured ?? '').trim().replace(/\/+$/, '');
  if (base === '') return '/api';
  return base.endsWith('/api') ? base : `${base}/api`;
}

/** Items as objects from their columns (ItemColumns). */
export function itemsFromColumns(c: ItemColumns): Item[] {
  const out: Item[] = new Array<Item>(c.count);
  const nf = c.fields.length;
  for (let r = 0; r < c.count; r++) {
    const effective: Record<string, number | null> = {};
    for (let f = 0; f < nf; f++) effective[c.fields[f]!] = c.effective[f]![r] ?? null;
    out[r] = {
      item_id: c.item_id[r]!,
      article: c.article[r]!,
      category: c.category[r]!,
      nm_id: c.nm_id[r]!,
      brand: c.brand[r]!,
      computed: effective,
      manual_values: {},
      effective,
      null_reasons: {},
    };
  }
  for (const [field, rows] of Object.entries(c.computed))
    for (const [r, v] of Object.entries(rows)) {
      const item = out[Number(r)]!;
      if (item.computed === item.effective) item.computed = { ...item.effective };
      item.computed[field] = v;
    }
  for (const [field, rows] of Object.entries(c.manual_values))
    for (const [r, v] of Object.entries(rows)) out[Number(r)]!.manual_values[field] = v;
  for (const [field, rows] of Object.entries(c.null_reasons) as Array<
    [keyof Item['null_reasons'], Record<string, NonNullable<Item['null_reasons']['margin']>>]
  >)
    for (const [r, why] of Object.entries(rows)) out[Number(r)]!.null_reasons[field] = why;
  return out;
}

export const API_BASE = resolveApiBase(import.meta.env.VITE_API_BASE as string | undefined);

interface RequestOptions {
  method?: string;
  body?: unknown;
  form?: FormData;
  query?: Record<string, string | undefined | null>;
  /** Send the stored token (every route except register, confirm, login, forgot-password). */
  auth?: boolean;
  signal?: AbortSignal;
}

function buildUrl(path: string, query?: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') params.set(key, value);
  }
  const qs = params.toString();
  return `${API_BASE}${path}${qs ? `?${qs}` : ''}`;
}

async function send(path: string, options: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = options.auth === false ? null : getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let body: BodyInit | undefined;
  if (options.form) {
    body = options.form;
  } else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(buildUrl(path, options.query), {
        method: options.method ?? 'GET',
        headers,
        body,
        signal: options.signal,
      });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') throw error;
      throw networkError();
    }
    if (response.ok) return response;
    // A token the API no longer accepts ends the session; a failed sign-in carries no token and
    // falls through to its own message below.
    if (token && (response.status === 401 || response.status === 403)) {
      endSessionAndReload();
    }
    const error = await readErrorBody(response);
    // 503 try_again: a store did not answer in time and a repeat is safe (it charges nothing twice):
    // sent again after the wait the API asks for, a bounded number of times.
    if (response.status === 503 && error?.code === 'try_again' && attempt <= TRY_AGAIN_RETRIES) {
      await wait(tryAgainDelayMs(attempt, response.headers.get('Retry-After')), options.signal);
      continue;
    }
    throw apiErrorFrom(response.status, error);
  }
}

/** How many times a request answered 503 `try_again` is sent again before the page shows the error. */
export const TRY_AGAIN_RETRIES = 2;

/** The wait before repeat `n` (1-based): the answer's Retry-After (capped at 10 s), else 1 s, 2 s. */
export function tryAgainDelayMs(n: number, retryAfter: string | null): number {
  const seconds = retryAfter === null ? NaN : Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds, 10) * 1000;
  return 1000 * 2 ** (n - 1);
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new DOMException('Aborted', 'AbortError'));
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new DOMException('Aborted', 'AbortError'));
    });
  });
}

async function readErrorBody(response: Response): Promise<ApiErrorBody | undefined> {
  try {
    const json = (await response.json()) as { error?: ApiErrorBody };
    return json && typeof json === 'object' ? json.error : undefined;
  } catch {
    return undefined;
  }
}

const badResponse = (status: number) =>
  new ApiError(status, 'bad_response', 'Сервер ответил неожиданно. Попробуйте ещё раз.');

type Responses<K extends RouteKey> = Routes[K]['responses'];
type SchemaOf<R> = R extends { schema: infer Z extends z.ZodType } ? Z : never;
/** The JSON a route answers with on success (z.infer of its contract schema). */
export type Answer<K extends RouteKey> = z.infer<SchemaOf<Responses<K>[keyof Responses<K>]>>;
/** What a route takes as its JSON body (z.input of its contract schema). */
export type BodyOf<K extends RouteKey> = Routes[K] extends { body: infer B extends z.ZodType } ? z.input<B> : never;
type ParamsOf<K extends RouteKey> = Routes[K] extends { params: infer P extends z.ZodType } ? z.input<P> : never;
/** A route's query (z.input of its contract schema); a value null or '' is left out of the URL. */
export type QueryOf<K extends RouteKey> = Routes[K] extends { query: infer Q extends z.ZodType }
  ? { [P in keyof z.input<Q>]?: z.input<Q>[P] | null }
  : never;

/** Development and tests check every answer against the contract; a production build trusts it. */
const CHECK_ANSWERS = import.meta.env.DEV || import.meta.env.MODE === 'test';

/** The path of a contract route below API_BASE, its `{name}` parameters percent-encoded. */
export function routePath<K extends RouteKey>(key: K, params?: ParamsOf<K>): string {
  const values = (params ?? {}) as Record<string, string>;
  return ROUTES[key].path
    .replace(/^\/api(?=\/|$)/, '')
    .replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));
}

/** The answer of `key` checked against its contract schema (in development and tests). */
export function checkAnswer<K extends RouteKey>(key: K, status: number, body: unknown): Answer<K> {
  if (!CHECK_ANSWERS) return body as Answer<K>;
  const spec = (ROUTES[key].responses as Record<number, { schema?: z.ZodType }>)[status];
  if (!spec?.schema) return body as Answer<K>;
  const result = spec.schema.safeParse(body);
  if (result.success) return result.data as Answer<K>;
  console.error(`Answer of ${key} differs from the contract`, result.error.issues);
  throw badResponse(status);
}

interface CallOptions<K extends RouteKey> {
  params?: ParamsOf<K>;
  body?: BodyOf<K>;
  form?: FormData;
  query?: QueryOf<K>;
  signal?: AbortSignal;
}

/** Calls a contract route: method, path and auth from the route table; the answer typed and checked. */
export async function call<K extends RouteKey>(key: K, options: CallOptions<K> = {}): Promise<Answer<K>> {
  const route = ROUTES[key];
  const response = await send(routePath(key, options.params), {
    method: route.method,
    body: options.body,
    form: options.form,
    query: options.query as RequestOptions['query'],
    signal: options.signal,
    auth: route.auth !== 'none',
  });
  if (response.status === 204) return undefined as Answer<K>;
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw badResponse(response.status);
  }
  return checkAnswer(key, response.status, body);
}

/** RFC 6266 file name: filename*=UTF-8''… first (Cyrillic names), then filename="…". */
export function fileNameFromDisposition(header: string | null): string | null {
  if (!header) return null;
  const star = /filename\*\s*=\s*([^']*)''([^;]+)/i.exec(header);
  if (star) {
    try {
      return decodeURIComponent(star[2]!.trim().replace(/^"|"$/g, ''));
    } catch {
      // fall through to the plain form
    }
  }
  const plain = /filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;]+)/i.exec(header);
  const name = plain ? (plain[1] ?? plain[2])?.trim() : null;
  return name || null;
}

function fileNameFromUrl(url: string): string | null {
  try {
    const last = new URL(url, window.location.href).pathname.split('/').pop();
    return last ? decodeURIComponent(last) : null;
  } catch {
    return null;
  }
}

export interface DownloadedFile {
  blob: Blob;
  name: string;
  /** The answer's headers (e.g. the summary export's X-Stale-Reports). */
  headers?: Headers;
}

/** Downloads a file route of the contract: method, path and auth from the route table, inputs typed by it. */
export async function download<K extends RouteKey>(
  key: K,
  fallbackName: string,
  options: Omit<CallOptions<K>, 'form'> = {},
): Promise<DownloadedFile> {
  const route = ROUTES[key];
  const response = await send(routePath(key, options.params), {
    method: route.method,
    body: options.body,
    query: options.query as RequestOptions['query'],
    signal: options.signal,
    auth: route.auth !== 'none',
  });
  let blob: Blob;
  try {
    blob = await response.blob();
  } catch {
    throw networkError();
  }
  const redirected = response.redirected ? fileNameFromUrl(response.url) : null;
  const name = fileNameFromDisposition(response.headers.get('Content-Disposition')) ?? redirected ?? fallbackName;
  return { blob, name, headers: response.headers };
}

/** The ids of an X-Stale-Reports header ('' or absent: none). */
export function staleIdsOf(header: string | null): string[] {
  return (header ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
}

/** Hand a downloaded file to the browser as a normal download. */
export function saveFile({ blob, name }: DownloadedFile): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.rel = 'noopener';
  document.body.appendChild(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// Headers a browser refuses to let a page set on XMLHttpRequest; the browser sends them itself.
const FORBIDDEN_XHR_HEADERS = new Set(['content-length', 'host', 'connection', 'accept-encoding', 'expect']);

/**
 * PUT the file to the presigned URL with real progress (fetch has no upload progress), with the
 * headers the API signed. Resolves when storage accepts the file.
 */
export function putFileWithProgress(
  target: UploadUrl,
  file: Blob,
  onProgress: (loaded: number, total: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(target.method || 'PUT', target.url);
    for (const [name, value] of Object.entries(target.headers ?? {})) {
      if (!FORBIDDEN_XHR_HEADERS.has(name.toLowerCase())) xhr.setRequestHeader(name, value);
    }
    xhr.upload.onprogress = (event) => {
      onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(file.size, file.size);
        resolve();
      } else {
        reject(new ApiError(xhr.status, 'upload_failed', 'Не удалось передать файл в хранилище. Попробуйте ещё раз.'));
      }
    };
    // No answer from storage: offline, or the bucket refused the browser (CORS).
    xhr.onerror = () =>
      reject(
        new ApiError(
          0,
          'upload_failed',
          'Не удалось передать файл в хранилище. Проверьте подключение и попробуйте ещё раз.',
        ),
      );
    xhr.onabort = () => reject(new DOMException('Загрузка отменена', 'AbortError'));
    if (signal) {
      if (signal.aborted) {
        xhr.abort();
        return;
      }
      signal.addEventListener('abort', () => xhr.abort(), { once: true });
    }
    xhr.send(file);
  });
}

export const api = {
  // Auth
  register: (email: string) => call('register', { body: { email } }),
  confirm: (token: string) => call('confirm', { query: { token } }),
  login: (email: string, password: string) => call('login', { body: { email, password } }),
  forgotPassword: (email: string) => call('forgotPassword', { body: { email } }),
  me: () => call('me'),
  updateTax: (tax: TaxProfile) => call('updateMe', { body: { tax } as BodyOf<'updateMe'> }),
  updateMe: (patch: { tax_periods?: TaxPeriod[]; allocation?: AllocationMethod }) =>
    call('updateMe', { body: patch as BodyOf<'updateMe'> }),
  limitHistory: (cursor?: string | null) => call('limitHistory', { query: { cursor } }),
  changePassword: (currentPassword: string, newPassword: string) =>
    call('changePassword', { body: { current_password: currentPassword, new_password: newPassword } }),
  config: () => call('appConfig'),

  // Reports
  listReports: (params: { seller_id?: string | null; cursor?: string | null }) =>
    call('listReports', { query: { seller_id: params.seller_id, cursor: params.cursor } }),
  // Items travel as columns (~6× less JSON for a 5,000-article report) and become objects here.
  getReport: async (id: string): Promise<{ report: Report }> => {
    const r = await call('getReport', { params: { id }, query: { items: 'columns' } });
    if (!('item_columns' in r.report)) return { report: r.report };
    const { item_columns, ...rest } = r.report;
    return { report: { ...rest, items: itemsFromColumns(item_columns) } };
  },
  deleteReport: (id: string) => call('deleteReport', { params: { id } }).then(() => undefined),
  uploadUrl: (filename: string, size: number) => call('uploadUrl', { body: { filename, size } }),
  countRows: (uploadId: string) => call('countRows', { body: { upload_id: uploadId } }),
  upload: (uploadId: string, allowDuplicate = false) =>
    call('upload', {
      body: allowDuplicate ? { upload_id: uploadId, allow_duplicate: true } : { upload_id: uploadId },
    }),
  patchReport: (id: string, patch: { title?: string; seller_id?: string | null }) =>
    call('updateReport', { params: { id }, body: patch }),
  recombine: (id: string) => call('recombine', { params: { id } }),
  setManualValue: (itemId: string, field: string, value: number | null) =>
    call('manualValue', { params: { item_id: itemId }, body: { field, value } }),
  rebuild: (id: string) => call('rebuildOne', { params: { id } }),
  rebuildMany: (reportIds: string[]) => call('rebuildMany', { body: { report_ids: reportIds } }),
  combine: (reportIds: string[], title?: string) =>
    call('combine', { body: title ? { report_ids: reportIds, title } : { report_ids: reportIds } }),
  combineStatus: (jobId: string) => call('combineStatus', { params: { job_id: jobId } }),
  exportReport: (id: string) => download('exportReport', `report-${id}.xlsx`, { params: { id } }),
  downloadSource: (id: string) => download('source', `report-${id}-source`, { params: { id } }),
  /** The summary workbook, and the ids of the chosen reports the API says are stale (X-Stale-Reports). */
  summaryExport: async (reportIds: string[]) => {
    const file = await download('summaryExport', 'summary.xls', { body: { report_ids: reportIds } });
    return { file, staleIds: staleIdsOf(file.headers?.get(STALE_REPORTS_HEADER) ?? null) };
  },

  // Period analytics
  analytics: (p: AnalyticsParams) =>
    call('analytics', { query: { from: p.from, to: p.to, seller_id: p.seller_id, article: p.article } }),
  exportAnalytics: (p: AnalyticsParams) =>
    download('analyticsExport', `analytics-${p.from ?? ''}-${p.to ?? ''}.xlsx`, {
      query: { from: p.from, to: p.to, seller_id: p.seller_id },
    }),

  // An article's unit economics over its last weeks, and the what-if on its price
  unitEconomics: (article: string, weeks: number, sellerId?: string | null) =>
    call('unitEconomics', { params: { article }, query: { weeks: String(weeks), seller_id: sellerId || undefined } }),
  whatIf: (article: string, body: { price?: number; margin?: number; weeks: number }) =>
    call('whatIf', { params: { article }, body }),

  // P&L, tax thresholds and period costs
  pnl: (p: { from?: string; to?: string; seller_id?: string | null }) =>
    call('pnl', { query: { from: p.from, to: p.to, seller_id: p.seller_id || undefined } }),
  exportPnl: (p: { from: string; to: string; seller_id?: string | null }) =>
    download('pnlExport', `P&L ${p.from}–${p.to}.xlsx`, {
      query: { from: p.from, to: p.to, seller_id: p.seller_id || undefined },
    }),
  taxThresholds: (p: { seller_id?: string | null; year?: string } = {}) =>
    call('taxThresholds', { query: { seller_id: p.seller_id || undefined, year: p.year } }),
  listPeriodCosts: (sellerId?: string | null) =>
    call('listPeriodCosts', { query: { seller_id: sellerId || undefined } }),
  createPeriodCost: (body: BodyOf<'createPeriodCost'>) => call('createPeriodCost', { body }),
  deletePeriodCost: (id: string) => call('deletePeriodCost', { params: { id } }).then(() => undefined),
  importPeriodCosts: (file: File, sellerId?: string | null) => {
    const form = new FormData();
    if (sellerId) form.append('seller_id', sellerId);
    form.append('file', file, file.name);
    return call('importPeriodCosts', { form });
  },

  // Cash flow and purchases of goods
  cashFlow: (p: { from: string; to: string; seller_id?: string | null }) =>
    call('cashFlow', { query: { from: p.from, to: p.to, seller_id: p.seller_id || undefined } }),
  exportCashFlow: (p: { from: string; to: string; seller_id?: string | null }) =>
    download('cashFlowExport', `Деньги ${p.from}–${p.to}.xlsx`, {
      query: { from: p.from, to: p.to, seller_id: p.seller_id || undefined },
    }),
  listPurchases: () => call('listPurchases', {}),
  createPurchase: (body: BodyOf<'createPurchase'>) => call('createPurchase', { body }),
  deletePurchase: (id: string) => call('deletePurchase', { params: { id } }).then(() => undefined),
  importPurchases: (file: File, sellerId?: string | null) => {
    const form = new FormData();
    if (sellerId) form.append('seller_id', sellerId);
    form.append('file', file, file.name);
    return call('importPurchases', { form });
  },

  // Notifications (docs/NOTIFICATIONS.md)
  notificationSettings: () => call('getNotificationSettings'),
  putNotificationSettings: (body: BodyOf<'putNotificationSettings'>) => call('putNotificationSettings', { body }),
  notificationHistory: (cursor?: string | null) => call('notificationHistory', { query: cursor ? { cursor } : {} }),

  // Catalog and sellers
  listProducts: (search: string, cursor?: string | null, missing = false) =>
    call('listProducts', { query: { search, cursor, ...(missing ? { missing: '1' } : {}) } }),
  putProduct: (article: string, costPrice: number) =>
    call('putProduct', { params: { article }, body: { cost_price: costPrice } }),
  /** `createMissing`: add the articles the catalog does not know (else they come back as `unknown`). */
  importProducts: (file: File, opts: { createMissing?: boolean } = {}) => {
    const form = new FormData();
    if (opts.createMissing) form.append('create_missing', 'true');
    form.append('file', file, file.name);
    return call('importProducts', { form });
  },
  listOwnCosts: () => call('listOwnCosts'),
  /** One dated amount of a line (roubles per unit); article null: the default for every article. */
  putOwnCost: (line: { article: string | null; name: string; amount: number; valid_from?: string | null }) =>
    call('putOwnCost', { body: line }),
  /** A line, or with `validFrom` (a date, or null = from the beginning) only that amount. */
  deleteOwnCost: (line: { article: string | null; name: string }, validFrom?: string | null) =>
    call('deleteOwnCost', {
      query: {
        name: line.name,
        ...(line.article !== null ? { article: line.article } : {}),
        ...(validFrom !== undefined ? { valid_from: validFrom ?? 'beginning' } : {}),
      },
    }).then(() => undefined),
  /** `allowUnknown`: apply lines of articles the catalog does not know (else such a file is not applied). */
  importOwnCosts: (file: File, opts: { allowUnknown?: boolean } = {}) => {
    const form = new FormData();
    if (opts.allowUnknown) form.append('allow_unknown', 'true');
    form.append('file', file, file.name);
    return call('importOwnCosts', { form });
  },
  listSellers: () => call('listSellers'),
  patchSeller: (
    id: string,
    patch: {
      name?: string;
      tax?: TaxProfile | null;
      tax_periods?: TaxPeriod[] | null;
      allocation?: AllocationMethod | null;
    },
  ) => call('updateSeller', { params: { id }, body: patch as BodyOf<'updateSeller'> }),

  // WB connections (docs/WB-API.md)
  wbConnections: () => call('wbConnections'),
  wbConnection: (id: string) => call('wbConnection', { params: { id } }),
  wbConnect: (token: string, from?: string) => call('wbConnect', { body: from ? { token, from } : { token } }),
  wbUpdateConnection: (id: string, patch: BodyOf<'wbUpdateConnection'>) =>
    call('wbUpdateConnection', { params: { id }, body: patch }),
  wbSync: (id: string, from?: string) => call('wbSync', { params: { id }, body: from ? { from } : {} }),
  wbDisconnect: (id: string) => call('wbDisconnect', { params: { id } }).then(() => undefined),

  // Telegram (docs/NOTIFICATIONS.md «Telegram»)
  telegramStatus: () => call('telegramStatus'),
  telegramLink: () => call('telegramLink'),
  telegramUnlink: () => call('telegramUnlink').then(() => undefined),
};
