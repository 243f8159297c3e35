/**
 * The one middy stack every HTTP route uses (docs/ARCHITECTURE.md: the middleware chain lives in one place).
 * Handlers do not call it directly: they bind a contract route (shared/http/route.ts),
 *
 *   export const handler = route(ROUTES.me, async (req) => ({ status: 200, body: { user: toPublicUser(req.user) } }));
 *
 * and the route's entry gives the stack its options (auth, input schemas). Two factories build the same
 * stack: `route`/`routes` (shared/http/authed.ts) with the caller step, for every authenticated route,
 * and `publicRoute` (public.ts) without it, for the public routes (`auth: 'none'`), so their functions
 * load no user store (no DynamoDB client). Both are `httpStack` below; only the caller step differs.
 *
 * The route function receives the already authenticated, parsed and validated request; `handler` takes the raw
 * API Gateway HTTP API (v2) event. Order of the stack (before: top-down; after/onError: bottom-up):
 *   0. (outside middy) the request's log scope: request id, function name, cold start and later the user
 *      id on every log line (shared/log.ts); the stored metrics flushed as one EMF line at the end
 *   1. request context: request id, timing, one access log line
 *   2. error mapper: catches EVERYTHING (serverless-offline answers 200 with an errorMessage when a
 *      handler throws), maps it with toAppError, logs a 500's cause with the request id
 *   3. auth (before input, so an anonymous caller gets 401, not a validation message)
 *   4. input: body (JSON, base64 too; multipart; raw binary), query and path, validated with zod
 *
 * CORS is not here: API Gateway answers preflights and sets the CORS headers on every answer from
 * `provider.httpApi.cors` in serverless.yml (the one source; serverless-offline does the same locally).
 */
import { randomUUID } from 'node:crypto';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import { getConfig } from '../config';
import { appError, badRequest, toAppError, validation } from '../errors';
import type { UserRecord } from '../store/users.repo';
import type { AuthMode } from './auth';
import { appendRequestKeys, describeError, invocationKeys, log, requestLogKeys, withRequestLog } from '../log';
import { publishMetrics } from '../metrics';
import { loadSecrets, type SecretName } from '../secrets';
import { parseMultipart, type UploadedFile } from './multipart';
import { checkRequestSize, fitResponse, MAX_INLINE_FILE_BYTES } from './payload-limit';
import { json, type HttpResult } from './responses';

export interface HttpOptions {
  /** Default `user`: every route is authenticated unless it says otherwise. */
  auth?: AuthMode;
  /** JSON body schema (an empty body is validated as `{}`); for multipart requests, the text fields. */
  body?: z.ZodType;
  query?: z.ZodType;
  path?: z.ZodType;
  /** Hand the raw body to the route as `rawBody` (no JSON parsing). */
  binaryBody?: boolean;
  /** Accept multipart/form-data with a `file` field; the cap defaults to MAX_UPLOAD_BYTES. */
  multipart?: boolean | { maxFileBytes?: number };
  /**
   * Secrets the route reads (shared/secrets.ts), loaded before it runs. Default: the JWT key, which every
   * authenticated route verifies with and the public auth routes sign with; a route that needs none says `[]`
   * (and its function is granted none).
   */
  secrets?: readonly SecretName[];
}

type Out<S, D> = S extends z.ZodType ? z.output<S> : D;
type Params = Record<string, string | undefined>;

export interface HttpRequest<O extends HttpOptions = HttpOptions> {
  event: APIGatewayProxyEventV2;
  requestId: string;
  /** The caller; null only on `auth: 'none'` routes. */
  user: O['auth'] extends 'none' ? null : UserRecord;
  body: Out<O['body'], undefined>;
  query: Out<O['query'], Params>;
  path: Out<O['path'], Params>;
  /** Header names lower-cased. */
  headers: Params;
  /** The multipart `file` field, when the request was multipart. */
  file: UploadedFile | null;
  /** The raw body for `binaryBody` routes. */
  rawBody: Buffer | null;
  /**
   * How long this request may still work before it must answer (ms from the route function's start):
   * REQUEST_DEADLINE_MS from the request's arrival, or less when the Lambda has less time left (its
   * remaining time minus a margin for answering). Use cases that start work keep to it (shared/reports/deadline.ts).
   */
  budgetMs: number;
}

