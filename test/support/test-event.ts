/**
 * Hand-built API Gateway HTTP API (v2) events for tests that call a route's `handler` in-process
 * (unit tests of the stack, integration suites). Not used by production code.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

export interface EventInput {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  pathParameters?: Record<string, string>;
  /** An object is sent as JSON; a string as is; a Buffer base64-encoded (isBase64Encoded). */
  body?: unknown;
  token?: string;
  /**
   * The caller's address. Default: a random one per event, so suites calling handlers in-process do not
   * share the per-IP sign-in and registration limits; a test of those limits names its address.
   */
  sourceIp?: string;
}

const randomIp = () => `10.${[0, 0, 0].map(() => Math.floor(Math.random() * 256)).join('.')}`;

export function apiEvent(input: EventInput = {}): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = { ...(input.headers ?? {}) };
  if (input.token) headers.authorization = `Bearer ${input.token}`;
  let body: string | undefined;
  let isBase64Encoded = false;
  if (Buffer.isBuffer(input.body)) {
    body = input.body.toString('base64');
    isBase64Encoded = true;
  } else if (typeof input.body === 'string') {
    body = input.body;
  } else if (input.body !== undefined) {
    body = JSON.stringify(input.body);
    headers['content-type'] ??= 'application/json';
  }
  const method = input.method ?? (input.body === undefined ? 'GET' : 'POST');
  const path = input.path ?? '/api/test';
  const rawQueryString = new URLSearchParams(input.query ?? {}).toString();
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString,
    headers,
    queryStringParameters: input.query,
    pathParameters: input.pathParameters,
    body,
    isBase64Encoded,
    requestContext: {
      accountId: 'test',
      apiId: 'test',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: input.sourceIp ?? randomIp(), userAgent: 'vitest' },
      requestId: `req-${Math.random().toString(36).slice(2)}`,
      routeKey: `${method} ${path}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
  };
}

/** A multipart/form-data body with one `file` part (and optional text fields). */
export function multipartBody(
  file: { filename: string; content: Buffer; contentType?: string },
  fields: Record<string, string> = {},
): { body: Buffer; contentType: string } {
  const boundary = `----vitest${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`, 'utf8'));
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.filename}"\r\nContent-Type: ${file.contentType ?? 'application/octet-stream'}\r\n\r\n`,
      'utf8',
    ),
    file.content,
    Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8'),
  );
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The JSON body of a handler's answer. */
export function bodyOf<T = Record<string, unknown>>(r: { body?: string }): T {
  return JSON.parse(r.body ?? 'null') as T;
}
