export * from './public';
export { http, route, routes } from './authed';
export { binary, contentDisposition, type BinaryOptions, type ReplyBody } from './responses';
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
