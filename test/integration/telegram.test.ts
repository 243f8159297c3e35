/**
 * Telegram end to end over the real stores and the in-repo Telegram emulator (scripts/local/telegram.ts):
 * the seller asks for a code, their chat sends `/start <code>` (the emulator delivers the Update to the
 * webhook route over HTTP, with the secret header, as Telegram does), the link is stored, and the
 * channel's messages land in the emulator's list; a chat that blocked the bot breaks the link.
 */
import http from 'node:http';
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as telegramHandler } from '../../functions/notifications/telegram.handler';
import { handler as webhookHandler } from '../../functions/notifications/telegram-webhook.handler';
import { startTelegramEmulator, type TelegramEmulator } from '../../scripts/local/telegram';
import type { OutgoingMessage } from '../../shared/notifications/channel';
import { escapeHtml, telegramChannel } from '../../shared/notifications/telegram/channel';
import { telegramBot } from '../../shared/notifications/telegram/deps';
import { BOT_TEXT, UNLINKED_FROM_PAGE } from '../../shared/notifications/telegram/link';
import { telegramLinkStore } from '../../shared/store/telegram-links.repo';
import { makeReport, newUser, uploadOk, type TestUser } from '../support/reports';
import { notificationsTick } from '../../shared/notifications/deliver';
import { deliverDeps } from '../../shared/notifications/deliver-deps';
import { rub } from '../../shared/notifications/messages';
import { notificationStore } from '../../shared/store/notifications.repo';
import { getReport } from '../../shared/store/reports.repo';
import { apiEvent, bodyOf } from '../support/test-event';

const TOKEN = `${randomInt(1e6, 1e7)}:integration-bot-token`;
const SECRET = 'integration-webhook-secret-0123';
const ENV = ['TELEGRAM_API_URL', 'TELEGRAM_BOT_TOKEN', 'TELEGRAM_WEBHOOK_SECRET', 'TELEGRAM_BOT_NAME'] as const;
const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));

let tg: TelegramEmulator;
let hook: http.Server;
let hookUrl: string;

