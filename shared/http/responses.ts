import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

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

/**
 * `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded>` (RFC 6266 with the
 * RFC 5987 extended parameter): browsers use filename* and keep Cyrillic names; old clients get the
 * fallback, where anything outside printable ASCII (and quotes, backslashes, separators) becomes "_".
 */
export function contentDisposition(filename: string, disposition: 'attachment' | 'inline' = 'attachment'): string {
  const clean = filename.replace(/[\r\n]/g, ' ').replace(/[/\\]/g, '_');
  const fallback = clean.replace(/[^\x20-\x7e]|["%;\\]/g, '_');
  const encoded = encodeURIComponent(clean).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${disposition}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
