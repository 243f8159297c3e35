/**
 * Logging through AWS Lambda Powertools Logger: one JSON line per event (level, message, timestamp,
 * service, X-Ray trace id) plus, on every line written while a request is handled — use-case lines
 * included —, the request id, the function name, cold start and, once authenticated, the user id.
 *
 * The request's keys live in an AsyncLocalStorage scope opened by the HTTP stack (shared/http/handler.ts
 * → `withRequestLog`), not in the Logger's process-wide `appendKeys`: serverless-offline and the
 * in-process tests run requests of one "function" concurrently, and appended keys would leak from one
 * to the other. On Lambda (one request per environment) both are equivalent.
 *
 * Bodies are never logged: they may hold passwords or tokens. LOG_LEVEL (error|warn|info|debug) is read
 * directly rather than through config.ts because logging must work even when the configuration is what
 * failed; under vitest the default is `error` so test output stays readable.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';

type Level = 'error' | 'warn' | 'info' | 'debug';

function initialLevel(): string {
  const v = (process.env.POWERTOOLS_LOG_LEVEL || process.env.LOG_LEVEL || '').toUpperCase();
  if (['ERROR', 'WARN', 'INFO', 'DEBUG'].includes(v)) return v;
  return 'INFO';
}

/** The process's one Logger (POWERTOOLS_SERVICE_NAME names the service; serverless.yml sets it). */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'report-profitability',
  logLevel: initialLevel() as 'INFO',
});

/** Keys every line of one request carries. `user_id` is filled in once the caller is authenticated. */
export interface RequestLogKeys {
  request_id: string;
  function_name?: string;
  cold_start: boolean;
  user_id?: string;
}

const scope = new AsyncLocalStorage<RequestLogKeys>();

/** True until this process has served its first invocation (the Lambda environment's cold start). */
let coldStart = true;

/**
 * The keys of one invocation (HTTP request or worker event); the first call in a process is the cold
 * start. With a real Lambda context, Powertools' own context keys (function ARN, memory, version) are
 * added too.
 */
export function invocationKeys(requestId: string, context?: Partial<Context>): RequestLogKeys {
  if (context?.functionName) logger.addContext(context as Context);
  const keys: RequestLogKeys = {
    request_id: requestId,
    function_name: context?.functionName || process.env.AWS_LAMBDA_FUNCTION_NAME || undefined,
    cold_start: coldStart,
  };
  coldStart = false;
  return keys;
}

/** Runs `fn` with `keys` on every log line written inside it (awaited work included). */
export function withRequestLog<T>(keys: RequestLogKeys, fn: () => Promise<T>): Promise<T> {
  return scope.run(keys, fn);
}

/** Adds keys (e.g. the user id after auth) to the current request's lines; a no-op outside a request. */
export function appendRequestKeys(keys: Partial<RequestLogKeys>): void {
  const current = scope.getStore();
  if (current) Object.assign(current, keys);
}

/** The current request's keys (undefined outside a request), e.g. for a job that outlives it. */
export function requestLogKeys(): RequestLogKeys | undefined {
  const current = scope.getStore();
  return current ? { ...current } : undefined;
}

export function log(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  const current = scope.getStore();
  const extra = current ? { ...current, ...fields } : fields;
  logger[level](msg, extra);
}

/** The parts of an error worth logging server-side (never sent to clients). */
export function describeError(e: unknown): Record<string, unknown> {
  if (e instanceof Error) return { error_name: e.name, error_message: e.message, stack: e.stack };
  return { error_value: String(e) };
}
