/**
 * The balance client against hostile answers: WB's `fetch` replaced by one answering a fixed Response
 * (this module alone; the emulator's balance is tested in scripts/local/wb-emulator.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { createBalanceClient, MAX_BALANCE_BODY_BYTES, parseBalance } from './client';

const answer = (body: ConstructorParameters<typeof Response>[0], init: ResponseInit = {}) =>
  createBalanceClient({
    baseUrl: 'https://finance.example/',
    token: 't',
    fetch: async (url, req) => {
      expect(url).toBe('https://finance.example/api/v1/account/balance');
      expect(req.method).toBe('GET');
      expect(req.redirect).toBe('manual');
      return new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' }, ...init });
    },
  }).getBalance();

describe('balance client', () => {
  it('reads WB’s shape in kopecks, exactly (numbers and decimal strings)', async () => {
    expect(await answer('{"currency":"RUB","current":10196.21,"for_withdraw":6395.8}')).toEqual({
      kind: 'ok',
      value: { currency: 'RUB', current: 10_196_21, for_withdraw: 6_395_80 },
    });
    expect(await answer('{"currency":"rub","current":"0.1","for_withdraw":"0"}')).toEqual({
      kind: 'ok',
      value: { currency: 'RUB', current: 10, for_withdraw: 0 },
    });
    // A list of one balance per currency (as some public clients see it): the roubles one.
    expect(
      await answer('[{"currency":"KZT","current":5,"for_withdraw":5},{"currency":"RUB","current":7,"for_withdraw":1}]'),
    ).toMatchObject({ kind: 'ok', value: { current: 700, for_withdraw: 100 } });
    // A debt to WB: «На балансе» below zero is WB's word; «Можно вывести» never is.
    expect(await answer('{"currency":"RUB","current":-12.5,"for_withdraw":0}')).toMatchObject({
      kind: 'ok',
      value: { current: -1250 },
    });
  });

  it('refuses what is not a balance: negative withdrawable, absurd, non-numbers, another currency, HTML, missing fields', async () => {
    const refused = async (body: string, why: RegExp) => {
      const r = await answer(body);
      expect(r.kind).toBe('invalid_response');
      expect(r.kind === 'invalid_response' && r.message).toMatch(why);
    };
    await refused('{"currency":"RUB","current":10,"for_withdraw":-1}', /for_withdraw is negative/);
    await refused('{"currency":"RUB","current":1e300,"for_withdraw":0}', /current: not an amount/);
    await refused('{"currency":"RUB","current":100000000001,"for_withdraw":0}', /current: not an amount/);
    await refused('{"currency":"RUB","current":"NaN","for_withdraw":0}', /current: not an amount/);
    await refused('{"currency":"RUB","current":"1e5","for_withdraw":0}', /current: not an amount/);
    await refused('{"currency":"RUB","current":true,"for_withdraw":0}', /current/);
    await refused('{"currency":"USD","current":1,"for_withdraw":1}', /currency USD is not roubles/);
    await refused('{"currency":"рубли","current":1,"for_withdraw":1}', /currency/);
    await refused('{"currency":"RUB","current":1}', /for_withdraw/);
    await refused('<html><body>Bad gateway</body></html>', /not JSON/);
    await refused('[]', /not one balance/);
    await refused('"RUB"', /body|currency/);
    expect(parseBalance(null)).toMatchObject({ ok: false });
  });

  it('an empty 200 is empty; a body over the bound is refused without reading it all', async () => {
    expect(await answer('')).toEqual({ kind: 'empty' });
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled++;
        c.enqueue(new TextEncoder().encode(' '.repeat(4096)));
      },
    });
    const r = await answer(endless);
    expect(r).toEqual({ kind: 'invalid_response', message: `the answer is over ${MAX_BALANCE_BODY_BYTES} bytes` });
    expect(pulled).toBeLessThan(MAX_BALANCE_BODY_BYTES / 4096 + 4);
  });

  it('WB’s refusals as the other calls map them: 401/403 with WB’s text, 429 with its wait, 5xx, a redirect', async () => {
    expect(await answer('{"detail":"token scope not allowed"}', { status: 401 })).toEqual({
      kind: 'unauthorized',
      message: 'token scope not allowed',
    });
    expect(await answer('{"title":"forbidden"}', { status: 403 })).toEqual({ kind: 'forbidden', message: 'forbidden' });
    expect(await answer(null, { status: 429, headers: { 'X-Ratelimit-Retry': '42' } })).toMatchObject({
      kind: 'rate_limited',
      retryAfterSeconds: 42,
    });
    expect(await answer(null, { status: 429, headers: { 'Retry-After': '7' } })).toMatchObject({
      kind: 'rate_limited',
      retryAfterSeconds: 7,
    });
    expect(await answer('oops', { status: 502 })).toEqual({ kind: 'server_error', status: 502, message: 'oops' });
    expect(await answer(null, { status: 307, headers: { Location: 'https://evil.example/x?token=1' } })).toEqual({
      kind: 'server_error',
      status: 307,
      message: 'redirect not followed (to evil.example)',
    });
  });
});
