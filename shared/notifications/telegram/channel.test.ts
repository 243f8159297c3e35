import { describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../channel';
import type { BotApi, SendMessageInput } from './bot-api';
import { telegramChannel, telegramText } from './channel';

const message: OutgoingMessage = {
  userId: 'u1',
  eventKey: 'report_ready:r1',
  kind: 'report_ready',
  subject: 'Отчёт за 24–30 ноября готов',
  text: 'Прибыль 12 345,67 ₽ <маржа 21%> & выплата',
  link: 'https://app.example/reports/r1?a=1&b=2',
};

function fakeBot(answer: Awaited<ReturnType<BotApi['sendMessage']>>) {
  const sent: SendMessageInput[] = [];
  const bot: BotApi = {
    sendMessage: async (m) => {
      sent.push(m);
      return answer;
    },
    setWebhook: async () => ({ ok: true, result: true }),
    getMe: async () => ({ ok: true, result: { id: 1 } }),
  };
  return { bot, sent };
}

describe('telegramChannel', () => {
  it('sends <b>subject</b>, the text and the link, escaped, as HTML to the linked chat', async () => {
    const { bot, sent } = fakeBot({ ok: true });
    const broken: string[] = [];
    const ch = telegramChannel({ bot, links: { markBroken: async (u) => void broken.push(u) } });
    expect(ch.name).toBe('telegram');
    await expect(ch.send({ userId: 'u1', email: 'a@b.c', telegramChatId: 42 }, message)).resolves.toEqual({ ok: true });
    expect(sent).toEqual([
      {
        chat_id: 42,
        parse_mode: 'HTML',
        disable_web_page_preview: true,
        text: '<b>Отчёт за 24–30 ноября готов</b>\nПрибыль 12 345,67 ₽ &lt;маржа 21%&gt; &amp; выплата\nhttps://app.example/reports/r1?a=1&amp;b=2',
      },
    ]);
    expect(broken).toEqual([]);
  });

  it('no chat linked: not_linked, nothing sent', async () => {
    const { bot, sent } = fakeBot({ ok: true });
    const ch = telegramChannel({ bot, links: { markBroken: async () => undefined } });
    await expect(ch.send({ userId: 'u1', email: 'a@b.c' }, message)).resolves.toEqual({
      ok: false,
      retry: false,
      reason: 'not_linked',
    });
    expect(sent).toEqual([]);
  });

  it('a chat that blocked the bot: the link is marked broken', async () => {
    const { bot } = fakeBot({ ok: false, retry: false, reason: 'blocked' });
    const broken: string[] = [];
    const ch = telegramChannel({ bot, links: { markBroken: async (u) => void broken.push(u) } });
    await expect(ch.send({ userId: 'u1', email: 'a@b.c', telegramChatId: 42 }, message)).resolves.toMatchObject({
      reason: 'blocked',
    });
    expect(broken).toEqual(['u1']);
  });

  it('a retry (429) passes through with its wait, the link stays', async () => {
    const { bot } = fakeBot({ ok: false, retry: true, retryAfterMs: 3000, reason: 'telegram 429' });
    const broken: string[] = [];
    const ch = telegramChannel({ bot, links: { markBroken: async (u) => void broken.push(u) } });
    await expect(ch.send({ userId: 'u1', email: 'a@b.c', telegramChatId: 42 }, message)).resolves.toMatchObject({
      retry: true,
      retryAfterMs: 3000,
    });
    expect(broken).toEqual([]);
  });

  it("a long text is cut to Telegram's 4096 characters, never through an entity", () => {
    const text = telegramText({ subject: 'S', text: '&'.repeat(5000), link: 'https://x.example' });
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text).toMatch(/(&amp;)+…\nhttps:\/\/x\.example$/);
  });
});

describe('telegramText', () => {
  it('gives the link once when the text already ends with it', () => {
    const text = `Прибыль 1 ₽\n\nОткрыть отчёт: ${message.link}`;
    const html = telegramText({ ...message, text });
    expect(html.split('reports/r1')).toHaveLength(2);
    expect(html.endsWith('Открыть отчёт: https://app.example/reports/r1?a=1&amp;b=2')).toBe(true);
  });
});
