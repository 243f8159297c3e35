import jwt from 'jsonwebtoken';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { signToken } from '../auth/tokens';
import { ConfigError } from '../config';
import { notFound } from '../errors';
import { ReportError } from '../engine/errors';
import type { UserRecord } from '../store/users.repo';
import { ROUTES, type RouteSpec } from '../contract/routes';
import { http } from './authed';
import { publicHttp, type HttpOptions, type HttpRequest } from './handler';
import { routeOptions } from './route';
import { json } from './responses';
import { apiEvent, bodyOf, multipartBody } from '../../test/support/test-event';

// The store is the one collaborator mocked here: these tests are about the HTTP stack alone.
const users = new Map<string, UserRecord>();
vi.mock('../store/users.repo', () => ({ getUserById: async (id: string) => users.get(id) ?? null }));

const SECRET = 'unit-test-secret-unit-test-secret';

function user(id: string, role: string): UserRecord {
  return {
    id,
    email: `${id}@example.com`,
    role,
    confirmed: true,
    limits: 10,
    initial_limits: 10,
    tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
    tax_periods: [{ valid_from: null, tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 }],
    allocation: 'realization',
    created_at: '2024-01-01T00:00:00Z',
  };
}

// Set before any `http(...)` below runs: building a handler parses the configuration (cold start).
Object.assign(process.env, {
  JWT_SECRET: SECRET,
  TABLE_NAME: 't',
  BUCKET_NAME: 'bucket',
  MAIL_FROM: 'noreply@example.com',
  APP_URL: 'http://localhost:5173',
  MAX_UPLOAD_BYTES: '1000',
});

beforeEach(() => {
  users.clear();
  users.set('seller1', user('seller1', 'seller'));
  users.set('admin1', user('admin1', 'admin'));
});

interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown> };
}

const echoRoute = {
  auth: 'none',
  body: z.object({ rows: z.number().int().positive(), note: z.string().optional() }),
  query: z.object({ page: z.coerce.number().int().min(1).default(1) }),
  path: z.object({ id: z.string().regex(/^[A-Z0-9]+$/) }),
} satisfies HttpOptions;
const echo = http(echoRoute, async (req: HttpRequest<typeof echoRoute>) =>
  json(200, { body: req.body, query: req.query, path: req.path, user: req.user }),
);

describe('input parsing and validation', () => {
  it('hands the route parsed, validated body, query and path', async () => {
    const r = await echo(apiEvent({ body: { rows: 3 }, query: { page: '2' }, pathParameters: { id: 'ABC1' } }));
    expect(r.statusCode).toBe(200);
    expect(bodyOf(r)).toEqual({ body: { rows: 3 }, query: { page: 2 }, path: { id: 'ABC1' }, user: null });
  });

  it('reads a base64-encoded JSON body', async () => {
    const r = await echo(
      apiEvent({
        body: Buffer.from(JSON.stringify({ rows: 5, note: 'Привет' })),
        headers: { 'content-type': 'application/json' },
        pathParameters: { id: 'A' },
      }),
    );
    expect(r.statusCode).toBe(200);
    expect(bodyOf<{ body: unknown }>(r).body).toEqual({ rows: 5, note: 'Привет' });
  });

  it('answers malformed JSON with 400 invalid_json', async () => {
    const r = await echo(
      apiEvent({ body: '{"rows": 3', headers: { 'content-type': 'application/json' }, pathParameters: { id: 'A' } }),
    );
    expect(r.statusCode).toBe(400);
    expect(bodyOf<ErrorBody>(r).error.code).toBe('invalid_json');
  });

  it('answers schema violations with 400 validation_error and the issues', async () => {
    const r = await echo(apiEvent({ body: { rows: -1 }, pathParameters: { id: 'A' } }));
    expect(r.statusCode).toBe(400);
    const e = bodyOf<ErrorBody>(r).error;
    expect(e.code).toBe('validation_error');
    expect(e.details.issues).toEqual([expect.objectContaining({ path: 'rows', code: 'too_small' })]);
  });

  it('validates path and query too', async () => {
    const badPath = await echo(apiEvent({ body: { rows: 1 }, pathParameters: { id: 'a/../b' } }));
    expect(badPath.statusCode).toBe(400);
    expect(bodyOf<ErrorBody>(badPath).error.details.issues).toEqual([expect.objectContaining({ path: 'id' })]);
    const badQuery = await echo(apiEvent({ body: { rows: 1 }, query: { page: '0' }, pathParameters: { id: 'A' } }));
    expect(badQuery.statusCode).toBe(400);
  });

  it('validates an empty body as {}', async () => {
    const r = await echo(apiEvent({ method: 'POST', pathParameters: { id: 'A' } }));
    expect(r.statusCode).toBe(400);
    expect(bodyOf<ErrorBody>(r).error.details.issues).toEqual([expect.objectContaining({ path: 'rows' })]);
  });
});

