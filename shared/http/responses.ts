import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { contentDisposition } from '../files/content-disposition';

// Kept here too: handlers build download answers with it (the format lives beside the presigned GET's).
export { contentDisposition };

export type HttpResult = APIGatewayProxyStructuredResultV2;

const JSON_TYPE = 'application/json; charset=utf-8';

export function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return { statusCode: status, headers: { 'Content-Type': JSON_TYPE, ...headers }, body: JSON.stringify(body) };
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
