import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, PortInUseError } from '../../scripts/local/ports';
import { startStack, type Stack } from '../../scripts/local/stack';
import { waitForMail } from '../support/emulators';

/**
 * The local stack as `npm start` runs it (on free ports, data in a temp folder): a person can log
 * in with the printed demo account, registration mail reaches the mailbox page, the web app proxies
 * the API, data survives a restart, and stop() leaves nothing listening.
 */
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'rp-stack-'));
let stack: Stack | undefined;
let firstPorts: Stack['ports'] | undefined;

afterAll(async () => {
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1' });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

async function login(api: string, email: string, password: string) {
  const res = await fetch(`${api}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  return { status: res.status, body: (await res.json()) as { token?: string; user?: { email: string } } };
}

describe('local stack (npm start)', () => {
  it('serves the demo account, mail and the web app, and stops completely', async () => {
    stack = await startStack({ dataDir, freePorts: true });
    const s = stack;
    expect(s.demo.created).toBe(true);
    expect(readFileSync(path.join(dataDir, 'demo-password'), 'utf8').trim()).toBe(s.demo.password);

    const signedIn = await login(s.urls.api, s.demo.email, s.demo.password);
    expect(signedIn.status).toBe(200);
    const me = await fetch(`${s.urls.api}/auth/me`, { headers: { authorization: `Bearer ${signedIn.body.token}` } });
    expect(((await me.json()) as { user: { email: string; confirmed: boolean } }).user).toMatchObject({
      email: 'demo@example.com',
      confirmed: true,
    });

    // Registration mail appears in the SES store and on the mailbox page with its link.
    const reg = await fetch(`${s.urls.api}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'new.person@example.com' }),
    });
    expect(reg.status).toBe(202);
    const mail = await waitForMail(s.env.SES_ENDPOINT!, 'new.person@example.com');
    const confirmLink = mail.links.find((l) => l.includes('/confirm?token='));
    expect(confirmLink?.startsWith(`http://localhost:${s.ports.web}/confirm?token=`)).toBe(true);
    const page = await (await fetch(s.urls.mailbox)).text();
    expect(page).toContain('new.person@example.com');
    expect(page).toContain(`<a href="${confirmLink}">`);

    if (s.urls.web) {
      const viaWeb = await fetch(`http://127.0.0.1:${s.ports.web}/api/auth/me`);
      expect(viaWeb.status).toBe(401);
    }

    const ports = s.ports;
    firstPorts = ports;
    await s.stop();
    stack = undefined;
    for (const port of [ports.api, ports.dynamodb, ports.s3, ports.ses, ports.mailbox, ports.web]) {
      expect(await answers(port), `port ${port}`).toBe(false);
    }
  });

  it('keeps accounts and the demo password across a restart', async () => {
    // Same ports, as `npm start` uses them (and as the shared AWS clients of this process expect:
    // they are made once per process, so one process runs one stack address at a time).
    stack = await startStack({ dataDir, ports: firstPorts, web: false });
    expect(stack.demo.created).toBe(false);
    expect(stack.demo.passwordKnown).toBe(true);
    const again = await login(stack.urls.api, stack.demo.email, stack.demo.password);
    expect(again.status).toBe(200);
    await stack.stop();
    stack = undefined;
  });

  it('refuses a busy port by name before starting anything', async () => {
    const busy = net.createServer();
    const apiPort = await freePort();
    await new Promise<void>((r) => busy.listen(apiPort, '127.0.0.1', () => r()));
    const dynamodb = await freePort();
    try {
      const err = await startStack({ dataDir, freePorts: true, web: false, ports: { api: apiPort, dynamodb } }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(PortInUseError);
      expect((err as PortInUseError).variable).toBe('API_PORT');
      expect(await answers(dynamodb)).toBe(false);
    } finally {
      await new Promise((r) => busy.close(r));
    }
  });
});
