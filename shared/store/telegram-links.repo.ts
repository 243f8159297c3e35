/**
 * Telegram links (docs/NOTIFICATIONS.md «Telegram») in the single table:
 *
 * | entity          | pk                 | sk      | access pattern |
 * |-----------------|--------------------|---------|----------------|
 * | Telegram link   | USER#<userId>      | TGLINK  | the user's chat, its status (linked / broken), username, linked_at |
 * | chat marker     | TGCHAT#<chat id>   | TGCHAT  | the user a chat is linked to (`/stop` from the chat); one user per chat |
 * | link code       | TGCODE#<code>      | TGCODE  | the user a `/start <code>` is for; `expires_at`, `used_at` once used; `ttl` a day after expiry |
 *
 * A code is used once: its use is an UpdateItem conditional on `used_at` being absent and the code not
 * expired, so two updates with the same code (Telegram's retry, a second chat) cannot both link. A used
 * or expired code stays until its `ttl`, so the bot can tell «already used» from «unknown».
 * Linking writes the link and the chat marker in one transaction, and removes the chat's previous user's
 * link or the user's previous chat's marker in it too: a chat serves one user, a user has one chat.
 */
import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import type { TelegramLink, TelegramLinks } from '../notifications/channel';
import { ddb, tableName, type DocTransactItem } from './client';
import { isConditionFailed } from './dynamo-errors';
import type { Key } from './keys';

/** The version of the stored link's shape (docs/ARCHITECTURE.md «Stored records»). */
const LINK_VERSION = 1;

export const telegramLinkKey = (userId: string): Key => ({ pk: `USER#${userId}`, sk: 'TGLINK' });
export const telegramChatKey = (chatId: number): Key => ({ pk: `TGCHAT#${chatId}`, sk: 'TGCHAT' });
export const telegramCodeKey = (code: string): Key => ({ pk: `TGCODE#${code}`, sk: 'TGCODE' });

const storedLink = z.object({
  v: z.literal(LINK_VERSION),
  chat_id: z.number().int(),
  status: z.enum(['linked', 'broken']),
  username: z.string().optional(),
  linked_at: z.string(),
});

function toLink(item: Record<string, unknown>): TelegramLink {
  const r = storedLink.safeParse(item);
  if (!r.success)
    throw new Error(`Stored Telegram link ${String(item.pk)} does not parse: ${r.error.issues[0]?.message}`);
  const { v: _v, ...link } = r.data;
  return link;
}

export type CodeUse = { ok: true; userId: string } | { ok: false; reason: 'expired' | 'used' | 'unknown' };

/** What the link use cases need of the store (shared/notifications/telegram/link.ts); tests pass a fake. */
export interface TelegramLinkStore extends TelegramLinks {
  createCode(userId: string, code: string, expiresAt: Date): Promise<void>;
  /** Uses a code once at `now`: its user, or why not. */
  useCode(code: string, now: Date): Promise<CodeUse>;
  /** Links the chat to the user (moving it from another user, replacing the user's other chat). */
  link(userId: string, chat: { chat_id: number; username?: string }, now: Date): Promise<void>;
  /** Removes the user's link and its chat marker; the link removed, or null when there was none. */
  unlink(userId: string): Promise<TelegramLink | null>;
  /** The user a chat is linked to. */
  userOfChat(chatId: number): Promise<string | null>;
}

async function get(key: Key): Promise<Record<string, unknown> | undefined> {
  const r = await ddb().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return r.Item;
}

async function getLink(userId: string): Promise<TelegramLink | null> {
  const item = await get(telegramLinkKey(userId));
  return item ? toLink(item) : null;
}

async function userOfChat(chatId: number): Promise<string | null> {
  const item = await get(telegramChatKey(chatId));
  return typeof item?.user_id === 'string' ? item.user_id : null;
}

async function createCode(userId: string, code: string, expiresAt: Date): Promise<void> {
  await ddb().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...telegramCodeKey(code),
        type: 'telegram_code',
        user_id: userId,
        expires_at: expiresAt.toISOString(),
        ttl: Math.ceil(expiresAt.getTime() / 1000) + 86_400,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

async function useCode(code: string, now: Date): Promise<CodeUse> {
  const key = telegramCodeKey(code);
  try {
    const r = await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET used_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(used_at) AND expires_at > :now',
        ExpressionAttributeValues: { ':now': now.toISOString() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { ok: true, userId: String(r.Attributes?.user_id) };
  } catch (e) {
    if (!isConditionFailed(e)) throw e;
  }
  const item = await get(key);
  if (!item) return { ok: false, reason: 'unknown' };
  return { ok: false, reason: item.used_at ? 'used' : 'expired' };
}

async function link(userId: string, chat: { chat_id: number; username?: string }, now: Date): Promise<void> {
  const [previous, chatOwner] = await Promise.all([getLink(userId), userOfChat(chat.chat_id)]);
  const items: DocTransactItem[] = [
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...telegramLinkKey(userId),
          type: 'telegram_link',
          v: LINK_VERSION,
          chat_id: chat.chat_id,
          status: 'linked',
          username: chat.username,
          linked_at: now.toISOString(),
        },
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: { ...telegramChatKey(chat.chat_id), type: 'telegram_chat', user_id: userId },
      },
    },
  ];
  if (previous && previous.chat_id !== chat.chat_id)
    items.push({
      Delete: {
        TableName: tableName(),
        Key: telegramChatKey(previous.chat_id),
        ConditionExpression: 'attribute_not_exists(pk) OR user_id = :u',
        ExpressionAttributeValues: { ':u': userId },
      },
    });
  if (chatOwner && chatOwner !== userId)
    items.push({
      Delete: {
        TableName: tableName(),
        Key: telegramLinkKey(chatOwner),
        ConditionExpression: 'attribute_not_exists(pk) OR chat_id = :c',
        ExpressionAttributeValues: { ':c': chat.chat_id },
      },
    });
  await ddb().send(new TransactWriteCommand({ TransactItems: items }));
}

async function unlink(userId: string): Promise<TelegramLink | null> {
  const r = await ddb().send(
    new DeleteCommand({ TableName: tableName(), Key: telegramLinkKey(userId), ReturnValues: 'ALL_OLD' }),
  );
  if (!r.Attributes) return null;
  const removed = toLink(r.Attributes);
  // The marker only while it still names this user (the chat may have moved to another user meanwhile).
  try {
    await ddb().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: telegramChatKey(removed.chat_id),
        ConditionExpression: 'user_id = :u',
        ExpressionAttributeValues: { ':u': userId },
      }),
    );
  } catch (e) {
    if (!isConditionFailed(e)) throw e;
  }
  return removed;
}

async function markBroken(userId: string): Promise<void> {
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: telegramLinkKey(userId),
        UpdateExpression: 'SET #s = :broken',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':broken': 'broken' },
      }),
    );
  } catch (e) {
    // Unlinked meanwhile: nothing to mark.
    if (!isConditionFailed(e)) throw e;
  }
}

export const telegramLinkStore: TelegramLinkStore = {
  getLink,
  markBroken,
  createCode,
  useCode,
  link,
  unlink,
  userOfChat,
};