describe('error mapping', () => {
  const throwing = (err: unknown) => http({ auth: 'none' }, async () => Promise.reject(err));

  it('maps AppErrors to their status and the docs/API.md body', async () => {
    const r = await throwing(notFound('Report not found'))(apiEvent());
    expect(r.statusCode).toBe(404);
    expect(bodyOf(r)).toEqual({ error: { code: 'not_found', message: 'Report not found', details: {} } });
    expect(r.headers?.['Content-Type']).toMatch(/application\/json/);
  });

  it('maps ReportError codes (415, 413, 422) keeping details', async () => {
    const r415 = await throwing(new ReportError('unsupported_format', 'not a report', { ext: 'pdf' }))(apiEvent());
    expect(r415.statusCode).toBe(415);
    expect(bodyOf<ErrorBody>(r415).error).toEqual({
      code: 'unsupported_format',
      message: 'not a report',
      details: { ext: 'pdf' },
    });
    expect((await throwing(new ReportError('file_too_large', 'big'))(apiEvent())).statusCode).toBe(413);
    const r422 = await throwing(new ReportError('missing_headers', 'no columns', { missing: ['Артикул поставщика'] }))(
      apiEvent(),
    );
    expect(r422.statusCode).toBe(422);
    expect(bodyOf<ErrorBody>(r422).error.details).toEqual({ missing: ['Артикул поставщика'] });
  });

  it('turns an unexpected failure into a 500 that says only "internal error"', async () => {
    const err = new Error(
      'ValidationException: One or more parameter values were invalid: table report-profitability-prod',
    );
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const event = apiEvent();
    const r = await throwing(err)(event);
    expect(r.statusCode).toBe(500);
    expect(bodyOf(r)).toEqual({ error: { code: 'internal_error', message: 'internal error', details: {} } });
    // The cause goes to the log (Powertools writes errors to stderr), tagged with the request id, and only there.
    const logged = spy.mock.calls.map((c) => String(c[0])).join('\n');
    spy.mockRestore();
    expect(logged).toContain(event.requestContext.requestId);
    expect(logged).toContain('ValidationException');
    expect(r.body).not.toContain('ValidationException');
    expect(r.body).not.toContain('report-profitability');
  });

  it('catches a thrown non-Error value too', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementationOnce(() => true);
    const r = await throwing('boom')(apiEvent());
    expect(r.statusCode).toBe(500);
  });

  it('sets no CORS headers itself: serverless.yml (API Gateway) is their one source', async () => {
    const r = await http({ auth: 'none' }, async () => json(201, { ok: true }))(apiEvent());
    expect(r.statusCode).toBe(201);
    expect(Object.keys(r.headers ?? {}).filter((h) => /^access-control-/i.test(h))).toEqual([]);
  });
});

describe('publicHttp: the stack without the caller step', () => {
  it('answers a public route without a token, with the same error model', async () => {
    const ok = await publicHttp({ auth: 'none' }, async (req) => json(200, { user: req.user }))(apiEvent());
    expect(ok.statusCode).toBe(200);
    expect(bodyOf(ok)).toEqual({ user: null });
    const bad = await publicHttp({ auth: 'none', body: z.object({ a: z.string() }) }, async () => json(200, {}))(
      apiEvent({ body: '{"a":1}' }),
    );
    expect(bad.statusCode).toBe(400);
    expect(bodyOf<ErrorBody>(bad).error.code).toBe('validation_error');
  });

  it('refuses, when built, a route that names a caller: it has no authenticator', () => {
    expect(() => publicHttp({ auth: 'user' } as unknown as { auth: 'none' }, async () => json(200, {}))).toThrow(
      /needs http\(\)/,
    );
  });
});

