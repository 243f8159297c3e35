/**
 * Signing up by mail as a person does: register, follow the link in the confirmation mail, take the
 * password from the next mail, sign in. The e2e suites drive it over HTTP (`signUpByMail`); the mail
 * readers also serve the in-process and browser suites, so every suite reads the letters one way.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { waitForMail, type SentMail } from './emulators';

export const CONFIRM_SUBJECT = 'Подтвердите адрес электронной почты';
export const PASSWORD_SUBJECT = 'Ваш пароль для входа';

/** The link with a confirmation token in a mail (the confirm mail and the reset mail carry one). */
export function confirmLinkOf(mail: SentMail): string {
  const link = mail.links.find((l) => l.includes('/confirm?token='));
  expect(link, `confirmation link in "${mail.subject}": ${JSON.stringify(mail.links)}`).toBeTruthy();
  return link as string;
}

/** The token of that link. */
export function confirmTokenOf(mail: SentMail): string {
  return new URL(confirmLinkOf(mail)).searchParams.get('token') as string;
}

/** The password in a password mail: it stands on a line of its own between blank lines. */
export function passwordOf(mail: SentMail): string {
  const found = /\n\n([A-Za-z0-9]{12,})\n\n/.exec(mail.text);
  expect(found, `password in "${mail.subject}": ${mail.text}`).not.toBeNull();
  return (found as RegExpExecArray)[1]!;
}

interface HttpAnswer<T> {
  status: number;
  body: T;
  headers: Headers;
}

export type HttpCall = <T = Record<string, unknown>>(
  method: string,
  route: string,
  opts?: { body?: unknown; token?: string },
) => Promise<HttpAnswer<T>>;

/**
 * JSON calls to the API at apiUrl, as a browser's fetch makes them. Redirects are answered, not
 * followed, so a test sees a 302 as a 302 (the source download redirects to S3 for big files). Each call
 * has a connection of its own (`agent: false`): a kept-alive one that the server closes while a test
 * prepares its next request (a generated file, a restarted stack) would fail that request with
 * «other side closed» on a slow machine, for no fault of the API.
 */
export function httpApi(apiUrl: string): HttpCall {
  return async <T>(method: string, route: string, opts: { body?: unknown; token?: string } = {}) => {
    // As a browser: gzip accepted (a report-sized answer comes compressed).
    const headers: Record<string, string> = { 'accept-encoding': 'gzip' };
    const body = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
    if (body) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(body.length);
    }
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const url = new URL(`${apiUrl}${route}`);
    const res = await new Promise<{ status: number; text: string; headers: Headers }>((resolve, reject) => {
      const req = httpRequest(url, { method, headers, agent: false }, (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('error', reject);
        r.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(r.headers)) {
            for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) h.append(k, one);
          }
          const raw = Buffer.concat(chunks);
          const text = (r.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
          resolve({ status: r.statusCode ?? 0, text, headers: h });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
    return { status: res.status, body: (res.text ? JSON.parse(res.text) : null) as T, headers: res.headers };
  };
}

export interface SignedUp {
  email: string;
  password: string;
  /** The access token of the first sign-in. */
  token: string;
  user: { id: string; limits: number };
}

/** Register → confirm mail → its link → password mail → sign in, over HTTP, checking every answer. */
export async function signUpByMail(
  apiUrl: string,
  sesEndpoint: string,
  email = `e2e-${randomUUID()}@example.com`,
): Promise<SignedUp> {
  const call = httpApi(apiUrl);
  expect((await call('POST', '/auth/register', { body: { email } })).status).toBe(202);
  const confirmToken = confirmTokenOf(await waitForMail(sesEndpoint, email, (m) => m.subject === CONFIRM_SUBJECT));
  const confirmed = await call('GET', `/auth/confirm?token=${encodeURIComponent(confirmToken)}`);
  expect(confirmed.status).toBe(200);
  expect(confirmed.body).toEqual({ status: 'confirmed', email });
  const password = passwordOf(await waitForMail(sesEndpoint, email, (m) => m.subject === PASSWORD_SUBJECT));
  const login = await call<{ token: string; user: { id: string; limits: number } }>('POST', '/auth/login', {
    body: { email, password },
  });
  expect(login.status).toBe(200);
  return { email, password, token: login.body.token, user: login.body.user };
}