/** Time kept back from the Lambda's remaining time to build and send the answer. */
export const ANSWER_MARGIN_MS = 2_000;

/** The request's budget (HttpRequest.budgetMs) from the setting, the time spent so far and the Lambda context. */
export function requestBudgetMs(context: Partial<Context> | undefined, elapsedMs = 0): number {
  const setting = Math.max(0, getConfig().REQUEST_DEADLINE_MS - elapsedMs);
  const remaining = typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : null;
  return remaining === null ? setting : Math.max(0, Math.min(setting, remaining - ANSWER_MARGIN_MS));
}

/** The caller's address as API Gateway saw it (throttling per source IP); undefined when unknown. */
export function sourceIp(req: { event: APIGatewayProxyEventV2 }): string | undefined {
  return req.event.requestContext?.http?.sourceIp || undefined;
}

export type HttpFn<O extends HttpOptions> = (req: HttpRequest<O>) => Promise<HttpResult>;
export type HttpHandler = (event: APIGatewayProxyEventV2, context?: Partial<Context>) => Promise<HttpResult>;

interface State {
  requestId: string;
  start: number;
  user: UserRecord | null;
  body: unknown;
  query: unknown;
  path: unknown;
  headers: Params;
  file: UploadedFile | null;
  rawBody: Buffer | null;
}

/** Per-invocation state, keyed by the event object so nothing is written onto the event itself. */
const states = new WeakMap<object, State>();

type Mw = MiddlewareObj<APIGatewayProxyEventV2, HttpResult>;

function stateOf(event: APIGatewayProxyEventV2): State {
  const s = states.get(event);
  if (!s) throw new Error('http: request state missing (middleware order)');
  return s;
}

function lowerHeaders(h: APIGatewayProxyEventV2['headers'] | undefined): Params {
  const out: Params = {};
  for (const [k, v] of Object.entries(h ?? {})) out[k.toLowerCase()] = v;
  return out;
}

const requestContext = (): Mw => ({
  name: 'request-context',
  before: (request) => {
    const event = request.event;
    const requestId = requestLogKeys()?.request_id ?? requestIdOf(event, request.context);
    states.set(event, {
      requestId,
      start: requestStart(event),
      user: null,
      body: undefined,
      query: {},
      path: {},
      headers: lowerHeaders(event.headers),
      file: null,
      rawBody: null,
    });
  },
  after: (request) => accessLog(request.event, request.response),
  onError: (request) => accessLog(request.event, request.response),
});

/**
 * When the request began: API Gateway's arrival time (so a cold start's init and the secrets and caller
 * reads count against the deadline), unless that clock reads later than ours or earlier than API
 * Gateway could have waited (29 s): then now.
 */
function requestStart(event: APIGatewayProxyEventV2): number {
  const now = Date.now();
  const arrived = event.requestContext?.timeEpoch;
  return typeof arrived === 'number' && arrived <= now && now - arrived < 29_000 ? arrived : now;
}

/**
 * `step` (reading the secrets, the caller) within what is left of the request's budget, else 503
 * `try_again`: these run before the route, so nothing is charged or started yet; a read that answers
 * late is dropped and the route never runs.
 */
async function inTime<T>(
  step: Promise<T>,
  request: { event: APIGatewayProxyEventV2; context?: Partial<Context> },
): Promise<T> {
  const budget = requestBudgetMs(request.context, Date.now() - stateOf(request.event).start);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(appError('try_again', 'The request ran out of time before it charged or started anything; try again')),
      budget,
    );
  });
  step.catch(() => undefined);
  try {
    return await Promise.race([step, late]);
  } finally {
    clearTimeout(timer);
  }
}

