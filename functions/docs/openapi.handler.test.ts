import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../shared/contract/openapi';
import { apiEvent } from '../../shared/http/test-event';
import { handler } from './openapi.handler';

describe('GET /api/openapi.json', () => {
  it('answers the generated document to anyone, as JSON, with CORS', async () => {
    const r = await handler(apiEvent({ method: 'GET', path: '/api/openapi.json' }));
    expect(r.statusCode).toBe(200);
    expect(r.headers?.['Content-Type']).toMatch(/^application\/json/);
    expect(r.headers?.['Access-Control-Allow-Origin']).toBe('*');
    const doc = JSON.parse(r.body ?? '');
    expect(doc).toEqual(buildOpenApi());
    expect(Object.keys(doc.paths)).toContain('/api/reports/{id}');
  });
});
