import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../shared/config';
import { applyLocalDefaults, runAdmin } from './admin';

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
