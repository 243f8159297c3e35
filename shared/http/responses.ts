import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { z } from 'zod';
import type { RouteSpec } from '../contract/routes';
import { contentDisposition } from '../files/content-disposition';

// Kept here too: handlers build download answers with it (the format lives beside the presigned GET's).
export { contentDisposition };

export type HttpResult = APIGatewayProxyStructuredResultV2;

const JSON_TYPE = 'application/json; charset=utf-8';

export function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return { statusCode: status, headers: { 'Content-Type': JSON_TYPE, ...headers }, body: JSON.stringify(body) };
}

/** The JSON body a contract route answers with `status` (z.input: what the presenter builds). */
export type ReplyBody<R extends RouteSpec, S extends keyof R['responses']> = R['responses'][S] extends {
  schema: infer Z extends z.ZodType;
}
  ? z.input<Z>
  : never;

/**
 * With CONTRACT_CHECK=1 (every test suite: vitest.config.ts) every answer is parsed with its contract
 * schema, so a presenter that drifts from the contract fails the suites with a 500 naming the field.
 */
const checkReplies = () => process.env.CONTRACT_CHECK === '1';

/** `body` after the contract check of route `r`'s answer `status` (see checkReplies). */
export function contractBody<R extends RouteSpec, S extends keyof R['responses'] & number>(
  r: R,
  status: S,
  body: ReplyBody<R, S>,
): ReplyBody<R, S> {
  if (checkReplies()) {
    const schema = (r.responses[status] as { schema?: z.ZodType } | undefined)?.schema;
    if (!schema) throw new Error(`contract: ${r.method} ${r.path} has no JSON answer ${status}`);
    const result = schema.safeParse(body);
    if (!result.success)
      throw new Error(
        `contract: ${r.method} ${r.path} ${status} answer differs: ${result.error.issues
          .slice(0, 5)
          .map((i) => `${i.path.join('.')}: ${i.message}`)
          .join('; ')}`,
      );
  }
  return body;
}

export function noContent(): HttpResult {
  return { statusCode: 204, headers: {}, body: '' };
}

export function redirect(location: string, status: 301 | 302 | 303 | 307 = 302): HttpResult {
  return { statusCode: status, headers: { Location: location, 'Cache-Control': 'no-store' }, body: '' };
}

export interface BinaryOptions {
  contentType: string;
  filename?: string;
  disposition?: 'attachment' | 'inline';
  status?: number;
}

/** A file in the body: API Gateway (and serverless-offline) decode base64 when isBase64Encoded is set. */
export function binary(data: Buffer | Uint8Array, o: BinaryOptions): HttpResult {
  const headers: Record<string, string> = { 'Content-Type': o.contentType, 'Content-Length': String(data.byteLength) };
  if (o.filename !== undefined)
    headers['Content-Disposition'] = contentDisposition(o.filename, o.disposition ?? 'attachment');
  return { statusCode: o.status ?? 200, headers, body: Buffer.from(data).toString('base64'), isBase64Encoded: true };
}
