/**
 * A handler bound to its contract route once (shared/contract/routes.ts): the entry gives the stack its
 * auth and input schemas (parsed and validated before the function runs), and the function's answer
 * `{ status, body }` is checked against the entry's schema for that status and sent as JSON. A function
 * may still return a built HttpResult (a file, a redirect, 204).
 *
 *   export const handler = route(ROUTES.me, async (req) => ({ status: 200, body: { user: toPublicUser(req.user) } }));
 *
 * A Lambda function serving several routes names each by its contract key, and the event is dispatched
 * on the contract's method and path template (the event's routeKey; else its method and raw path):
 *
 *   export const handler = routes({ wbConnections: async (req) => ..., wbConnect: async (req) => ... });
 *
 * An event that matches no entry answers 404 `not_found` (no route at that path) or 405
 * `method_not_allowed` (the path is served, not with that method), in the API's error shape.
 * Both factories are built with an authenticator: `route`/`routes` (shared/http/authed.ts) with the
 * user store's, `publicRoute` (public.ts) with none, so a public function loads no user store.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import { ROUTES, type RouteKey, type RouteSpec, type Routes } from '../contract/routes';
import { AppError, notFound } from '../errors';
import { httpStack, type Authenticator, type HttpHandler, type HttpOptions, type HttpRequest } from './handler';
import { reportJson } from './large-json';
import { contractBody, json, type HttpResult, type ReplyBody } from './responses';

/** A route's HttpOptions from its contract entry (auth, body, query, path, multipart), types preserved. */
export type RouteOptions<R extends RouteSpec> = {
  auth: R['auth'];
  body: R extends { body: infer B extends z.ZodType } ? B : undefined;
  query: R extends { query: infer Q extends z.ZodType } ? Q : undefined;
  path: R extends { params: infer P extends z.ZodType } ? P : undefined;
  multipart: R extends { multipart: true } ? true : undefined;
};

/** What the server adds to a contract entry: a file cap, the secrets it needs. Inputs come from the contract. */
export type RouteExtra = Pick<HttpOptions, 'multipart' | 'secrets'>;

/** The parsed request of contract route R. */
export type RouteRequest<R extends RouteSpec> = HttpRequest<RouteOptions<R>>;

type Statuses<R extends RouteSpec> = keyof R['responses'] & number;
/** The statuses of R answered with a JSON body (a schema in the contract). */
type JsonStatus<R extends RouteSpec> = {
  [S in Statuses<R>]: R['responses'][S] extends { schema: z.ZodType } ? S : never;
}[Statuses<R>];

/**
 * A JSON answer of route R: one of its statuses with the body its schema takes. `large`: a body that may
 * be megabytes (a whole report) goes gzip-encoded when the client accepts it (large-json.ts).
 */
export type RouteAnswer<R extends RouteSpec> = {
  [S in JsonStatus<R>]: { status: S; body: ReplyBody<R, S>; headers?: Record<string, string>; large?: boolean };
}[JsonStatus<R>];

export type RouteFn<R extends RouteSpec> = (req: RouteRequest<R>) => Promise<RouteAnswer<R> | HttpResult>;

/**
 * A Lambda handler bound from the contract. The keys it serves are kept beside it (servedRoutes), not
 * on it: a plain function type keeps callers' inference simple.
 */
export type BoundHandler = HttpHandler;

const served = new WeakMap<BoundHandler, readonly RouteKey[]>();

/** The contract keys a handler built by route()/routes()/publicRoute() serves; null for any other function. */
export function servedRoutes(handler: unknown): readonly RouteKey[] | null {
  return typeof handler === 'function' ? (served.get(handler as BoundHandler) ?? null) : null;
}

function bound(handler: HttpHandler, keys: readonly RouteKey[]): BoundHandler {
  served.set(handler, keys);
  return handler;
}

/** The contract key of an entry of ROUTES (by identity: a copy is not a contract route). */
export function routeKeyOf(r: RouteSpec): RouteKey {
  const key = (Object.keys(ROUTES) as RouteKey[]).find((k) => ROUTES[k] === r);
  if (!key) throw new Error(`http: ${r.method} ${r.path} is not an entry of ROUTES`);
  return key;
}

/** The stack's options of contract route `r`: its auth and input schemas, and what `extra` adds. */
export function routeOptions(r: RouteSpec, extra?: RouteExtra): HttpOptions {
  return { auth: r.auth, body: r.body, query: r.query, path: r.params, multipart: r.multipart, ...(extra ?? {}) };
}

