import { describe, expect, it } from 'vitest';
import { handler } from './not-implemented.handler';

describe('not-implemented handler', () => {
  it('answers 501 with the error model of API.md', async () => {
    const r = await handler();
    expect(typeof r).toBe('object');
    const res = r as { statusCode: number; headers: Record<string, string>; body: string };
    expect(res.statusCode).toBe(501);
    expect(res.headers['content-type']).toBe('application/json');
    expect(JSON.parse(res.body)).toEqual({ error: { code: 'not_implemented', message: 'This route is not implemented yet' } });
  });
});
