/**
 * The JWT key read from SSM Parameter Store on the real path (shared/secrets.ts): moto's SSM server
 * over a real connection holds a SecureString, Powertools Parameters reads and decrypts it through the
 * SDK, and a handler verifies sessions with it. JWT_SECRET (the local value) is not set meanwhile, so
 * nothing else could have signed or verified.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as meHandler } from '../../functions/auth/me.handler';
import { resetSecrets } from '../../shared/secrets';
import { createUser } from '../../shared/store/users.repo';
import { freePorts } from '../../scripts/local/ports';
import { apiEvent, bodyOf } from '../support/test-event';

const PARAMETER = `/report-profitability/test/jwt-secret-${randomUUID()}`;
const VALUE = `ssm-${randomUUID()}-${randomUUID()}`;
let moto: ChildProcess;
const saved = { JWT_SECRET: process.env.JWT_SECRET, AWS_ENDPOINT_URL_SSM: process.env.AWS_ENDPOINT_URL_SSM };

beforeAll(async () => {
  const [port] = await freePorts(1);
  moto = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(`${endpoint}/moto-api/`);
      break;
    } catch (e) {
      if (i > 100) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const ssm = new SSMClient({ endpoint, region: process.env.AWS_REGION ?? 'eu-central-1' });
  await ssm.send(new PutParameterCommand({ Name: PARAMETER, Value: VALUE, Type: 'SecureString' }));
  process.env.AWS_ENDPOINT_URL_SSM = endpoint;
  process.env.JWT_SECRET_PARAMETER = PARAMETER;
  delete process.env.JWT_SECRET;
  resetSecrets();
}, 60_000);

afterAll(() => {
  moto?.kill();
  delete process.env.JWT_SECRET_PARAMETER;
  Object.assign(process.env, saved);
  if (saved.AWS_ENDPOINT_URL_SSM === undefined) delete process.env.AWS_ENDPOINT_URL_SSM;
  resetSecrets();
});

const session = (userId: string, key: string) =>
  jwt.sign({ user_id: userId, scenario: 'access', iat_ms: Date.now() }, key, {
    algorithm: 'HS256',
    expiresIn: '1h',
    jwtid: randomUUID(),
  });

describe('the JWT key from SSM Parameter Store', () => {
  it('verifies a session signed with the SecureString and refuses one signed with another key', async () => {
    const u = await createUser({
      email: `ssm-${randomUUID()}@example.com`,
      confirmed: true,
      passwordHash: 'x',
      limits: 0,
    });
    const ok = await meHandler(apiEvent({ method: 'GET', path: '/api/auth/me', token: session(u.id, VALUE) }));
    expect(ok.statusCode).toBe(200);
    expect(bodyOf<{ user: { id: string } }>(ok).user.id).toBe(u.id);
    const other = await meHandler(
      apiEvent({ method: 'GET', path: '/api/auth/me', token: session(u.id, 'another-key-another-key-another') }),
    );
    expect(other.statusCode).toBe(401);
  });
});
