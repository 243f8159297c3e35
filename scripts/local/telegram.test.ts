import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../shared/deps';
import { createBotApi, createPacer } from '../../shared/notifications/telegram/bot-api';
import { startTelegramEmulator, type TelegramEmulator } from './telegram';

const TOKEN = '123456:emulator-token';
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

async function emulator(now?: () => Date): Promise<TelegramEmulator> {
  const e = await startTelegramEmulator({ token: TOKEN, botName: 'TestShopBot', now });
  open.push(e);
  return e;
}

const bot = (e: TelegramEmulator, token = TOKEN) => {
  const clock = manualClock();
  return createBotApi({
    apiUrl: e.url,
    token,
    pacer: createPacer({ clock, sleep: async (ms) => clock.advance(ms) }),
  });
};

/** A webhook receiver: records what arrives, answers with `reply(update)`. */
async function receiver(reply: (update: { message?: { chat: { id: number }; text?: string } }) => unknown) {
  const got: Array<{ headers: http.IncomingHttpHeaders; body: Record<string, unknown> }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      got.push({ headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply(body as never)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const closer = { close: () => new Promise<void>((r) => server.close(() => r())) };
  open.push(closer);
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`, got };
}

describe('the Telegram emulator', () => {
  it('sendMessage keeps the message with its arrival time; /messages and the page list it', async () => {
    const at = new Date('2026-12-01T10:00:00.123Z');
    const e = await emulator(() => at);
    await expect(bot(e).sendMessage({ chat_id: 42, text: '<b>Отчёт</b> готов', parse_mode: 'HTML' })).resolves.toEqual({
      ok: true,
    });
    expect(e.messages()).toEqual([
      {
        message_id: 1,
        chat_id: 42,
        text: '<b>Отчёт</b> готов',
        parse_mode: 'HTML',
        via: 'sendMessage',
        at: at.toISOString(),
      },
    ]);
    const json = (await (await fetch(`${e.url}/messages?chat_id=42`)).json()) as unknown[];
    expect(json).toHaveLength(1);
    expect(await (await fetch(`${e.url}/messages?chat_id=7`)).json()).toEqual([]);
    const page = await (await fetch(`${e.url}/`)).text();
    expect(page).toContain('<b>Отчёт</b> готов');
    expect(page).toContain('to chat <b>42</b>');
  });

  it('a wrong token: 401 in Telegram’s shape', async () => {
    const e = await emulator();
    const r = await fetch(`${e.url}/botWRONG/getMe`, { method: 'POST' });
    expect(r.status).toBe(401);
    expect(await r.json()).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' });
    expect(await bot(e, 'WRONG').sendMessage({ chat_id: 1, text: 'x' })).toMatchObject({ ok: false, retry: true });
    expect(e.messages()).toEqual([]);
  });

  it('getMe answers the bot', async () => {
    const e = await emulator();
    await expect(bot(e).getMe()).resolves.toEqual({ ok: true, result: { id: 7_000_000_001, username: 'TestShopBot' } });
  });

  it('faults: 429 with retry_after for the next N calls, 5xx, a blocked chat (until it writes again)', async () => {
    const e = await emulator();
    const b = bot(e);
    e.faults.rateLimit(2, 5);
    expect(await b.sendMessage({ chat_id: 1, text: 'a' })).toMatchObject({
      ok: false,
      retry: true,
      retryAfterMs: 5000,
    });
    expect(await b.sendMessage({ chat_id: 1, text: 'a' })).toMatchObject({ retryAfterMs: 5000 });
    expect(await b.sendMessage({ chat_id: 1, text: 'a' })).toEqual({ ok: true });
    e.faults.serverError(1, 503);
    expect(await b.sendMessage({ chat_id: 1, text: 'b' })).toMatchObject({ ok: false, retry: true });
    e.faults.block(9);
    expect(await b.sendMessage({ chat_id: 9, text: 'c' })).toEqual({ ok: false, retry: false, reason: 'blocked' });
    expect(e.messages().map((m) => m.text)).toEqual(['a']);
    // Over HTTP too.
    await fetch(`${e.url}/_faults`, {
      method: 'POST',
      body: JSON.stringify({ rate_limit: { calls: 1, retry_after: 2 } }),
    });
    expect(await b.sendMessage({ chat_id: 1, text: 'd' })).toMatchObject({ retryAfterMs: 2000 });
  });

  it('a user writes: the Update reaches the webhook with the secret header; a sendMessage reply is performed', async () => {
    const e = await emulator();
    const hook = await receiver((u) => ({
      method: 'sendMessage',
      chat_id: u.message!.chat.id,
      text: `эхо: ${u.message!.text}`,
    }));
    await expect(bot(e).setWebhook({ url: hook.url, secret_token: 'hook-secret-0123456789' })).resolves.toEqual({
      ok: true,
      result: true,
    });
    const r = await fetch(`${e.url}/_user/555/send`, {
      method: 'POST',
      body: JSON.stringify({ text: '/start abc', username: 'anna' }),
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({
      delivered: true,
      status: 200,
      reply: { chat_id: 555, text: 'эхо: /start abc' },
    });
    expect(hook.got).toHaveLength(1);
    expect(hook.got[0]!.headers['x-telegram-bot-api-secret-token']).toBe('hook-secret-0123456789');
    expect(hook.got[0]!.body).toMatchObject({
      update_id: expect.any(Number),
      message: { chat: { id: 555, type: 'private' }, from: { username: 'anna' }, text: '/start abc' },
    });
    expect(e.messages()).toMatchObject([{ chat_id: 555, text: 'эхо: /start abc', via: 'webhook_reply' }]);
  });

  it('no webhook: the user’s message is refused (409); setWebhook with a bad secret: 400', async () => {
    const e = await emulator();
    const r = await fetch(`${e.url}/_user/1/send`, { method: 'POST', body: JSON.stringify({ text: 'hi' }) });
    expect(r.status).toBe(409);
    expect(await bot(e).setWebhook({ url: 'http://127.0.0.1:1/x', secret_token: 'bad secret!' })).toMatchObject({
      ok: false,
      retry: false,
      reason: 'rejected',
    });
    expect(e.webhook()).toBeNull();
  });
});