/** The webhook route served over HTTP (as API Gateway would), so the emulator posts to it for real. */
async function serveWebhook(): Promise<void> {
  hook = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]),
      );
      const event = apiEvent({
        method: 'POST',
        path: '/api/telegram/webhook',
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      void webhookHandler(event).then((r) => {
        res.writeHead(r.statusCode ?? 500, r.headers as http.OutgoingHttpHeaders);
        res.end(r.body ?? '');
      });
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(hook.address() as { port: number }).port}/api/telegram/webhook`;
}

const call = (u: TestUser, method: string, path: string) => telegramHandler(apiEvent({ method, path, token: u.token }));

async function linkCode(u: TestUser): Promise<{ code: string; url: string; expires_at: string }> {
  const r = await call(u, 'POST', '/api/notifications/telegram/link');
  expect(r.statusCode, r.body).toBe(201);
  return bodyOf(r);
}

async function status(u: TestUser) {
  const r = await call(u, 'GET', '/api/notifications/telegram');
  expect(r.statusCode, r.body).toBe(200);
  return bodyOf<{ configured: boolean; link: null | { chat_id: number; status: string; username?: string } }>(r);
}

/** A seller whose chat is linked through the emulator. */
async function linkedSeller(chat: number, username = 'anna_shop', limits = 10): Promise<TestUser> {
  const u = await newUser(limits, 'tg');
  const { code } = await linkCode(u);
  const sent = await tg.userSends(chat, `/start ${code}`, username);
  expect(sent.reply?.text).toBe(BOT_TEXT.linked);
  return u;
}

const message: OutgoingMessage = {
  userId: '',
  eventKey: 'report_ready:r1',
  kind: 'report_ready',
  subject: 'Отчёт за 24–30 ноября готов',
  text: 'Выручка 120 000 ₽, прибыль 18 000 ₽ (маржа 15%) & выплата 95 000 ₽',
  link: 'http://localhost:5173/reports/r1',
};

beforeAll(async () => {
  tg = await startTelegramEmulator({ token: TOKEN, botName: 'IntegrationShopBot' });
  await serveWebhook();
  Object.assign(process.env, {
    TELEGRAM_API_URL: tg.url,
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    TELEGRAM_BOT_NAME: 'IntegrationShopBot',
  });
  // As `npm start` and the deploy do: the webhook registered with its secret.
  await expect(telegramBot()!.setWebhook({ url: hookUrl, secret_token: SECRET })).resolves.toEqual({
    ok: true,
    result: true,
  });
});

afterAll(async () => {
  await tg.close();
  await new Promise<void>((r) => hook.close(() => r()));
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

describe('linking a chat', () => {
  it('code → /start in the chat → link stored → the channel’s message reaches the chat', async () => {
    const chat = randomInt(1e8, 1e9);
    const u = await newUser(10, 'tg');
    expect(await status(u)).toEqual({ configured: true, bot_name: 'IntegrationShopBot', link: null });
    const code = await linkCode(u);
    expect(code.code).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(code.url).toBe(`https://t.me/IntegrationShopBot?start=${code.code}`);
    expect(Date.parse(code.expires_at) - Date.now()).toBeGreaterThan(14 * 60_000);

    const sent = await tg.userSends(chat, `/start ${code.code}`, 'anna_shop');
    expect(sent).toMatchObject({ delivered: true, status: 200 });
    expect(sent.reply).toMatchObject({ chat_id: chat, via: 'webhook_reply' });
    expect(sent.reply!.text).toMatch(/^Готово: уведомления сервиса будут приходить сюда/);
    expect(await telegramLinkStore.getLink(u.id)).toMatchObject({
      chat_id: chat,
      status: 'linked',
      username: 'anna_shop',
    });
    expect((await status(u)).link).toMatchObject({ chat_id: chat, status: 'linked', username: 'anna_shop' });

    const channel = telegramChannel({ bot: telegramBot()!, links: telegramLinkStore });
    const r = await channel.send(
      { userId: u.id, email: 'x@example.com', telegramChatId: chat },
      { ...message, userId: u.id },
    );
    expect(r).toEqual({ ok: true });
    const got = tg.messages(chat).filter((m) => m.via === 'sendMessage');
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({
      parse_mode: 'HTML',
      text: '<b>Отчёт за 24–30 ноября готов</b>\nВыручка 120 000 ₽, прибыль 18 000 ₽ (маржа 15%) &amp; выплата 95 000 ₽\nhttp://localhost:5173/reports/r1',
    });
    expect(Date.parse(got[0]!.at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('a chat that blocked the bot: the send says blocked and the link is marked broken', async () => {
    const chat = randomInt(1e8, 1e9);
    const u = await linkedSeller(chat);
    tg.faults.block(chat);
    const channel = telegramChannel({ bot: telegramBot()!, links: telegramLinkStore });
    const r = await channel.send(
      { userId: u.id, email: 'x@example.com', telegramChatId: chat },
      { ...message, userId: u.id },
    );
    expect(r).toEqual({ ok: false, retry: false, reason: 'blocked' });
    expect((await status(u)).link).toMatchObject({ chat_id: chat, status: 'broken' });
    expect(tg.messages(chat).filter((m) => m.via === 'sendMessage')).toEqual([]);
  });

  it('Telegram’s 429 comes back with its retry_after; nothing is sent meanwhile', async () => {
    const chat = randomInt(1e8, 1e9);
    const u = await linkedSeller(chat);
    tg.faults.rateLimit(1, 3);
    const channel = telegramChannel({ bot: telegramBot()!, links: telegramLinkStore });
    const r = await channel.send(
      { userId: u.id, email: 'x@example.com', telegramChatId: chat },
      { ...message, userId: u.id },
    );
    expect(r).toMatchObject({ ok: false, retry: true, retryAfterMs: 3000 });
    expect((await status(u)).link?.status).toBe('linked');
  });
});

describe('a report becomes ready → one Telegram message', () => {
  it('the delivery tick sends the week’s figures to the linked chat, once through two ticks', async () => {
    const chat = randomInt(1e8, 1e9);
    const u = await linkedSeller(chat, 'anna_shop', 100_000);
    const report = await uploadOk(u.token, makeReport({ seed: 63 }));
    const t = (await getReport(u.id, report.id))!.totals as Record<string, number>;
    await notificationsTick(deliverDeps());
    await notificationsTick(deliverDeps());
    const got = tg.messages(chat).filter((m) => m.via === 'sendMessage' && m.text.startsWith('<b>Отчёт готов'));
    expect(got).toHaveLength(1);
    // The link once: the text already ends with it.
    expect(got[0]!.text.split(`/reports/${report.id}`)).toHaveLength(2);
    expect(got[0]!.text).toContain(`Прибыль: ${escapeHtml(rub(t.profit!))}`);
    expect(got[0]!.text).toContain(`/reports/${report.id}`);
    const history = await notificationStore.history(u.id, 10);
    expect(history.items.find((d) => d.channel === 'telegram' && d.kind === 'report_ready')).toMatchObject({
      event_key: `report_ready:${report.id}`,
      status: 'sent',
    });
  });
});

describe('the webhook refuses and explains', () => {
  it('a wrong secret: 401 and nothing changes (the code stays usable)', async () => {
    const chat = randomInt(1e8, 1e9);
    const u = await newUser(10, 'tg');
    const { code } = await linkCode(u);
    const update = {
      update_id: 5,
      message: { message_id: 1, date: 1, chat: { id: chat, type: 'private' }, text: `/start ${code}` },
    };
    for (const headers of [
      {} as Record<string, string>,
      { 'x-telegram-bot-api-secret-token': 'integration-webhook-secret-0124' },
    ]) {
      const r = await fetch(hookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(update),
      });
      expect(r.status).toBe(401);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    }
    expect(await telegramLinkStore.getLink(u.id)).toBeNull();
    expect((await tg.userSends(chat, `/start ${code}`)).reply?.text).toBe(BOT_TEXT.linked);
  });

  it('an expired code: the bot answers in Russian what to do, no link', async () => {
    const chat = randomInt(1e8, 1e9);
    const u = await newUser(10, 'tg');
    await telegramLinkStore.createCode(u.id, 'expired-code-for-the-test', new Date(Date.now() - 1000));
    const r = await tg.userSends(chat, '/start expired-code-for-the-test');
    expect(r.reply?.text).toBe(BOT_TEXT.expired);
    expect(r.reply?.text).toMatch(/устарел.*Получите новый в Настройках/);
    expect(await telegramLinkStore.getLink(u.id)).toBeNull();
  });

  it('a reused code: the second chat is told, the first keeps the link', async () => {
    const first = randomInt(1e8, 1e9);
    const second = first + 1;
    const u = await newUser(10, 'tg');
    const { code } = await linkCode(u);
    await tg.userSends(first, `/start ${code}`);
    const r = await tg.userSends(second, `/start ${code}`);
    expect(r.reply?.text).toBe(BOT_TEXT.used);
    expect((await telegramLinkStore.getLink(u.id))?.chat_id).toBe(first);
    expect(await telegramLinkStore.userOfChat(second)).toBeNull();
  });

  it('an unknown update shape is answered 200 and ignored; other text gets the help', async () => {
    const r = await fetch(hookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
      body: JSON.stringify({ update_id: 9, my_chat_member: { chat: { id: 1 } } }),
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({});
    expect((await tg.userSends(randomInt(1e8, 1e9), 'что ты умеешь?')).reply?.text).toBe(BOT_TEXT.help);
  });
});

describe('unlinking', () => {
  it('/stop in the chat unlinks it', async () => {
    const chat = randomInt(1e8, 1e9);
    const u = await linkedSeller(chat);
    expect((await tg.userSends(chat, '/stop')).reply?.text).toBe(BOT_TEXT.stopped);
    expect((await status(u)).link).toBeNull();
    expect(await telegramLinkStore.userOfChat(chat)).toBeNull();
  });

  it('«Отвязать» on the page: 204, the link is gone and the chat is told', async () => {
    const chat = randomInt(1e8, 1e9);
    const u = await linkedSeller(chat);
    const r = await call(u, 'DELETE', '/api/notifications/telegram');
    expect(r.statusCode).toBe(204);
    expect((await status(u)).link).toBeNull();
    expect(tg.messages(chat).at(-1)).toMatchObject({ via: 'sendMessage', text: UNLINKED_FROM_PAGE });
    // Unlinking again: nothing to do, still 204.
    expect((await call(u, 'DELETE', '/api/notifications/telegram')).statusCode).toBe(204);
  });

  it('a chat linked to a second seller moves: the first seller is no longer linked', async () => {
    const chat = randomInt(1e8, 1e9);
    const a = await linkedSeller(chat);
    const b = await linkedSeller(chat);
    expect((await status(a)).link).toBeNull();
    expect((await status(b)).link?.chat_id).toBe(chat);
    expect(await telegramLinkStore.userOfChat(chat)).toBe(b.id);
  });
});
