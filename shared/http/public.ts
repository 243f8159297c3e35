/**
 * What a public route (`auth: 'none'`) needs of the HTTP layer, without the caller step's user store
 * (index.ts re-exports shared/http/auth.ts, which loads it): its function's bundle holds no DynamoDB
 * client unless the route itself uses one.
 */
export {
  publicHttp,
  fromRoute,
  sourceIp,
  type HttpOptions,
  type HttpRequest,
  type HttpFn,
  type HttpHandler,
} from './handler';
export { json, reply, contractBody, noContent, redirect, type HttpResult } from './responses';
export { ROUTES } from '../contract/routes';
