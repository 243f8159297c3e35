import { describe, expect, it } from 'vitest';
import { manualClock } from '../../deps';
import { AppError } from '../../errors';
import type { TelegramLink } from '../channel';
import type { CodeUse, TelegramLinkStore } from '../../store/telegram-links.repo';
import type { BotApi, SendMessageInput } from './bot-api';
import {
  BOT_TEXT,
  createLinkCode,
  handleUpdate,
  LINK_CODE_TTL_MS,
  newLinkCode,
  secretMatches,
  telegramStatus,
  unlinkTelegram,
  UNLINKED_FROM_PAGE,
} from './link';

/** The store's behaviour in memory (the DynamoDB one is tested in test/integration/telegram.test.ts). */
function memoryStore() {
  const codes = new Map<string, { userId: string; expiresAt: number; usedAt?: number }>();
  const links = new Map<string, TelegramLink>();
  const chats = new Map<number, string>();
  const store: TelegramLinkStore = {
    async getLink(u) {
      return links.get(u) ?? null;
    },
    async markBroken(u) {
      const l = links.get(u);
      if (l) links.set(u, { ...l, status: 'broken' });
    },
    async createCode(userId, code, expiresAt) {
      codes.set(code, { userId, expiresAt: expiresAt.getTime() });
    },
    async useCode(code, now): Promise<CodeUse> {
      const c = codes.get(code);
      if (!c) return { ok: false, reason: 'unknown' };
      if (c.usedAt !== undefined) return { ok: false, reason: 'used' };
      if (c.expiresAt <= now.getTime()) return { ok: false, reason: 'expired' };
      c.usedAt = now.getTime();
      return { ok: true, userId: c.userId };
    },
    async link(userId, chat, now) {
      links.set(userId, {
        chat_id: chat.chat_id,
        status: 'linked',
        username: chat.username,
        linked_at: now.toISOString(),
      });
      chats.set(chat.chat_id, userId);
    },
    async unlink(userId) {
      const l = links.get(userId) ?? null;
      links.delete(userId);
      if (l) chats.delete(l.chat_id);
      return l;
    },
    async userOfChat(chatId) {
      return chats.get(chatId) ?? null;
    },
  };
  return { store, codes, links, chats };
}

const SECRET = 'webhook-secret-0123456789';

function setup() {
  const clock = manualClock('2026-12-01T10:00:00Z');
  const mem = memoryStore();
  let n = 0;
  const linkDeps = { store: mem.store, clock, botName: 'ShopBot', newCode: () => `code${++n}` };
  const hookDeps = { store: mem.store, clock, secret: SECRET };
  return { clock, mem, linkDeps, hookDeps };
}

const update = (text: string, chat: { id: number; type?: string } = { id: 555 }) => ({
  update_id: 1,
  message: {
    message_id: 9,
    date: 1,
    chat: { id: chat.id, type: chat.type ?? 'private' },
    from: { id: chat.id, is_bot: false, first_name: 'Анна', username: 'anna_shop' },
    text,
  },
});

describe('createLinkCode', () => {
  it('a code valid 15 minutes and the deep link to the bot', async () => {
    const { linkDeps, mem } = setup();
    const r = await createLinkCode(linkDeps, 'u1');
    expect(r).toEqual({
      code: 'code1',
      url: 'https://t.me/ShopBot?start=code1',
      expires_at: '2026-12-01T10:15:00.000Z',
    });
    expect(mem.codes.get('code1')).toMatchObject({ userId: 'u1' });
  });

  it('real codes: 32 url-safe characters (192 bits), never the same', () => {
    const a = newLinkCode();
    expect(a).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(new Set(Array.from({ length: 100 }, newLinkCode)).size).toBe(100);
  });

  it('no bot configured: 503 telegram_not_configured', async () => {
    const { linkDeps } = setup();
    await expect(createLinkCode({ ...linkDeps, botName: '' }, 'u1')).rejects.toMatchObject({
      status: 503,
      code: 'telegram_not_configured',
    });
    await expect(telegramStatus({ ...linkDeps, botName: '' }, 'u1')).resolves.toEqual({
      configured: false,
      bot_name: null,
      link: null,
    });
  });
});

