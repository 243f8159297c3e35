/**
 * The account path over real HTTP: serverless-offline serving the bundled handlers, against DynamoDB
 * Local and the SES emulator. The admin is made with the operator tool itself (`npm run admin`'s
 * script), as an operator would.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulators } from '../support/emulators';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import type { Offline } from '../support/offline';
import { signUpByMail, type HttpCall } from '../support/sign-up';

const root = path.resolve(__dirname, '..', '..');
let emulators: Emulators;
let offline: Offline;
let call: HttpCall;
let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack();
  ({ emulators, offline, call } = stack);
});

const signUp = (email: string) => signUpByMail(offline.apiUrl, emulators.env.SES_ENDPOINT!, email);

afterAll(async () => {
  await stack?.stop();
});

/**
 * Runs the operator tool. Asynchronously on purpose: a spawnSync blocks this process's event loop for
 * the tool's whole run (seconds under load), longer than the server's keep-alive timeout, so the
 * pooled connection's close is only seen after the next request was written on it ("fetch failed:
 * other side closed"). With the loop free, the client notices the close and opens a new connection.
 */
function admin(...args: string[]): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [require.resolve('tsx/cli', { paths: [root] }), 'scripts/admin.ts', ...args],
      { cwd: root, env: { ...process.env, ...emulators.env }, encoding: 'utf8' },
      (err, stdout, stderr) => {
        const status = err ? (typeof err.code === 'number' ? err.code : null) : 0;
        resolve({ status, out: `${stdout}${stderr}` });
      },
    );
  });
}

describe('auth over HTTP (serverless-offline)', () => {
  it('register → mail → confirm link → password mail → login → me → top-up by an admin → limit history', async () => {
    const email = `e2e-${randomUUID()}@example.com`;
    const { token, user } = await signUp(email);

    const me = await call<{ user: Record<string, unknown> }>('GET', '/auth/me', { token });
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({
      id: user.id,
      email,
      role: 'seller',
      confirmed: true,
      limits: 10_000,
      initial_limits: 10_000,
    });

    // CORS comes from serverless.yml's httpApi.cors alone (the handlers set none): the web origin
    // (webOrigin, http://localhost:5173 by default) is answered, and a preflight admits the headers
    // the web sends and exposes the ones it reads.
    const webOrigin = 'http://localhost:5173';
    const fromWeb = await fetch(`${offline.apiUrl}/auth/me`, {
      headers: { authorization: `Bearer ${token}`, origin: webOrigin },
    });
    expect(fromWeb.status).toBe(200);
    expect(fromWeb.headers.get('access-control-allow-origin')).toBe(webOrigin);
    expect(fromWeb.headers.get('access-control-expose-headers')?.split(',')).toEqual(
      expect.arrayContaining(['Content-Disposition', 'Location', 'Retry-After']),
    );
    const preflight = await fetch(`${offline.apiUrl}/reports/upload`, {
      method: 'OPTIONS',
      headers: {
        origin: webOrigin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(webOrigin);
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase().split(',')).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'idempotency-key']),
    );
    expect(preflight.headers.get('access-control-allow-methods')?.split(',')).toContain('POST');

    const adminEmail = `e2e-admin-${randomUUID()}@example.com`;
    const adminSession = await signUp(adminEmail);
    expect(
      (await call('POST', '/auth/top-up', { token: adminSession.token, body: { email, rows: 2500 } })).status,
    ).toBe(403);
    const granted = await admin('grant', adminEmail);
    expect(granted.status, granted.out).toBe(0);

    const topUp = await call('POST', '/auth/top-up', {
      token: adminSession.token,
      body: { email, rows: 2500, idempotency_key: 'e2e-1' },
    });
    expect(topUp.status).toBe(200);
    expect(topUp.body).toEqual({ user_id: user.id, limits: 12_500, initial_limits: 12_500 });
    const repeat = await call('POST', '/auth/top-up', {
      token: adminSession.token,
      body: { email, rows: 2500, idempotency_key: 'e2e-1' },
    });
    expect(repeat.body).toEqual(topUp.body);

    // The operator tool's own top-up goes through the same transaction.
    const cli = await admin('top-up', email, '500');
    expect(cli.status, cli.out).toBe(0);
    expect(cli.out).toContain('limits 13000');

    const history = await call<{ items: Array<Record<string, unknown>>; next_cursor: string | null }>(
      'GET',
      '/auth/limit-history',
      { token },
    );
    expect(history.status).toBe(200);
    expect(history.body.next_cursor).toBeNull();
    expect(history.body.items.map((h) => [h.operation, h.rows, h.limits_after])).toEqual([
      ['topup', 500, 13_000],
      ['topup', 2500, 12_500],
    ]);
    expect((await call<{ user: { limits: number } }>('GET', '/auth/me', { token })).body.user.limits).toBe(13_000);
  });

  it('a JSON body that is not an object is 400 over HTTP too (serverless-offline hands `null` as no body)', async () => {
    const { token } = await signUp(`e2e-${randomUUID()}@example.com`);
    for (const [method, route] of [
      ['PATCH', '/auth/me'],
      ['POST', '/reports/rebuild'],
    ] as const)
      // (A JSON string is left out: serverless-offline hands `"x"` as the text x, which is invalid_json
      // here and validation_error on API Gateway; shared/http/handler.test.ts has it as API Gateway sends it.)
      for (const body of ['null', 'false', '0', '[]']) {
        const r = await fetch(`${offline.apiUrl}${route}`, {
          method,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body,
        });
        expect(r.status, `${method} ${route} ${body}`).toBe(400);
        expect(((await r.json()) as { error: { code: string } }).error.code).toBe('validation_error');
      }
  });

  it('answers errors in the API shape over HTTP (no 200 errorMessage from a crash)', async () => {
    const unauth = await call('GET', '/auth/me');
    expect(unauth.status).toBe(401);
    expect(unauth.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String), details: {} } });

    const badJson = await fetch(`${offline.apiUrl}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email":',
    });
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as { error: { code: string } }).error.code).toBe('invalid_json');

    const badLink = await call('GET', '/auth/confirm?token=nope');
    expect(badLink.status).toBe(400);
    expect(badLink.body).toMatchObject({ error: { code: 'invalid_token' } });

    const wrong = await call('POST', '/auth/login', {
      body: { email: `nobody-${randomUUID()}@example.com`, password: 'x'.repeat(12) },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ error: { code: 'invalid_credentials' } });
  });
});
