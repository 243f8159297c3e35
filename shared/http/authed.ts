/**
 * The stack of the authenticated routes (shared/http/handler.ts explains it): httpStack with the caller
 * step, which reads the user store (shared/http/auth.ts). Public routes use publicHttp (handler.ts), so
 * their functions do not load the user store.
 */
import { authenticate } from './auth';
import { httpStack, type HttpFn, type HttpHandler, type HttpOptions } from './handler';

/** Wraps a route function in the stack with the caller step (`auth` defaults to `user`). */
export function http<O extends HttpOptions>(options: O, fn: HttpFn<O>): HttpHandler {
  return httpStack(options, fn, authenticate);
}