/** The answer as an HttpResult: a JSON answer checked against the contract (CONTRACT_CHECK), else as built. */
function toResult<R extends RouteSpec>(r: R, answer: RouteAnswer<R> | HttpResult, acceptEncoding?: string): HttpResult {
  if ('statusCode' in answer) return answer;
  const a = answer as { status: number; body: unknown; headers?: Record<string, string>; large?: boolean };
  const body = contractBody(r, a.status as never, a.body as never);
  if (a.large) return reportJson(a.status, body, acceptEncoding);
  return json(a.status, body, a.headers);
}

/** The stack of one contract route with `authenticate` as its caller step (null for public routes). */
export function bindRoute<R extends RouteSpec>(
  r: R,
  fn: RouteFn<R>,
  extra: RouteExtra | undefined,
  authenticate: Authenticator | null,
): BoundHandler {
  const key = routeKeyOf(r);
  const handler = httpStack(
    routeOptions(r, extra),
    async (req: HttpRequest) =>
      toResult(r, await fn(req as unknown as RouteRequest<R>), req.headers['accept-encoding']),
    authenticate,
  );
  return bound(handler, [key]);
}

/** Per contract key: the function serving it (the request typed by that entry). */
export type RouteTable<K extends RouteKey> = { [P in K]: RouteFn<Routes[P]> };

const templateRe = (path: string) =>
  new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);

/** The key an event is for among `keys`: by its routeKey, else by method and raw path; 404/405 otherwise. */
export function matchRoute(
  event: APIGatewayProxyEventV2,
  keys: readonly RouteKey[],
): { key: RouteKey } | { status: 404 } | { status: 405; allow: string[] } {
  const byRouteKey = keys.find((k) => `${ROUTES[k].method} ${ROUTES[k].path}` === event.routeKey);
  if (byRouteKey) return { key: byRouteKey };
  const method = (event.requestContext?.http?.method ?? event.routeKey?.split(' ')[0] ?? '').toUpperCase();
  const path = event.rawPath ?? event.requestContext?.http?.path ?? '';
  // A literal segment wins over a parameter (as API Gateway routes): fewer parameters first.
  const params = (k: RouteKey) => (ROUTES[k].path.match(/\{/g) ?? []).length;
  const atPath = keys.filter((k) => templateRe(ROUTES[k].path).test(path)).sort((a, b) => params(a) - params(b));
  if (atPath.length === 0) return { status: 404 };
  const key = atPath.find((k) => ROUTES[k].method === method);
  if (key) return { key };
  return { status: 405, allow: [...new Set(atPath.map((k) => ROUTES[k].method))] };
}

/** A function serving several contract routes, dispatched from the contract (see the module's comment). */
export function bindRoutes<K extends RouteKey>(
  table: RouteTable<K>,
  extras: Partial<Record<K, RouteExtra>>,
  authenticate: Authenticator | null,
): BoundHandler {
  const keys = Object.keys(table) as K[];
  if (keys.length === 0) throw new Error('http: routes() needs at least one route');
  const fns = new Set(keys.map((k) => ROUTES[k].fn));
  if (fns.size > 1) throw new Error(`http: routes() binds routes of several functions: ${[...fns].join(', ')}`);
  const handlers = new Map<RouteKey, HttpHandler>(
    keys.map((k) => [
      k,
      bindRoute(ROUTES[k] as RouteSpec, table[k] as unknown as RouteFn<RouteSpec>, extras[k], authenticate),
    ]),
  );
  // An event for none of them still answers in the API's error shape, through the same stack.
  const unmatched = (event: APIGatewayProxyEventV2): HttpHandler =>
    httpStack(
      { auth: 'none', secrets: [] },
      async () => {
        const m = matchRoute(event, keys);
        if ('status' in m && m.status === 405)
          throw new AppError(405, 'method_not_allowed', 'Method not allowed', {}, { Allow: m.allow.join(', ') });
        throw notFound('No route at this path');
      },
      null,
    );
  const handler = async (event: APIGatewayProxyEventV2, context?: Partial<Context>): Promise<HttpResult> => {
    const m = matchRoute(event, keys);
    if ('key' in m) return handlers.get(m.key)!(event, context);
    return unmatched(event)(event, context);
  };
  return bound(handler, keys);
}