describe('auth', () => {
  const me = http({ auth: 'user' }, async (req) => json(200, { id: req.user.id }));
  const adminOnly = http({ auth: 'admin' }, async (req) => json(200, { id: req.user.id }));
  const access = (id: string) => signToken({ user_id: id }, 'access');

  it('lets a valid access token through with the loaded user', async () => {
    const r = await me(apiEvent({ token: access('seller1') }));
    expect(r.statusCode).toBe(200);
    expect(bodyOf(r)).toEqual({ id: 'seller1' });
  });

  it('reads the header case-insensitively', async () => {
    const r = await me(apiEvent({ headers: { Authorization: `Bearer ${access('seller1')}` } }));
    expect(r.statusCode).toBe(200);
  });

  it('401 without an Authorization header, with a malformed one, or a non-Bearer scheme', async () => {
    const variants: Record<string, string>[] = [
      {},
      { authorization: 'Bearer' },
      { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      { authorization: 'Bearer not-a-jwt' },
    ];
    for (const headers of variants) {
      const r = await me(apiEvent({ headers }));
      expect(r.statusCode).toBe(401);
      expect(bodyOf<ErrorBody>(r).error.code).toBe('unauthorized');
    }
  });

  it('401 for an expired token', async () => {
    const expired = jwt.sign(
      { user_id: 'seller1', scenario: 'access', exp: Math.floor(Date.now() / 1000) - 1 },
      SECRET,
      { algorithm: 'HS256', jwtid: 'j' },
    );
    expect((await me(apiEvent({ token: expired }))).statusCode).toBe(401);
  });

  it('401 for a confirm or reset token used as Bearer', async () => {
    expect((await me(apiEvent({ token: signToken({ user_id: 'seller1' }, 'confirm') }))).statusCode).toBe(401);
    expect((await me(apiEvent({ token: signToken({ user_id: 'seller1' }, 'reset') }))).statusCode).toBe(401);
  });

  it('401 for alg none and for RS256 tokens', async () => {
    const now = Math.floor(Date.now() / 1000);
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ user_id: 'admin1', scenario: 'access', jti: 'j', iat: now, exp: now + 60 })}.`;
    expect((await adminOnly(apiEvent({ token: none }))).statusCode).toBe(401);
    // HS256 signed with a different "key" (e.g. a public key) must fail as well.
    const confused = jwt.sign({ user_id: 'admin1', scenario: 'access' }, '-----BEGIN PUBLIC KEY-----fake', {
      algorithm: 'HS256',
      jwtid: 'j',
      expiresIn: 60,
    });
    expect((await adminOnly(apiEvent({ token: confused }))).statusCode).toBe(401);
  });

  it('401 when the user no longer exists', async () => {
    const token = access('seller1');
    users.delete('seller1');
    expect((await me(apiEvent({ token }))).statusCode).toBe(401);
  });

  it('403 for a seller on an admin route, 200 for an admin', async () => {
    const r = await adminOnly(apiEvent({ token: access('seller1') }));
    expect(r.statusCode).toBe(403);
    expect(bodyOf<ErrorBody>(r).error.code).toBe('forbidden');
    expect((await adminOnly(apiEvent({ token: access('admin1') }))).statusCode).toBe(200);
  });

  it('checks auth before validating the body', async () => {
    const strict = http({ auth: 'user', body: z.object({ rows: z.number() }) }, async () => json(200, {}));
    expect((await strict(apiEvent({ body: { rows: 'x' } }))).statusCode).toBe(401);
  });
});

describe('multipart', () => {
  const uploadRoute = {
    auth: 'none',
    multipart: true,
    body: z.object({ title: z.string().optional() }),
  } satisfies HttpOptions;
  const upload = http(uploadRoute, async (req: HttpRequest<typeof uploadRoute>) =>
    json(200, {
      filename: req.file?.filename ?? null,
      size: req.file?.size ?? null,
      head: req.file?.buffer.subarray(0, 4).toString('hex') ?? null,
      title: req.body.title ?? null,
    }),
  );

  it('parses the file field with a Cyrillic name and the text fields', async () => {
    const content = Buffer.from([0x50, 0x4b, 0x03, 0x04, ...Buffer.alloc(100, 7)]);
    const { body, contentType } = multipartBody({ filename: 'Отчёт №123.xlsx', content }, { title: 'Неделя 49' });
    const r = await upload(apiEvent({ method: 'POST', body, headers: { 'content-type': contentType } }));
    expect(r.statusCode).toBe(200);
    expect(bodyOf(r)).toEqual({ filename: 'Отчёт №123.xlsx', size: 104, head: '504b0304', title: 'Неделя 49' });
  });

  it('strips directories from the file name', async () => {
    const { body, contentType } = multipartBody({ filename: '..\\..\\evil.xlsx', content: Buffer.from('x') });
    const r = await upload(apiEvent({ method: 'POST', body, headers: { 'content-type': contentType } }));
    expect(bodyOf<{ filename: string }>(r).filename).toBe('evil.xlsx');
  });

  it('answers 413 file_too_large over the cap (MAX_UPLOAD_BYTES = 1000 here)', async () => {
    const { body, contentType } = multipartBody({ filename: 'big.xlsx', content: Buffer.alloc(1001) });
    const r = await upload(apiEvent({ method: 'POST', body, headers: { 'content-type': contentType } }));
    expect(r.statusCode).toBe(413);
    expect(bodyOf<ErrorBody>(r).error.code).toBe('file_too_large');
  });

  it('honours a per-route cap', async () => {
    const small = http({ auth: 'none', multipart: { maxFileBytes: 10 } }, async (req) =>
      json(200, { size: req.file?.size }),
    );
    const { body, contentType } = multipartBody({ filename: 'a.xls', content: Buffer.alloc(11) });
    expect((await small(apiEvent({ method: 'POST', body, headers: { 'content-type': contentType } }))).statusCode).toBe(
      413,
    );
  });

  it('answers a form without a file with file = null', async () => {
    const boundary = 'b0';
    const body = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nx\r\n--${boundary}--\r\n`,
    );
    const r = await upload(
      apiEvent({ method: 'POST', body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }),
    );
    expect(bodyOf(r)).toMatchObject({ filename: null, title: 'x' });
  });

  it('answers 400 for a multipart body without a boundary', async () => {
    const r = await upload(
      apiEvent({ method: 'POST', body: Buffer.from('garbage'), headers: { 'content-type': 'multipart/form-data' } }),
    );
    expect(r.statusCode).toBe(400);
    expect(bodyOf<ErrorBody>(r).error.code).toBe('invalid_multipart');
  });
});