function requestIdOf(event: APIGatewayProxyEventV2, context: Partial<Context> | undefined): string {
  return event.requestContext?.requestId || context?.awsRequestId || randomUUID();
}

function accessLog(event: APIGatewayProxyEventV2, response: HttpResult | null | undefined): void {
  const s = states.get(event);
  log('info', 'request', {
    method: event.requestContext?.http?.method,
    path: event.rawPath,
    status: response?.statusCode,
    duration_ms: s ? Date.now() - s.start : undefined,
  });
}

const errorMapper = (): Mw => ({
  name: 'error-mapper',
  onError: (request) => {
    const err = toAppError(request.error);
    const requestId = states.get(request.event)?.requestId ?? request.context?.awsRequestId;
    // WB's outages are expected (its status and the outcome are in the details): a warning, no stack.
    if (err.code === 'wb_unavailable')
      log('warn', 'WB unavailable', {
        request_id: requestId,
        status: err.status,
        code: err.code,
        details: err.details,
      });
    else if (err.status >= 500)
      log('error', 'unhandled error', { request_id: requestId, ...describeError(request.error) });
    else log('info', 'request rejected', { status: err.status, code: err.code });
    const response = json(err.status, { error: { code: err.code, message: err.message, details: err.details } });
    request.response = { ...response, headers: { ...response.headers, ...err.headers } };
  },
});

const secrets = (names: readonly SecretName[]): Mw => ({
  name: 'secrets',
  before: async (request) => {
    if (names.length > 0) await inTime(loadSecrets(names), request);
  },
});

/** Who the caller is, from the request's headers (shared/http/auth.ts authenticate: the user store's). */
export type Authenticator = (
  headers: Record<string, string | undefined> | undefined,
  mode: Exclude<AuthMode, 'none'>,
) => Promise<UserRecord>;

const auth = (mode: AuthMode, authenticate: Authenticator | null): Mw => ({
  name: 'auth',
  before: async (request) => {
    if (mode === 'none' || !authenticate) return;
    const user = await inTime(authenticate(request.event.headers, mode), request);
    stateOf(request.event).user = user;
    appendRequestKeys({ user_id: user.id });
  },
});

function rawBodyOf(event: APIGatewayProxyEventV2, headers: Params): Buffer | null {
  const body: unknown = event.body;
  // API Gateway always hands a string; serverless-offline hands a JSON body of `false`, `0` or `null` as
  // that value (`null` looks like no body at all, but its request had bytes). Each becomes the same
  // text, so a route answers the same locally and on AWS.
  if (body === null && Number(headers['content-length'] ?? 0) > 0) return Buffer.from('null', 'utf8');
  if (body === undefined || body === null) return null;
  if (typeof body !== 'string') return Buffer.from(JSON.stringify(body), 'utf8');
  return event.isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
}

function check(schema: z.ZodType | undefined, value: unknown, where: string): unknown {
  if (!schema) return value;
  const r = schema.safeParse(value);
  if (!r.success) throw validation(r.error.issues, where);
  return r.data;
}

