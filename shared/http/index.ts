export { http } from './authed';
export {
  publicHttp,
  fromRoute,
  sourceIp,
  type HttpOptions,
  type HttpRequest,
  type HttpFn,
  type HttpHandler,
  type RouteOptions,
} from './handler';
export {
  json,
  reply,
  contractBody,
  noContent,
  redirect,
  binary,
  contentDisposition,
  type HttpResult,
  type BinaryOptions,
  type ReplyBody,
} from './responses';
export { parseMultipart, type UploadedFile, type MultipartResult } from './multipart';
export { authenticate, bearerToken, type AuthMode } from './auth';
export {
  emailSchema,
  taxProfileSchema,
  taxProfilePatchSchema,
  cursorQuerySchema,
  VAT_RATES,
  isoDateSchema,
  taxPeriodSchema,
  taxPeriodsSchema,
  allocationSchema,
} from './schemas';
export { log } from '../log';
export { ROUTES } from '../contract/routes';
