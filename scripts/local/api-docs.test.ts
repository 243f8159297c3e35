import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiText } from '../../shared/contract/openapi';
import { startMailbox } from './mailbox';
import { freePort } from './ports';

describe('the API reference page of the local stack (mailbox server, /api-docs/)', () => {
  let base: string;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    const port = await freePort();
    // No SES emulator is needed for the API reference: the page never reads mail.
    const m = await startMailbox({ port, sesEndpoint: 'http://127.0.0.1:9', apiUrl: 'http://localhost:3999/api' });
    base = `http://127.0.0.1:${port}`;
    stop = m.stop;
  });
  afterAll(() => stop());

  it('serves Swagger UI from node_modules with the generated document, and every asset the page loads', async () => {
    const page = await fetch(`${base}/api-docs/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\/(?!localhost)/); // no CDN
    for (const src of html.matchAll(/(?:src|href)="\.\/([^"]+)"/g)) {
      const asset = await fetch(`${base}/api-docs/${src[1]}`);
      expect(asset.status, src[1]).toBe(200);
      expect((await asset.arrayBuffer()).byteLength, src[1]).toBeGreaterThan(100);
      if (src[1] === 'init.js')
        expect(await (await fetch(`${base}/api-docs/init.js`)).text()).toContain('./openapi.json');
    }
    const doc = (await (await fetch(`${base}/api-docs/openapi.json`)).json()) as {
      servers: Array<{ url: string }>;
      paths: Record<string, unknown>;
    };
    expect(doc.servers).toEqual([{ url: 'http://localhost:3999' }]);
    expect(doc.paths).toEqual((JSON.parse(openApiText()) as { paths: unknown }).paths);
    expect((await fetch(`${base}/api-docs`, { redirect: 'manual' })).headers.get('location')).toBe('/api-docs/');
    expect((await fetch(`${base}/api-docs/../package.json`)).status).not.toBe(200);
  });
});
