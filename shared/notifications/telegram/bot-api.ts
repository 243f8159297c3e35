/**
 * Telegram's Bot API (https://core.telegram.org/bots/api), the three methods the service uses:
 * `sendMessage`, `setWebhook`, `getMe`. Every answer is treated as hostile: it is parsed with zod, and
 * what does not parse is a failure to retry, never a success taken on trust. A send's outcome is the
 * channel contract's SendResult (shared/notifications/channel.ts):
 * - 200 `{ok: true}` → sent;
 * - 429 → retry after `parameters.retry_after` seconds (capped at MAX_RETRY_AFTER_S; absent or absurd: 1 s);
 * - 403 (the user blocked the bot, the bot was kicked) and 400 «chat not found» → never again on this chat
 *   (`blocked`); any other 400 → `rejected` (the message itself is wrong: sending it again changes nothing);
 * - 401/404 (a wrong token), 5xx, a timeout, a refused connection, an answer that does not parse → retry.
 *
 * Pacing (Telegram's limits: about 30 messages a second overall, at most one a second to one chat):
 * every call goes through a Pacer, which reserves the next free slot and waits for it on the injected
 * clock. The pacer lives in the process, so on Lambda it paces one container (one delivery run); several
 * containers at once can exceed the overall limit, and Telegram's 429 with its retry_after catches the rest.
 */
import { z } from 'zod';
import type { Clock } from '../../deps';
import type { SendResult } from '../channel';

/** The longest wait a 429's retry_after is honoured for (seconds); a longer or non-finite one is this. */
export const MAX_RETRY_AFTER_S = 3600;
/** The longest one call may take (connecting, answer included). */
export const CALL_TIMEOUT_MS = 10_000;
/** Telegram's limit of a message's text (characters after entity parsing; we count before, to be safe). */
export const MAX_MESSAGE_CHARS = 4096;

/** Telegram's answer, any method: `ok`, then `result` or `error_code` + `description` (+ `parameters`). */
const answerSchema = z.object({
  ok: z.boolean(),
  result: z.unknown().optional(),
  error_code: z.number().int().optional(),
  description: z.string().max(10_000).optional(),
  parameters: z.object({ retry_after: z.number().optional() }).loose().optional(),
});

const userSchema = z
  .object({ id: z.number().int(), is_bot: z.boolean(), username: z.string().max(64).optional() })
  .loose();
const messageSchema = z.object({ message_id: z.number().int(), date: z.number().optional() }).loose();

export type Failure = Exclude<SendResult, { ok: true }>;
export type CallResult<T> = { ok: true; result: T } | Failure;

/** Reserves send slots: at most `perSecond` calls a second overall, one per `perChatMs` to one chat. */
export interface Pacer {
  /** Waits until a call to `chatId` (or any call, without one) may go. */
  wait(chatId?: number): Promise<void>;
}

export interface PacerOptions {
  clock: Clock;
  /** Waits `ms` (tests advance their manual clock instead of waiting). */
  sleep: (ms: number) => Promise<void>;
  perSecond?: number;
  perChatMs?: number;
}

/**
 * Slots are reserved when asked for (in the caller's order), so concurrent senders in one process never
 * take the same slot: the global slots are 1000/perSecond ms apart, a chat's perChatMs apart.
 */
export function createPacer(o: PacerOptions): Pacer {
  const gapMs = Math.ceil(1000 / (o.perSecond ?? 30));
  const perChatMs = o.perChatMs ?? 1000;
  let nextGlobal = 0;
  const nextByChat = new Map<number, number>();
  return {
    async wait(chatId) {
      const now = o.clock.now().getTime();
      const at = Math.max(now, nextGlobal, chatId === undefined ? 0 : (nextByChat.get(chatId) ?? 0));
      nextGlobal = at + gapMs;
      if (chatId !== undefined) {
        nextByChat.set(chatId, at + perChatMs);
        // Forget chats whose slot has passed, so a long-lived process keeps no list of every chat.
        if (nextByChat.size > 10_000) for (const [c, t] of nextByChat) if (t <= now) nextByChat.delete(c);
      }
      if (at > now) await o.sleep(at - now);
    },
  };
}

