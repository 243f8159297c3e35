import { describe, expect, it, vi } from 'vitest';
import { buildOpenApi } from '../../shared/contract/openapi';
import { apiEvent } from '../../test/support/test-event';
import { handler } from './openapi.handler';

// publicRoute() parses the configuration when the handler module loads (cold start), as on Lambda, where
// every function gets the provider's environment.
vi.hoisted(() =>
  Object.assign(process.env, {
    JWT_SECRET: 'unit-test-secret-unit-test-secret',
    TABLE_NAME: 't',
    BUCKET_NAME: 'bucket',
    MAIL_FROM: 'noreply@example.com',
    APP_URL: 'http://localhost:5173',
  }),
);

describe('GET /api/openapi.json', () => {
  it('answers the generated document to anyone, as JSON (CORS is API Gateway’s: serverless.yml httpApi.cors)', async () => {
    const r = await handler(apiEvent({ method: 'GET', path: '/api/openapi.json' }));
    expect(r.statusCode).toBe(200);
    expect(r.headers?.['Content-Type']).toMatch(/^application\/json/);
    const doc = JSON.parse(r.body ?? '');
    expect(doc).toEqual(buildOpenApi());
    expect(Object.keys(doc.paths)).toContain('/api/reports/{id}');
    expect(Object.keys(doc.paths)).toContain('/api/analytics');
  });
});
