import { describe, expect, it } from 'vitest';
import { readWhole, wbExchange } from './http';
import type { FetchLike } from './wb-types';

const anything = readWhole<unknown>(
  (json) => ({ success: true, data: json }),
  () => false,
);

function answering(res: () => Response): { fetch: FetchLike; inits: RequestInit[] } {
  const inits: RequestInit[] = [];
  return {
    inits,
    fetch: async (_url, init) => {
      inits.push(init);
      return res();
    },
  };
}

describe('wbExchange', () => {
  it('asks fetch not to follow redirects, and a 3xx is an error naming the host only', async () => {
    const f = answering(
      () => new Response(null, { status: 307, headers: { Location: 'http://evil.example/x?token=1' } }),
    );
    const out = await wbExchange({ baseUrl: 'http://wb', token: 't', fetch: f.fetch }, 'POST', '/p', {}, anything);
    expect(f.inits[0]?.redirect).toBe('manual');
    expect(out).toEqual({ kind: 'server_error', status: 307, message: 'redirect not followed (to evil.example)' });
  });

  it('a 429 wait that is not a finite number is Infinity (the rate policy caps it); absent → 60 s', async () => {
    const cases: Array<[string | null, number]> = [
      ['1e12', 1e12],
      ['1e999', Infinity],
      ['Infinity', Infinity],
      ['soon', Infinity],
      ['-5', 60],
      [null, 60],
    ];
    for (const [value, expected] of cases) {
      const f = answering(
        () => new Response(null, { status: 429, headers: value === null ? {} : { 'X-Ratelimit-Retry': value } }),
      );
      const out = await wbExchange({ baseUrl: 'http://wb', token: 't', fetch: f.fetch }, 'GET', '/p', null, anything);
      expect(out, String(value)).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: expected });
    }
  });
});
