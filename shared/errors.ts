/**
 * The one error family of the application (docs/ARCHITECTURE.md: one error model). Every layer throws an
 * AppError (or a pure-domain error that `toAppError` knows); shared/http turns it into
 * `{"error": {"code", "message", "details"}}` with its status, in exactly one middleware.
 */
import { statusOf, type CodeWithStatus, type ErrorCode } from './contract/errors';
import { ReportError } from './engine/errors';
import { isTransient } from './store/retry';

export type Details = Record<string, unknown>;

export class AppError extends Error {
  constructor(
    readonly status: number,
    /** Stable snake_case code of the catalogue (shared/contract/errors.ts) the web page keys its messages on. */
    readonly code: ErrorCode,
    message: string,
    readonly details: Details = {},
    /** Extra response headers (e.g. Retry-After of a 429). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/** A zod-like issue list, kept structural so this module does not depend on zod. */
export interface IssueLike {
  path: PropertyKey[];
  message: string;
  code?: string;
}

/** An error with the usual status of its code in the catalogue. */
export const appError = (code: ErrorCode, message: string, details: Details = {}) =>
  new AppError(statusOf(code), code, message, details);

export const badRequest = (code: CodeWithStatus<400>, message: string, details: Details = {}) =>
  new AppError(400, code, message, details);

/** 400 `validation_error` carrying the zod issues (path as dotted string, message, code). */
export const validation = (issues: readonly IssueLike[], where = 'request') =>
  new AppError(400, 'validation_error', `Invalid ${where}`, {
    issues: issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message, code: i.code })),
  });

export const unauthorized = (message = 'Not authenticated', code: CodeWithStatus<401> = 'unauthorized') =>
  new AppError(401, code, message);
export const forbidden = (message = 'Not allowed', code: CodeWithStatus<403> = 'forbidden') =>
  new AppError(403, code, message);
export const notFound = (message = 'Not found', code: CodeWithStatus<404> = 'not_found') =>
  new AppError(404, code, message);
export const paymentRequired = (rows: number, limits: number) =>
  new AppError(402, 'insufficient_limits', `The report has ${rows} rows but only ${limits} are left`, { rows, limits });
export const conflict = (code: CodeWithStatus<409>, message: string, details: Details = {}) =>
  new AppError(409, code, message, details);
export const payloadTooLarge = (
  message = 'Payload too large',
  details: Details = {},
  code: CodeWithStatus<413> = 'file_too_large',
) => new AppError(413, code, message, details);
export const unsupportedMediaType = (
  message = 'Unsupported media type',
  details: Details = {},
  code: CodeWithStatus<415> = 'unsupported_format',
) => new AppError(415, code, message, details);
export const unprocessable = (code: CodeWithStatus<422>, message: string, details: Details = {}) =>
  new AppError(422, code, message, details);
/**
 * 429 `too_many_attempts` with `Retry-After` (seconds): sign-in locked after repeated failures, or too
 * many registrations / reset requests from one source IP. The same answer whether an account exists.
 */
export const tooManyAttempts = (retryAfterSeconds: number) =>
  new AppError(
    429,
    'too_many_attempts',
    `Too many attempts; try again in ${retryAfterSeconds} s`,
    { retry_after_seconds: retryAfterSeconds },
    { 'Retry-After': String(retryAfterSeconds) },
  );
export const internal = () => new AppError(500, 'internal_error', 'internal error');

/**
 * Pure-domain errors of shared/engine that are the caller's fault and map to 422 with their own code
 * (docs/API.md: manual value on a non-correctable field → 422 `field_not_correctable`). Matched by name so
 * this module does not import the report builder.
 */
const DOMAIN_422 = new Set(['FieldNotCorrectableError', 'InvalidManualValueError', 'ManualValueOutOfRangeError']);
const DOMAIN_422_CODES = [
  'field_not_correctable',
  'invalid_manual_value',
  'value_out_of_range',
] as const satisfies readonly CodeWithStatus<422>[];