describe('cold start', () => {
  it('building a handler with a setting missing fails at once, naming it', () => {
    const saved = process.env.TABLE_NAME;
    delete process.env.TABLE_NAME;
    try {
      let caught: unknown;
      try {
        http({ auth: 'none' }, async () => json(200, {}));
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      expect((caught as ConfigError).variables).toEqual(['TABLE_NAME']);
      expect((caught as Error).message).toContain('TABLE_NAME: missing');
    } finally {
      process.env.TABLE_NAME = saved;
    }
  });
});

describe('a JSON body that is not an object', () => {
  // Every route of the contract that takes a JSON body, run through the stack with auth out of the way:
  // `null`, `false`, `0`, a string and an array answer 400 validation_error before the route runs.
  // `false` and `0` also arrive as raw values (serverless-offline hands them so; API Gateway a string).
  const withBody = Object.entries(ROUTES).filter(([, r]) => 'body' in r && r.body);
  it('covers the routes that take a JSON body', () => expect(withBody.length).toBeGreaterThanOrEqual(15));
  const bodies: Array<[string, unknown]> = [
    ['null', 'null'],
    ['false', 'false'],
    ['0', '0'],
    ['a string', '"x"'],
    ['an array', '[]'],
    ['raw false', false],
    ['raw 0', 0],
    // serverless-offline hands a JSON `null` as null, with the request's content-length of 4
    ['raw null', null],
  ];
  describe.each(withBody)('%s', (_key, route) => {
    const handler = http({ ...routeOptions(route as RouteSpec), auth: 'none' as const }, async () =>
      json(200, { ran: true }),
    );
    it.each(bodies)('%s: 400 validation_error, the route does not run', async (_name, body) => {
      const event = apiEvent({
        method: route.method,
        body: 'x',
        headers: { 'content-type': 'application/json', 'content-length': '4' },
      });
      (event as { body?: unknown }).body = body;
      const r = await handler(event, {} as never);
      expect(r.statusCode).toBe(400);
      expect(bodyOf<ErrorBody>(r).error.code).toBe('validation_error');
    });
  });
});

describe("Lambda's payload limit on every route", () => {
  const big = http({ auth: 'none' }, async () => json(200, { text: 'x'.repeat(7 * 1024 * 1024) }));
  it('a big answer goes gzip-compressed to a client that accepts it', async () => {
    const r = await big(apiEvent({ method: 'GET', headers: { 'accept-encoding': 'gzip' } }), {} as never);
    expect(r.statusCode).toBe(200);
    expect(r.headers?.['Content-Encoding']).toBe('gzip');
  });
  it('and is 406 response_too_large, never sent, to one that does not', async () => {
    const r = await big(apiEvent({ method: 'GET' }), {} as never);
    expect(r.statusCode).toBe(406);
    expect(bodyOf<ErrorBody>(r).error.code).toBe('response_too_large');
  });
  it('a request body over the limit is 413 request_too_large before the route runs', async () => {
    const route = http({ auth: 'none', body: z.object({ a: z.string() }) }, async () => json(200, { ran: true }));
    const r = await route(
      apiEvent({ body: { a: 'x'.repeat(6.2 * 1024 * 1024) }, headers: { 'content-type': 'application/json' } }),
      {} as never,
    );
    expect(r.statusCode).toBe(413);
    expect(bodyOf<ErrorBody>(r).error.code).toBe('request_too_large');
  });
});
