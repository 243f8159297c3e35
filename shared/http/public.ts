/**
 * What a public route (`auth: 'none'`) needs of the HTTP layer, without the caller step's user store
 * (index.ts re-exports shared/http/auth.ts, which loads it): its function's bundle holds no DynamoDB
 * client unless the route itself uses one.
 */
import type { RouteSpec } from '../contract/routes';
import { bindRoute, type BoundHandler, type RouteExtra, type RouteFn } from './route';

export { sourceIp, type HttpHandler } from './handler';
export { json, noContent, redirect } from './responses';
export { type BoundHandler, type RouteExtra, type RouteFn } from './route';
export { ROUTES } from '../contract/routes';

/** The handler of one public contract route (`auth: 'none'`): the stack without the caller step. */
export function publicRoute<R extends RouteSpec & { auth: 'none' }>(r: R, fn: RouteFn<R>): BoundHandler;
export function publicRoute<R extends RouteSpec & { auth: 'none' }>(
  r: R,
  extra: RouteExtra,
  fn: RouteFn<R>,
): BoundHandler;
export function publicRoute<R extends RouteSpec>(r: R, a: RouteFn<R> | RouteExtra, b?: RouteFn<R>): BoundHandler {
  return typeof a === 'function' ? bindRoute(r, a, undefined, null) : bindRoute(r, b!, a, null);
}
