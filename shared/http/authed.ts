/**
 * The stack of the authenticated routes (shared/http/handler.ts explains it): httpStack with the caller
 * step, which reads the user store (shared/http/auth.ts). Public routes use publicRoute (public.ts), so
 * their functions do not load the user store.
 */
import type { RouteKey, RouteSpec } from '../contract/routes';
import { authenticate } from './auth';
import { httpStack, type HttpFn, type HttpHandler, type HttpOptions } from './handler';
import { bindRoute, bindRoutes, type BoundHandler, type RouteExtra, type RouteFn, type RouteTable } from './route';

/** Wraps a function in the stack with the caller step (`auth` defaults to `user`): the stack's own tests. */
export function http<O extends HttpOptions>(options: O, fn: HttpFn<O>): HttpHandler {
  return httpStack(options, fn, authenticate);
}

/** The handler of one authenticated contract route (shared/http/route.ts). */
export function route<R extends RouteSpec & { auth: 'user' | 'admin' }>(r: R, fn: RouteFn<R>): BoundHandler;
export function route<R extends RouteSpec & { auth: 'user' | 'admin' }>(
  r: R,
  extra: RouteExtra,
  fn: RouteFn<R>,
): BoundHandler;
export function route<R extends RouteSpec>(r: R, a: RouteFn<R> | RouteExtra, b?: RouteFn<R>): BoundHandler {
  return typeof a === 'function' ? bindRoute(r, a, undefined, authenticate) : bindRoute(r, b!, a, authenticate);
}

/** The handler of a function serving several authenticated contract routes, dispatched from the contract. */
export function routes<K extends RouteKey>(
  table: RouteTable<K>,
  extras: Partial<Record<K, RouteExtra>> = {},
): BoundHandler {
  return bindRoutes(table, extras, authenticate);
}