export interface BotApiOptions {
  /** TELEGRAM_API_URL: `https://api.telegram.org` or the local emulator. */
  apiUrl: string;
  token: string;
  pacer: Pacer;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export interface SendMessageInput {
  chat_id: number;
  text: string;
  parse_mode?: 'HTML';
  disable_web_page_preview?: boolean;
}

export interface BotApi {
  sendMessage(m: SendMessageInput): Promise<SendResult>;
  setWebhook(input: { url: string; secret_token: string }): Promise<CallResult<true>>;
  getMe(): Promise<CallResult<{ id: number; username?: string }>>;
}

/** Seconds of a 429's retry_after as milliseconds: at least 1 s, at most MAX_RETRY_AFTER_S. */
export function retryAfterMs(seconds: unknown): number {
  const s = typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds : 1;
  return Math.ceil(Math.min(Math.max(s, 1), MAX_RETRY_AFTER_S) * 1000);
}

/** What an HTTP status and Telegram's (parsed) error answer mean for the message. */
function failureOf(status: number, description: string | undefined, retryAfter: unknown): Failure {
  const what = `telegram ${status}${description ? `: ${description.slice(0, 200)}` : ''}`;
  if (status === 429) return { ok: false, retry: true, retryAfterMs: retryAfterMs(retryAfter), reason: what };
  if (status === 403) return { ok: false, retry: false, reason: 'blocked' };
  if (status === 400 && /chat not found|user is deactivated|bot was blocked/i.test(description ?? ''))
    return { ok: false, retry: false, reason: 'blocked' };
  if (status === 400) return { ok: false, retry: false, reason: 'rejected' };
  return { ok: false, retry: true, reason: what };
}

export function createBotApi(o: BotApiOptions): BotApi {
  const doFetch = o.fetch ?? fetch;
  const base = `${o.apiUrl.replace(/\/+$/, '')}/bot${o.token}`;

  async function call(method: string, params: object, chatId?: number): Promise<CallResult<unknown>> {
    await o.pacer.wait(chatId);
    let res: Response;
    let text: string;
    try {
      res = await doFetch(`${base}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(params),
        signal: AbortSignal.timeout(o.timeoutMs ?? CALL_TIMEOUT_MS),
      });
      text = await res.text();
    } catch (e) {
      // The token is part of the URL: never put the URL into a reason that may be logged.
      return { ok: false, retry: true, reason: `telegram unreachable: ${e instanceof Error ? e.name : 'error'}` };
    }
    let body: z.infer<typeof answerSchema> | null = null;
    try {
      const parsed = answerSchema.safeParse(JSON.parse(text));
      if (parsed.success) body = parsed.data;
    } catch {
      body = null;
    }
    if (res.ok && body?.ok === true) return { ok: true, result: body.result };
    if (res.ok) return { ok: false, retry: true, reason: `telegram ${res.status}: an answer that does not parse` };
    return failureOf(res.status, body?.description, body?.parameters?.retry_after);
  }

  return {
    async sendMessage(m) {
      const r = await call('sendMessage', m, m.chat_id);
      if (!r.ok) return r;
      if (!messageSchema.safeParse(r.result).success)
        return { ok: false, retry: true, reason: 'telegram: sendMessage answered without a message' };
      return { ok: true };
    },
    async setWebhook(input) {
      const r = await call('setWebhook', { ...input, allowed_updates: ['message'] });
      if (!r.ok) return r;
      return r.result === true
        ? { ok: true, result: true }
        : { ok: false, retry: true, reason: 'setWebhook: not true' };
    },
    async getMe() {
      const r = await call('getMe', {});
      if (!r.ok) return r;
      const u = userSchema.safeParse(r.result);
      if (!u.success) return { ok: false, retry: true, reason: 'getMe: not a user' };
      return { ok: true, result: { id: u.data.id, username: u.data.username } };
    },
  };
}
