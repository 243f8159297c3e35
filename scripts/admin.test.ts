import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../shared/config';
import { adminTarget, applyLocalDefaults, assertTargetAnswers, runAdmin } from './admin';
import { PORT_SETTINGS, stackFile, writeStackFile } from './local/port-settings';
import { freePort } from './local/ports';

describe('admin tool', () => {
  it('targets the local stack by default, with the stack’s JWT secret, and a valid configuration', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'admin-'));
    try {
      mkdirSync(path.join(root, '.data'));
      writeFileSync(path.join(root, '.data', 'jwt-secret'), 'kept-secret-of-the-local-stack-0123456789\n');
      const env: NodeJS.ProcessEnv = {};
      applyLocalDefaults(env, root);
      expect(env.DYNAMODB_ENDPOINT).toBe('http://localhost:8000');
      expect(env.TABLE_NAME).toBe('report-profitability-local');
      expect(env.JWT_SECRET).toBe('kept-secret-of-the-local-stack-0123456789');
      expect(parseConfig(env).DYNAMODB_ENDPOINT).toBe('http://localhost:8000');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('keeps what the environment sets (port, endpoint, table)', () => {
    const env: NodeJS.ProcessEnv = { DYNAMODB_PORT: '8111', TABLE_NAME: 'other' };
    applyLocalDefaults(env, os.tmpdir());
    expect(env.DYNAMODB_ENDPOINT).toBe('http://localhost:8111');
    expect(env.TABLE_NAME).toBe('other');
    const aws: NodeJS.ProcessEnv = { DYNAMODB_ENDPOINT: '' };
    applyLocalDefaults(aws, os.tmpdir());
    expect(parseConfig(aws).DYNAMODB_ENDPOINT).toBeUndefined();
    expect(aws.AWS_ACCESS_KEY_ID).toBeUndefined();
  });

  it('prints usage for unknown commands and refuses non-positive rows without touching the store', async () => {
    const lines: string[] = [];
    expect(await runAdmin([], (l) => lines.push(l))).toBe(2);
    expect(lines.join('\n')).toContain('npm run admin -- grant <email>');
    expect(await runAdmin(['top-up', 'a@b.c', '-5'], (l) => lines.push(l))).toBe(2);
    expect(await runAdmin(['top-up', 'a@b.c', '1.5'], (l) => lines.push(l))).toBe(2);
    expect(lines.at(-1)).toBe('rows must be a positive integer, got "1.5"');
  });
});

describe('admin tool: which DynamoDB (the port settings of npm start, never a silent guess)', () => {
  function withRoot(run: (root: string) => Promise<void> | void) {
    return async () => {
      const root = mkdtempSync(path.join(os.tmpdir(), 'admin-target-'));
      mkdirSync(path.join(root, '.data'));
      try {
        await run(root);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    };
  }

  it(
    'takes DYNAMODB_ENDPOINT, else DYNAMODB_PORT, and refuses a DYNAMODB_PORT that is no port',
    withRoot((root) => {
      expect(adminTarget({ DYNAMODB_ENDPOINT: 'http://db:9000' }, root)).toMatchObject({
        endpoint: 'http://db:9000',
        local: true,
      });
      expect(adminTarget({ DYNAMODB_ENDPOINT: '' }, root)).toMatchObject({ endpoint: null, local: false });
      expect(adminTarget({ DYNAMODB_PORT: '8111' }, root)).toEqual({
        endpoint: 'http://localhost:8111',
        local: true,
        reason: 'DYNAMODB_PORT=8111',
      });
      expect(() => adminTarget({ DYNAMODB_PORT: 'abc' }, root)).toThrow('DYNAMODB_PORT=abc is not a port number');
    }),
  );

  it(
    'finds the port of the stack running on the same data folder (RP_DATA_DIR too), not the default',
    withRoot((root) => {
      const ports = {
        api: 1,
        lambda: 2,
        web: 3,
        dynamodb: 45678,
        s3: 4,
        ses: 5,
        mailbox: 6,
        wbEmulator: 7,
        telegramEmulator: 8,
      };
      const forget = writeStackFile(path.join(root, '.data'), ports, process.pid);
      expect(adminTarget({}, root)).toMatchObject({ endpoint: 'http://localhost:45678' });
      expect(adminTarget({}, root).reason).toContain(`pid ${process.pid}`);
      // DYNAMODB_PORT still wins: the operator said where.
      expect(adminTarget({ DYNAMODB_PORT: '8111' }, root).endpoint).toBe('http://localhost:8111');
      forget();
      expect(existsSync(stackFile(path.join(root, '.data')))).toBe(false);

      const other = path.join(root, 'elsewhere');
      mkdirSync(other);
      writeStackFile(other, { ...ports, dynamodb: 45679 }, process.pid);
      expect(adminTarget({ RP_DATA_DIR: other }, root).endpoint).toBe('http://localhost:45679');
    }),
  );

  it(
    'falls back to the default port only saying so, when the recorded stack is gone',
    withRoot((root) => {
      const ports = {
        api: 1,
        lambda: 2,
        web: 3,
        dynamodb: 45678,
        s3: 4,
        ses: 5,
        mailbox: 6,
        wbEmulator: 7,
        telegramEmulator: 8,
      };
      // A pid no process has (pid_max is below 2^22 on Linux).
      writeStackFile(path.join(root, '.data'), ports, 2 ** 22 + 1);
      const t = adminTarget({}, root);
      expect(t.endpoint).toBe(`http://localhost:${PORT_SETTINGS.dynamodb.default}`);
      expect(t.reason).toContain('DYNAMODB_PORT unset');
    }),
  );

  it('refuses when nothing answers at the local endpoint, naming the settings; goes on when something does', async () => {
    const port = await freePort();
    const target = { endpoint: `http://localhost:${port}`, local: true, reason: `DYNAMODB_PORT=${port}` };
    await expect(assertTargetAnswers(target, 500)).rejects.toThrow(
      new RegExp(`Nothing answers at http://localhost:${port} \\(DYNAMODB_PORT=${port}\\).*npm start.*DYNAMODB_PORT`),
    );
    const srv = net.createServer((s) => s.destroy());
    await new Promise<void>((r) => srv.listen(port, '127.0.0.1', () => r()));
    try {
      await expect(assertTargetAnswers(target, 500)).resolves.toBeUndefined();
    } finally {
      await new Promise((r) => srv.close(r));
    }
    await expect(assertTargetAnswers({ endpoint: null, local: false, reason: 'AWS' })).resolves.toBeUndefined();
  });
});
