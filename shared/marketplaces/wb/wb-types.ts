/**
 * The types WB's HTTP exchange (http.ts) and its clients (finance-client.ts, sources/) share: the
 * injected `fetch`, and the typed outcome of one call (docs/WB-API.md «Outcomes»). No imports.
 */

export type WbOutcome<T> =
  | { kind: 'ok'; value: T }
  /** 204, or an empty array: nothing (more) to read. */
  | { kind: 'empty' }
  /** 401: the token is invalid, expired or withdrawn. The connection needs a new token. */
  | { kind: 'unauthorized'; message: string }
  /** 403: the token lacks the «Финансы» category (or is a Basic token where it is not allowed). */
  | { kind: 'forbidden'; message: string }
  /** 429: wait `retryAfterSeconds` (X-Ratelimit-Retry) before the next call to this seller account. */
  | {
      kind: 'rate_limited';
      retryAfterSeconds: number;
      limit: number | null;
      remaining: number | null;
      resetSeconds: number | null;
    }
  /** 404: no report with this id. */
  | { kind: 'not_found'; message: string }
  /** Other 4xx (400 bad body, 402…): a bug on our side or a WB change; not worth retrying as is. */
  | { kind: 'rejected'; status: number; message: string }
  /** 5xx: WB's trouble; retry later. A 3xx too: redirects are not followed (http.ts). */
  | { kind: 'server_error'; status: number; message: string }
  /** No answer: connection refused/reset, or a timeout (`timeout` says which). Retry later. */
  | { kind: 'network_error'; timeout: boolean; message: string }
  /** 200 with a body that is not what the spec says; `refused`: a row that cannot count (another report's, null money, a negative sale, past the bounds): the report is refused. */
  | { kind: 'invalid_response'; message: string; refused?: boolean };

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;
