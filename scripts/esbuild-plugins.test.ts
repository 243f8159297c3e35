import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const { shimFor } = createRequire(__filename)('./esbuild-plugins.js') as {
  shimFor: (handler: string) => { dir: string; file: string; source: string } | null;
};

describe('lambda handler shims', () => {
  it('needs none when the handler file has no inner dot', () => {
    expect(shimFor('functions/reports/get.handler')).toBeNull();
  });

  it('lets the runtime’s first-dot lookup reach the bundle’s handler', () => {
    const shim = shimFor('functions/reports/get.handler.handler');
    expect(shim).toMatchObject({ dir: 'functions/reports', file: 'get.js' });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'shim-'));
    try {
      mkdirSync(path.join(dir, shim!.dir), { recursive: true });
      writeFileSync(path.join(dir, shim!.dir, 'get.handler.js'), 'exports.handler = () => "served";');
      writeFileSync(path.join(dir, shim!.dir, shim!.file), shim!.source);
      // What the runtime does for `get.handler.handler`: load `get`, then walk `handler.handler`.
      const mod = createRequire(__filename)(path.join(dir, shim!.dir, 'get')) as { handler: { handler: () => string } };
      expect(mod.handler.handler()).toBe('served');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
