export { http, sourceIp, type HttpOptions, type HttpRequest, type HttpFn, type HttpHandler } from './handler';
export {
  json,
  noContent,
  redirect,
  binary,
  contentDisposition,
  type HttpResult,
  type BinaryOptions,
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