describe('the webhook', () => {
  it('/start <code>: links the chat to the code’s user and answers in Russian', async () => {
    const { linkDeps, hookDeps, mem } = setup();
    const { code } = await createLinkCode(linkDeps, 'u1');
    const reply = await handleUpdate(hookDeps, SECRET, update(`/start ${code}`));
    expect(reply).toEqual({ method: 'sendMessage', chat_id: 555, text: BOT_TEXT.linked });
    expect(reply!.text).toMatch(/^Готово: уведомления сервиса будут приходить сюда/);
    expect(mem.links.get('u1')).toEqual({
      chat_id: 555,
      status: 'linked',
      username: 'anna_shop',
      linked_at: '2026-12-01T10:00:00.000Z',
    });
    await expect(telegramStatus(linkDeps, 'u1')).resolves.toMatchObject({ configured: true, link: { chat_id: 555 } });
  });

  it('a wrong or missing secret: 401 and nothing changes', async () => {
    const { linkDeps, hookDeps, mem } = setup();
    const { code } = await createLinkCode(linkDeps, 'u1');
    for (const header of [undefined, '', 'webhook-secret-0123456788', `${SECRET}x`]) {
      const e = await handleUpdate(hookDeps, header, update(`/start ${code}`)).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(AppError);
      expect(e).toMatchObject({ status: 401, code: 'unauthorized' });
    }
    expect(mem.links.size).toBe(0);
    expect(mem.codes.get(code)!.usedAt).toBeUndefined();
    // No secret configured: every update is refused.
    await expect(handleUpdate({ ...hookDeps, secret: undefined }, SECRET, update('/stop'))).rejects.toMatchObject({
      status: 401,
    });
  });

  it('an expired code: the bot says to get a new one in Настройки, nothing is linked', async () => {
    const { linkDeps, hookDeps, mem, clock } = setup();
    const { code } = await createLinkCode(linkDeps, 'u1');
    clock.advance(LINK_CODE_TTL_MS);
    const reply = await handleUpdate(hookDeps, SECRET, update(`/start ${code}`));
    expect(reply).toEqual({ method: 'sendMessage', chat_id: 555, text: BOT_TEXT.expired });
    expect(reply!.text).toMatch(/устарел.*Настройках/);
    expect(mem.links.size).toBe(0);
  });

  it('a reused code: the second chat is told it is used, the first link stays', async () => {
    const { linkDeps, hookDeps, mem } = setup();
    const { code } = await createLinkCode(linkDeps, 'u1');
    await handleUpdate(hookDeps, SECRET, update(`/start ${code}`));
    const reply = await handleUpdate(hookDeps, SECRET, update(`/start ${code}`, { id: 777 }));
    expect(reply).toEqual({ method: 'sendMessage', chat_id: 777, text: BOT_TEXT.used });
    expect(reply!.text).toMatch(/уже использован.*Настройках/);
    expect(mem.links.get('u1')!.chat_id).toBe(555);
    expect(mem.chats.has(777)).toBe(false);
  });

  it('an unknown or malformed code: the bot says where to get one', async () => {
    const { hookDeps, mem } = setup();
    expect(await handleUpdate(hookDeps, SECRET, update('/start nosuchcode'))).toMatchObject({ text: BOT_TEXT.unknown });
    expect(await handleUpdate(hookDeps, SECRET, update('/start код!'))).toMatchObject({ text: BOT_TEXT.unknown });
    expect(mem.links.size).toBe(0);
  });

  it('/stop unlinks the chat; /stop again says it is not linked', async () => {
    const { linkDeps, hookDeps, mem } = setup();
    const { code } = await createLinkCode(linkDeps, 'u1');
    await handleUpdate(hookDeps, SECRET, update(`/start ${code}`));
    expect(await handleUpdate(hookDeps, SECRET, update('/stop'))).toMatchObject({ text: BOT_TEXT.stopped });
    expect(mem.links.size).toBe(0);
    expect(await handleUpdate(hookDeps, SECRET, update('/stop'))).toMatchObject({ text: BOT_TEXT.notLinked });
  });

  it('a group chat cannot be linked; its code stays unused', async () => {
    const { linkDeps, hookDeps, mem } = setup();
    const { code } = await createLinkCode(linkDeps, 'u1');
    const reply = await handleUpdate(hookDeps, SECRET, update(`/start@ShopBot ${code}`, { id: -100, type: 'group' }));
    expect(reply).toMatchObject({ chat_id: -100, text: BOT_TEXT.privateOnly });
    expect(mem.codes.get(code)!.usedAt).toBeUndefined();
  });

  it('other text gets the help; updates of unknown shape are ignored (answered, nothing done)', async () => {
    const { hookDeps } = setup();
    expect(await handleUpdate(hookDeps, SECRET, update('привет'))).toMatchObject({ text: BOT_TEXT.help });
    expect(await handleUpdate(hookDeps, SECRET, update('/start'))).toMatchObject({ text: BOT_TEXT.help });
    for (const body of [
      {},
      { update_id: 2, edited_message: { chat: { id: 1 } } },
      { update_id: 3, message: { chat: { id: 'x' }, text: '/stop' } },
      { update_id: 4, message: { chat: { id: 1, type: 'private' }, sticker: {} } },
      null,
      'text',
    ])
      expect(await handleUpdate(hookDeps, SECRET, body)).toBeNull();
  });

  it('secretMatches: equal strings only, whatever their length', () => {
    expect(secretMatches(SECRET, SECRET)).toBe(true);
    expect(secretMatches('a', SECRET)).toBe(false);
    expect(secretMatches(SECRET, undefined)).toBe(false);
  });
});

describe('unlinkTelegram', () => {
  function bot() {
    const sent: SendMessageInput[] = [];
    const api: BotApi = {
      sendMessage: async (m) => {
        sent.push(m);
        return { ok: true };
      },
      setWebhook: async () => ({ ok: true, result: true }),
      getMe: async () => ({ ok: true, result: { id: 1 } }),
    };
    return { api, sent };
  }

  it('removes the link and tells the chat', async () => {
    const { mem, clock } = setup();
    await mem.store.link('u1', { chat_id: 555 }, clock.now());
    const b = bot();
    await unlinkTelegram({ store: mem.store, bot: b.api }, 'u1');
    expect(mem.links.size).toBe(0);
    expect(b.sent).toEqual([{ chat_id: 555, text: UNLINKED_FROM_PAGE }]);
  });

  it('a broken link is removed without a message; nothing linked: nothing sent', async () => {
    const { mem, clock } = setup();
    await mem.store.link('u1', { chat_id: 555 }, clock.now());
    await mem.store.markBroken('u1');
    const b = bot();
    await unlinkTelegram({ store: mem.store, bot: b.api }, 'u1');
    await unlinkTelegram({ store: mem.store, bot: b.api }, 'u2');
    expect(mem.links.size).toBe(0);
    expect(b.sent).toEqual([]);
  });

  it('Telegram failing does not stop the unlinking', async () => {
    const { mem, clock } = setup();
    await mem.store.link('u1', { chat_id: 555 }, clock.now());
    const failing: BotApi = { ...bot().api, sendMessage: () => Promise.reject(new Error('down')) };
    await unlinkTelegram({ store: mem.store, bot: failing }, 'u1');
    expect(mem.links.size).toBe(0);
  });
});