const input = (o: HttpOptions): Mw => ({
  name: 'input',
  before: async (request) => {
    const event = request.event;
    const s = stateOf(event);
    checkRequestSize(event.body);
    const raw = rawBodyOf(event, s.headers);
    const contentType = s.headers['content-type'] ?? '';
    if (o.multipart && /^multipart\/form-data/i.test(contentType)) {
      // A file sent in the request itself fits Lambda's payload after base64 (bigger ones go by presigned PUT).
      const cap = Math.min(
        typeof o.multipart === 'object' && o.multipart.maxFileBytes
          ? o.multipart.maxFileBytes
          : getConfig().MAX_UPLOAD_BYTES,
        MAX_INLINE_FILE_BYTES,
      );
      const form = await parseMultipart(raw ?? Buffer.alloc(0), contentType, cap);
      s.file = form.file;
      s.body = check(o.body, form.fields, 'form fields');
    } else if (o.binaryBody) {
      s.rawBody = raw;
    } else if (o.body) {
      const text = raw ? raw.toString('utf8') : '';
      let parsed: unknown = {};
      if (text.trim() !== '') {
        try {
          parsed = JSON.parse(text);
        } catch {
          throw badRequest('invalid_json', 'The request body is not valid JSON');
        }
        // Every JSON body of the contract is an object: `null`, `false`, `0`, `"x"` or `[]` is refused
        // here, before a schema's defaults could read it as "nothing given" (null on rebuild-many is not
        // "rebuild all").
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
          throw validation(
            [{ code: 'invalid_type', path: [], message: 'The request body must be a JSON object' }],
            'body',
          );
      }
      s.body = check(o.body, parsed, 'body');
    }
    s.query = check(o.query, { ...(event.queryStringParameters ?? {}) }, 'query');
    s.path = check(o.path, { ...(event.pathParameters ?? {}) }, 'path');
  },
});

/**
 * Wraps a public route function (`auth: 'none'`) in the stack, without the caller step. The result is
 * the Lambda handler, as route()'s is (authed.ts).
 */
export function publicHttp<O extends HttpOptions & { auth: 'none' }>(options: O, fn: HttpFn<O>): HttpHandler {
  return httpStack(options, fn, null);
}

/**
 * Wraps a route function in the stack, with `authenticate` as its caller step (null: none, for public
 * routes). The result is the Lambda handler (serverless.yml points at it); it never throws: every
 * failure becomes an docs/API.md error body. Building it parses the configuration (throws ConfigError
 * when a setting is missing). Routes are bound with route()/routes() (authed.ts) or
 * publicRoute() (public.ts), not this.
 */
export function httpStack<O extends HttpOptions>(
  options: O,
  fn: HttpFn<O>,
  authenticate: Authenticator | null,
): HttpHandler {
  // Cold start: the handler module builds its stack when Lambda loads it, so a missing or malformed
  // setting fails the init phase here, naming every offending variable (ConfigError), instead of
  // answering 500 on the first request. getConfig() parses once per process and caches.
  getConfig();
  const mode = options.auth ?? 'user';
  // A route that names a caller is built with route()/routes() (authed.ts), which pass the authenticator.
  if (mode !== 'none' && !authenticate) throw new Error(`http: a route with auth '${mode}' needs http()`);
  const core = async (event: APIGatewayProxyEventV2, context?: Partial<Context>): Promise<HttpResult> => {
    const s = stateOf(event);
    const req = {
      event,
      requestId: s.requestId,
      user: s.user,
      body: s.body,
      query: s.query,
      path: s.path,
      headers: s.headers,
      file: s.file,
      rawBody: s.rawBody,
      budgetMs: requestBudgetMs(context, Date.now() - s.start),
    } as HttpRequest<O>;
    const result = await fn(req);
    if (!result || typeof result !== 'object' || typeof result.statusCode !== 'number')
      throw new Error('http: route returned no response');
    return fitResponse(result, s.headers['accept-encoding']);
  };
  const wrapped = middy<APIGatewayProxyEventV2, HttpResult>(core).use([
    requestContext(),
    errorMapper(),
    secrets(options.secrets ?? ['jwt']),
    auth(mode, authenticate),
    input(options),
  ]);
  return async (event, context) => {
    return withRequestLog(invocationKeys(requestIdOf(event, context), context), async () => {
      try {
        return await wrapped(event, (context ?? {}) as Context);
      } catch (e) {
        // Only reachable if a middleware's own onError failed; still answer in the API's shape.
        log('error', 'error mapper failed', describeError(e));
        return {
          ...json(500, { error: { code: 'internal_error', message: 'internal error', details: {} } }),
          headers: { 'Content-Type': 'application/json; charset=utf-8' },
        };
      } finally {
        publishMetrics();
      }
    });
  };
}
