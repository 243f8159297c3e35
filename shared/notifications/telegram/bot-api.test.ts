import { describe, expect, it } from 'vitest';
import { manualClock } from '../../deps';
import { createBotApi, createPacer, MAX_RETRY_AFTER_S, retryAfterMs } from './bot-api';

type Answer = { status: number; body: unknown } | Error;

/** A fetch that answers from a list and records every call (method, JSON body). */
function fakeFetch(answers: Answer[]) {
  const calls: Array<{ url: string; body: Record<string, unknown> }> = [];
  const f = (async (url: string, init: RequestInit) => {
    calls.push({ url, body: JSON.parse(String(init.body)) as Record<string, unknown> });
    const a = answers.shift() ?? { status: 200, body: { ok: true, result: { message_id: 1 } } };
    if (a instanceof Error) throw a;
    return new Response(typeof a.body === 'string' ? a.body : JSON.stringify(a.body), { status: a.status });
  }) as unknown as typeof fetch;
  return { f, calls };
}

function setup(answers: Answer[] = []) {
  const clock = manualClock('2026-12-01T10:00:00Z');
  const slept: number[] = [];
  const pacer = createPacer({
    clock,
    sleep: async (ms) => {
      slept.push(ms);
      clock.advance(ms);
    },
  });
  const { f, calls } = fakeFetch(answers);
  const bot = createBotApi({ apiUrl: 'https://tg.example/', token: '123:SECRET', pacer, fetch: f });
  return { bot, calls, slept, clock };
}

const msg = { chat_id: 42, text: 'hi' };

describe('sendMessage', () => {
  it('posts the message to /bot<token>/sendMessage and answers ok', async () => {
    const { bot, calls } = setup();
    await expect(bot.sendMessage({ ...msg, parse_mode: 'HTML', disable_web_page_preview: true })).resolves.toEqual({
      ok: true,
    });
    expect(calls[0]!.url).toBe('https://tg.example/bot123:SECRET/sendMessage');
    expect(calls[0]!.body).toEqual({ chat_id: 42, text: 'hi', parse_mode: 'HTML', disable_web_page_preview: true });
  });

  it("429: retry after Telegram's retry_after", async () => {
    const { bot } = setup([
      {
        status: 429,
        body: {
          ok: false,
          error_code: 429,
          description: 'Too Many Requests: retry after 7',
          parameters: { retry_after: 7 },
        },
      },
    ]);
    const r = await bot.sendMessage(msg);
    expect(r).toMatchObject({ ok: false, retry: true, retryAfterMs: 7000 });
  });

  it('429 with an absurd retry_after: capped; without one: 1 s', async () => {
    const { bot } = setup([
      { status: 429, body: { ok: false, error_code: 429, parameters: { retry_after: 1e12 } } },
      { status: 429, body: { ok: false, error_code: 429, parameters: { retry_after: -5 } } },
      { status: 429, body: 'not json' },
    ]);
    expect(await bot.sendMessage(msg)).toMatchObject({ retry: true, retryAfterMs: MAX_RETRY_AFTER_S * 1000 });
    expect(await bot.sendMessage(msg)).toMatchObject({ retry: true, retryAfterMs: 1000 });
    expect(await bot.sendMessage(msg)).toMatchObject({ retry: true, retryAfterMs: 1000 });
    expect(retryAfterMs(Number.POSITIVE_INFINITY)).toBe(1000);
    expect(retryAfterMs(2.5)).toBe(2500);
  });

  it('403 (bot blocked) and 400 chat not found: blocked, never again; another 400: rejected', async () => {
    const { bot } = setup([
      { status: 403, body: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' } },
      { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } },
      { status: 400, body: { ok: false, error_code: 400, description: "Bad Request: can't parse entities" } },
    ]);
    expect(await bot.sendMessage(msg)).toEqual({ ok: false, retry: false, reason: 'blocked' });
    expect(await bot.sendMessage(msg)).toEqual({ ok: false, retry: false, reason: 'blocked' });
    expect(await bot.sendMessage(msg)).toEqual({ ok: false, retry: false, reason: 'rejected' });
  });

  it('5xx, a network failure and a wrong token: retry, and the token never appears in the reason', async () => {
    const { bot } = setup([
      { status: 502, body: '<html>Bad Gateway</html>' },
      new TypeError('fetch failed https://tg.example/bot123:SECRET/sendMessage'),
      { status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } },
    ]);
    for (let i = 0; i < 3; i++) {
      const r = await bot.sendMessage(msg);
      expect(r).toMatchObject({ ok: false, retry: true });
      expect(JSON.stringify(r)).not.toContain('SECRET');
    }
  });

  it('hostile answers: a 200 that is not ok, not JSON or without a message is never taken for sent', async () => {
    const { bot } = setup([
      { status: 200, body: 'ok' },
      { status: 200, body: { ok: 'yes' } },
      { status: 200, body: { ok: true, result: 'sent!' } },
      { status: 200, body: { ok: false } },
      { status: 200, body: { ok: true, result: { message_id: 'x' }, description: 'x'.repeat(20_000) } },
    ]);
    for (let i = 0; i < 5; i++) expect(await bot.sendMessage(msg)).toMatchObject({ ok: false, retry: true });
  });
});

describe('pacing', () => {
  it('one message a second to one chat, on the injected clock', async () => {
    const { bot, slept, clock } = setup();
    const t0 = clock.now().getTime();
    await bot.sendMessage(msg);
    await bot.sendMessage(msg);
    await bot.sendMessage(msg);
    expect(clock.now().getTime() - t0).toBe(2000);
    expect(slept).toEqual([1000, 1000]);
  });

  it('about 30 a second overall: 60 messages to 60 chats take two seconds, none waits a chat', async () => {
    const { bot, clock } = setup();
    const t0 = clock.now().getTime();
    await Promise.all(Array.from({ length: 60 }, (_, i) => bot.sendMessage({ chat_id: i + 1, text: 'x' })));
    const elapsed = clock.now().getTime() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(59 * 33);
    expect(elapsed).toBeLessThanOrEqual(60 * 34);
  });

  it('no wait when the slot has passed', async () => {
    const { bot, slept, clock } = setup();
    await bot.sendMessage(msg);
    clock.advance(5000);
    await bot.sendMessage(msg);
    expect(slept).toEqual([]);
  });
});

describe('setWebhook and getMe', () => {
  it('setWebhook sends the url and the secret, and asks for messages only', async () => {
    const { bot, calls } = setup([{ status: 200, body: { ok: true, result: true, description: 'Webhook was set' } }]);
    await expect(
      bot.setWebhook({ url: 'https://api.example/api/telegram/webhook', secret_token: 's' }),
    ).resolves.toEqual({
      ok: true,
      result: true,
    });
    expect(calls[0]!.url).toMatch(/\/setWebhook$/);
    expect(calls[0]!.body).toEqual({
      url: 'https://api.example/api/telegram/webhook',
      secret_token: 's',
      allowed_updates: ['message'],
    });
  });

  it('getMe answers the bot; a result that is no user is a failure', async () => {
    const { bot } = setup([
      { status: 200, body: { ok: true, result: { id: 7, is_bot: true, first_name: 'B', username: 'ShopBot' } } },
      { status: 200, body: { ok: true, result: { id: 'seven' } } },
    ]);
    await expect(bot.getMe()).resolves.toEqual({ ok: true, result: { id: 7, username: 'ShopBot' } });
    await expect(bot.getMe()).resolves.toMatchObject({ ok: false, retry: true });
  });
});
