/**
 * One HTTP exchange with a WB API and its typed outcome (docs/WB-API.md «Outcomes»): shared by the
 * Finance client (finance-client.ts) and the promotion client (advert-client.ts). One request, no retry,
 * no sleep; timeouts until the headers and for the whole exchange.
 */
import type { FetchLike, WbOutcome } from './wb-types';

export type Check<T> = { success: true; data: T } | { success: false; path: string; message: string };

export interface HttpOptions {
  baseUrl: string;
  token: string;
  fetch?: FetchLike;
  connectTimeoutMs?: number;
  requestTimeoutMs?: number;
}

export function header(res: Response, name: string): number | null {
  const v = res.headers.get(name);
  if (v === null || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/**
 * A wait header in seconds: null when absent or negative; a value that is not a finite number (`1e999`,
 * `Infinity`, text) is Infinity, which the rate policy caps (rate.ts `retryAfterMaxMs`).
 */
export function retryHeader(res: Response, name: string): number | null {
  const v = res.headers.get(name);
  if (v === null || v.trim() === '') return null;
  const n = Number(v);
  if (Number.isNaN(n) || n === Infinity) return Infinity;
  return n >= 0 ? n : null;
}

/** The host a redirect points to, for the message (never the path: it may carry a query). */
function redirectHost(location: string | null): string {
  if (!location) return 'nowhere';
  try {
    return new URL(location, 'http://wb.invalid').host;
  } catch {
    return 'an invalid location';
  }
}

export async function errorText(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { detail?: unknown; title?: unknown; message?: unknown };
    const m = body.detail ?? body.message ?? body.title;
    if (typeof m === 'string' && m !== '') return m;
  } catch {
    // not JSON
  }
  return text.slice(0, 300) || res.statusText || `HTTP ${res.status}`;
}

/**
 * Sends one request and maps WB's answer: 204 or an empty body → `empty`, 429 → `rate_limited` with
 * X-Ratelimit-Retry, 401/403/404, other 4xx → `rejected`, 5xx, no answer, a 200 that `check` refuses.
 * `isEmpty` tells an `ok` value that means nothing (an empty list).
 */
export function wbRequest<T>(
  opts: HttpOptions,
  method: 'GET' | 'POST',
  pathAndQuery: string,
  body: unknown,
  check: (json: unknown) => Check<T>,
  isEmpty: (value: T) => boolean,
): Promise<WbOutcome<T>> {
  return wbExchange(opts, method, pathAndQuery, body, readWhole(check, isEmpty));
}

/** The body as text, refused past `max` bytes without reading further. */
async function boundedText(res: Response, max: number): Promise<string | null> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A 200's body as one JSON document, handed to `read` (an empty body is `empty`, broken JSON or a body
 * over `maxBytes` when given `invalid_response`).
 */
export const readJson =
  <T>(read: (json: unknown) => WbOutcome<T>, maxBytes?: number) =>
  async (res: Response): Promise<WbOutcome<T>> => {
    const text = maxBytes === undefined ? await res.text() : await boundedText(res, maxBytes);
    if (text === null) return { kind: 'invalid_response', message: `the answer is over ${maxBytes} bytes` };
    if (text.trim() === '') return { kind: 'empty' };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { kind: 'invalid_response', message: 'the answer is not JSON' };
    }
    return read(json);
  };

/** A 200's body as one JSON document, checked whole (small answers: lists, campaigns, statistics). */
export const readWhole = <T>(check: (json: unknown) => Check<T>, isEmpty: (value: T) => boolean) =>
  readJson<T>((json) => {
    const parsed = check(json);
    if (!parsed.success) return { kind: 'invalid_response', message: `${parsed.path}: ${parsed.message}` };
    return isEmpty(parsed.data) ? { kind: 'empty' } : { kind: 'ok', value: parsed.data };
  });

/** The exchange itself; `readBody` reads a 200's body (whole, or row by row as the Finance client's pages). */
export async function wbExchange<T>(
  opts: HttpOptions,
  method: 'GET' | 'POST',
  pathAndQuery: string,
  body: unknown,
  readBody: (res: Response) => Promise<WbOutcome<T>>,
): Promise<WbOutcome<T>> {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const doFetch: FetchLike = opts.fetch ?? ((url, init) => fetch(url, init));
  const connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
  const requestTimeoutMs = opts.requestTimeoutMs ?? 120_000;
  const controller = new AbortController();
  let timedOut = false;
  const abort = () => {
    timedOut = true;
    controller.abort();
  };
  const total = setTimeout(abort, requestTimeoutMs);
  const connect = setTimeout(abort, connectTimeoutMs);
  try {
    let res: Response;
    try {
      res = await doFetch(`${base}${pathAndQuery}`, {
        method,
        headers: {
          Authorization: opts.token,
          Accept: 'application/json',
          ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}),
        },
        ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
        // WB's hosts answer directly: a redirect is not followed (it could carry the token and the body to
        // any host, and its target's answer is not WB's), it is an error.
        redirect: 'manual',
        signal: controller.signal,
      });
    } finally {
      clearTimeout(connect);
    }
    if (res.status === 204) return { kind: 'empty' };
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => undefined);
      return {
        kind: 'server_error',
        status: res.status,
        message: `redirect not followed (to ${redirectHost(res.headers.get('location'))})`,
      };
    }
    if (res.status === 429) {
      await res.body?.cancel().catch(() => undefined);
      const retry = retryHeader(res, 'X-Ratelimit-Retry') ?? retryHeader(res, 'Retry-After');
      return {
        kind: 'rate_limited',
        retryAfterSeconds: retry ?? 60,
        limit: header(res, 'X-Ratelimit-Limit'),
        remaining: header(res, 'X-Ratelimit-Remaining'),
        resetSeconds: header(res, 'X-Ratelimit-Reset'),
      };
    }
    if (res.status === 401) return { kind: 'unauthorized', message: await errorText(res) };
    if (res.status === 403) return { kind: 'forbidden', message: await errorText(res) };
    if (res.status === 404) return { kind: 'not_found', message: await errorText(res) };
    if (res.status >= 500) return { kind: 'server_error', status: res.status, message: await errorText(res) };
    if (res.status !== 200) return { kind: 'rejected', status: res.status, message: await errorText(res) };
    return await readBody(res);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { kind: 'network_error', timeout: timedOut, message: timedOut ? 'timed out' : message };
  } finally {
    clearTimeout(total);
  }
}