/**
 * THE mapper: any thrown value → an AppError. Unknown errors become a bare 500 `internal_error`
 * (the caller logs the original); nothing of their text reaches the client.
 */
export function toAppError(e: unknown): AppError {
  if (e instanceof AppError) return e;
  if (e instanceof ReportError) {
    return new AppError(statusOf(e.code), e.code, e.message, e.details);
  }
  if (e instanceof Error && DOMAIN_422.has(e.name)) {
    const own = (e as { code?: unknown }).code;
    const code: CodeWithStatus<422> =
      typeof own === 'string' && (DOMAIN_422_CODES as readonly string[]).includes(own)
        ? (own as CodeWithStatus<422>)
        : 'unprocessable';
    const details: Details = {};
    for (const k of ['field', 'value', 'min', 'max'] as const) {
      const v = (e as unknown as Record<string, unknown>)[k];
      if (v !== undefined) details[k] = v;
    }
    return new AppError(422, code, e.message, details);
  }
  if (isStoreBusy(e)) return storeBusy();
  if (isStoreUnavailable(e)) return storeUnavailable();
  return internal();
}

/** DynamoDB's throttling, by error name: what the SDK's own retries gave up on. */
const STORE_THROTTLED = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
]);

/**
 * The store refused for load after every retry (shared/store/client.ts: the SDK's 5 attempts, and 6
 * for a transaction cancelled by throttling or a conflict). Nothing was written by the failed call;
 * the request may be sent again shortly.
 */
export function isStoreBusy(e: unknown): boolean {
  return e instanceof Error && (STORE_THROTTLED.has(e.name) || isTransient(e));
}

/** Seconds a caller is told to wait when the store was busy. */
export const STORE_BUSY_RETRY_SECONDS = 2;

/** 429 `rate_limited` with `Retry-After`: the store stayed throttled through the retries. */
export const storeBusy = () =>
  new AppError(
    429,
    'rate_limited',
    'The store is busy; try again shortly',
    { retry_after_seconds: STORE_BUSY_RETRY_SECONDS },
    { 'Retry-After': String(STORE_BUSY_RETRY_SECONDS) },
  );

/** Network failures of a call to a store: the connection refused, reset or timed out. */
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'ECONNABORTED', 'EAI_AGAIN']);
/** The SDK's names for a call that got no answer in time (smithy's node-http-handler, S3's own). */
const TIMEOUT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);

/**
 * A store (S3, DynamoDB, SES) did not answer usably after the SDK's own retries (shared/files/client.ts,
 * shared/store/client.ts): a timeout, a 5xx, a broken connection, or a stored file that could not be
 * read (SourceReadError). The request's own input is fine and a later identical request may pass, so it
 * is 503 `try_again`, never 500. The cause is followed (a SourceReadError wraps the SDK's error).
 */
export function isStoreUnavailable(e: unknown, depth = 0): boolean {
  if (!(e instanceof Error) || depth > 4) return false;
  if (e.name === 'SourceReadError' || TIMEOUT_NAMES.has(e.name)) return true;
  const sdk = e as { $fault?: unknown; $metadata?: { httpStatusCode?: unknown }; code?: unknown };
  const status = sdk.$metadata?.httpStatusCode;
  if (sdk.$fault === 'server' || (typeof status === 'number' && status >= 500)) return true;
  if (typeof sdk.code === 'string' && NETWORK_CODES.has(sdk.code)) return true;
  return isStoreUnavailable((e as { cause?: unknown }).cause, depth + 1);
}

/** Seconds a caller is told to wait when a store did not answer. */
export const STORE_UNAVAILABLE_RETRY_SECONDS = 5;

/** 503 `try_again` with `Retry-After`: a store did not answer in time; nothing of this request is lost. */
export const storeUnavailable = () =>
  new AppError(
    503,
    'try_again',
    'A store did not answer in time; try again',
    { retry_after_seconds: STORE_UNAVAILABLE_RETRY_SECONDS },
    { 'Retry-After': String(STORE_UNAVAILABLE_RETRY_SECONDS) },
  );
