/**
 * The tests run on the Node major the functions run on Lambda (serverless.base.yml `provider.runtime`),
 * whatever Node the machine has: `npm test`, `npm run …` and `npx` put node_modules/.bin first on PATH,
 * where the pinned `node-linux-*` package (package.json optionalDependencies) installs `node`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '..');

describe('the Node the tests run on', () => {
  it('is the major of the Lambda runtime and of the pinned node package, and esbuild targets it', () => {
    const base = readFileSync(path.join(root, 'serverless.base.yml'), 'utf8');
    const runtime = /^\s+runtime: nodejs(\d+)\.x$/m.exec(base)?.[1];
    const target = /^\s+target: node(\d+)$/m.exec(base)?.[1];
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      optionalDependencies: Record<string, string>;
    };
    const pinned = Object.entries(pkg.optionalDependencies).filter(([name]) => name.startsWith('node-linux-'));
    expect(runtime).toBe('24');
    expect(target).toBe(runtime);
    expect(pinned.length).toBeGreaterThan(0);
    for (const [, version] of pinned) expect(version.split('.')[0]).toBe(runtime);
    expect(process.versions.node.split('.')[0]).toBe(runtime);
  });
});
