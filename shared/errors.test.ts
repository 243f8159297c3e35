import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError, paymentRequired, toAppError, validation } from './errors';
import { ReportError } from './engine/errors';

describe('toAppError', () => {
  it('keeps an AppError as it is', () => {
    const e = paymentRequired(12000, 10000);
    expect(toAppError(e)).toBe(e);
    expect(e.status).toBe(402);
    expect(e.code).toBe('insufficient_limits');
    expect(e.details).toEqual({ rows: 12000, limits: 10000 });
  });

  it.each([
    ['unsupported_format', 415],
    ['not_a_spreadsheet', 415],
    ['file_too_large', 413],
    ['missing_headers', 422],
    ['zip_bomb', 422],
    ['corrupt_file', 422],
    ['empty_report', 422],
  ] as const)('maps ReportError %s to %i keeping code and details', (code, status) => {
    const mapped = toAppError(new ReportError(code, 'why', { missing: ['sa_name'] }));
    expect(mapped).toBeInstanceOf(AppError);
    expect(mapped.status).toBe(status);
    expect(mapped.code).toBe(code);
    expect(mapped.details).toEqual({ missing: ['sa_name'] });
  });

  it('maps a field-not-correctable domain error to 422 with its code and field', () => {
    class FieldNotCorrectableError extends Error {
      readonly code = 'field_not_correctable';
      constructor(readonly field: string) {
        super(`Field "${field}" does not accept a manual value`);
        this.name = 'FieldNotCorrectableError';
      }
    }
    const mapped = toAppError(new FieldNotCorrectableError('realization'));
    expect(mapped.status).toBe(422);
    expect(mapped.code).toBe('field_not_correctable');
    expect(mapped.details).toEqual({ field: 'realization' });
  });

  it('turns anything else into a bare 500 without the original text', () => {
    const mapped = toAppError(new Error('ResourceNotFoundException: table arn:aws:dynamodb:... not found'));
    expect(mapped.status).toBe(500);
    expect(mapped.code).toBe('internal_error');
    expect(mapped.message).toBe('internal error');
    expect(JSON.stringify(mapped.details)).toBe('{}');
    expect(toAppError('a string').status).toBe(500);
    expect(toAppError(undefined).status).toBe(500);
  });

  it('validation carries zod issues with dotted paths', () => {
    const r = z.object({ tax: z.object({ usn_rate: z.number().max(15) }) }).safeParse({ tax: { usn_rate: 20 } });
    expect(r.success).toBe(false);
    const e = validation(r.error!.issues, 'body');
    expect(e.status).toBe(400);
    expect(e.code).toBe('validation_error');
    expect(e.details.issues).toEqual([expect.objectContaining({ path: 'tax.usn_rate', code: 'too_big' })]);
  });
});

describe('a store still throttled after the retries', () => {
  const named = (name: string, extra: object = {}) => Object.assign(new Error(name), { name, ...extra });
  const cancelled = (...codes: string[]) =>
    named('TransactionCanceledException', { CancellationReasons: codes.map((Code) => ({ Code })) });

  it.each([
    ['ThrottlingException', named('ThrottlingException')],
    ['ProvisionedThroughputExceededException', named('ProvisionedThroughputExceededException')],
    ['RequestLimitExceeded', named('RequestLimitExceeded')],
    ['a transaction cancelled by throttling', cancelled('None', 'ThrottlingError')],
    ['a transaction cancelled by a conflict', cancelled('TransactionConflict', 'None')],
  ])('%s → 429 rate_limited with Retry-After', (_, e) => {
    const a = toAppError(e);
    expect([a.status, a.code]).toEqual([429, 'rate_limited']);
    expect(a.headers).toEqual({ 'Retry-After': '2' });
    expect(a.details).toEqual({ retry_after_seconds: 2 });
  });

  it('a failed condition or any other error stays what it is (not a 429)', () => {
    expect(toAppError(cancelled('ConditionalCheckFailed', 'ThrottlingError')).code).toBe('internal_error');
    expect(toAppError(named('ValidationException')).code).toBe('internal_error');
  });
});

describe('a store that did not answer after the retries', () => {
  const sdkError = (name: string, fault: 'client' | 'server', status?: number) =>
    Object.assign(new Error(name), { name, $fault: fault, $metadata: status ? { httpStatusCode: status } : {} });
  const network = (code: string) => Object.assign(new Error(`connect ${code}`), { code });

  it.each([
    ['S3 503 SlowDown', sdkError('SlowDown', 'server', 503)],
    ['S3 500 InternalError', sdkError('InternalError', 'server', 500)],
    ['DynamoDB 500 InternalServerError', sdkError('InternalServerError', 'server', 500)],
    ['a 5xx without a modelled name', sdkError('Unknown', 'client', 502)],
    ["the SDK's request timeout", Object.assign(new Error('timed out'), { name: 'TimeoutError' })],
    ['S3 RequestTimeout', sdkError('RequestTimeout', 'client', 400)],
    ['a reset connection', network('ECONNRESET')],
    ['a refused connection', network('ECONNREFUSED')],
    [
      'a stored file not read (SourceReadError wrapping a timeout)',
      Object.assign(new Error('reading the stored file failed', { cause: network('ETIMEDOUT') }), {
        name: 'SourceReadError',
      }),
    ],
    ['an error caused by a 5xx', new Error('wrapped', { cause: sdkError('SlowDown', 'server', 503) })],
  ])('%s → 503 try_again with Retry-After', (_, e) => {
    const a = toAppError(e);
    expect([a.status, a.code]).toEqual([503, 'try_again']);
    expect(a.headers).toEqual({ 'Retry-After': '5' });
    expect(a.details).toEqual({ retry_after_seconds: 5 });
  });

  it('throttling stays 429; a 4xx refusal or a bug stays what it is', () => {
    expect(toAppError(sdkError('ThrottlingException', 'client', 400)).code).toBe('rate_limited');
    expect(toAppError(sdkError('AccessDenied', 'client', 403)).code).toBe('internal_error');
    expect(toAppError(new TypeError('x is undefined')).code).toBe('internal_error');
  });
});
