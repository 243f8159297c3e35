/**
 * The Telegram Bot API emulator of the local stack and the tests (docs/NOTIFICATIONS.md «Telegram» «Local stack»): the
 * bot's side (`POST /bot<token>/sendMessage | setWebhook | deleteWebhook | getMe | getWebhookInfo`, in
 * Telegram's answer shapes, the token checked) and the user's side: `POST /_user/<chat_id>/send {text}`
 * plays a person writing to the bot, delivered as Telegram does, an Update POSTed to the registered
 * webhook with the `X-Telegram-Bot-Api-Secret-Token` header; a `sendMessage` in the webhook's reply is
 * performed like Telegram performs it.
 *
 * It keeps every message the bot sent, with the time it arrived (`at`, ms; the merge measures a report's
 * «ready» to its Telegram message with it): `GET /messages` (JSON; `?chat_id=`), `GET /` (a page, newest
 * first), `DELETE /messages`. Faults on demand (`POST /_faults`, or the `faults` object in-process): a 429
 * with retry_after for the next N calls, a 5xx for the next N calls, a chat that blocked the bot (403).
 */
import http from 'node:http';
import { esc, listingPage } from './listing-page';

export interface SentTelegramMessage {
  message_id: number;
  chat_id: number;
  text: string;
  parse_mode?: string;
  /** How it was sent: a sendMessage call, or the reply to a webhook update. */
  via: 'sendMessage' | 'webhook_reply';
  /** ISO date-time with milliseconds of its arrival at the emulator. */
  at: string;
}

export interface TelegramFaults {
  /** The next `calls` bot calls answer 429 with `retry_after` seconds. */
  rateLimit(calls: number, retryAfter: number): void;
  /** The next `calls` bot calls answer `status` (default 502). */
  serverError(calls: number, status?: number): void;
  /** The chat blocked the bot: sendMessage to it answers 403 until it writes to the bot again. */
  block(chatId: number): void;
  reset(): void;
}

export interface TelegramEmulatorOptions {
  port?: number;
  host?: string;
  token: string;
  /** The bot's username (getMe). */
  botName?: string;
  /** The emulator's clock for the messages' `at` (default the real time). */
  now?: () => Date;
}

export interface UserSendResult {
  /** Whether a webhook took the update (its HTTP status 2xx). */
  delivered: boolean;
  status: number;
  /** The bot's answer, when it replied with a sendMessage. */
  reply: SentTelegramMessage | null;
}

export interface TelegramEmulator {
  url: string;
  port: number;
  messages(chatId?: number): SentTelegramMessage[];
  webhook(): { url: string; secret_token?: string } | null;
  /** A person in chat `chatId` writes `text` to the bot (as POST /_user/<chat_id>/send). */
  userSends(chatId: number, text: string, username?: string): Promise<UserSendResult>;
  faults: TelegramFaults;
  close(): Promise<void>;
}

const SECRET_TOKEN = /^[A-Za-z0-9_-]{1,256}$/;
const MAX_BODY = 1024 * 1024;

/** The page: messages newest first; HTML messages shown as Telegram shows them (its few tags). */
export function renderMessages(messages: SentTelegramMessage[], botName: string): string {
  const show = (m: SentTelegramMessage) =>
    m.parse_mode === 'HTML' ? m.text.replace(/<(?!\/?(b|i|u|s|a|code|pre)\b)/g, '&lt;') : esc(m.text);
  const items = [...messages]
    .reverse()
    .map(
      (m) => `<article class="msg">
  <div class="meta">to chat <b>${m.chat_id}</b> · ${esc(m.via)} · <time datetime="${m.at}">${esc(m.at)}</time></div>
  <pre>${show(m)}</pre>
</article>`,
    )
    .join('\n');
  return listingPage({
    title: 'Telegram emulator',
    count: messages.length,
    style: `  .msg { border: 1px solid #d7dce3; border-radius: 12px; padding: .6rem .9rem; margin-bottom: .8rem; background: #eef6ff; }
  .meta { font-size: .85rem; }
  pre { margin: .4rem 0 0; }`,
    heading: `Messages of @${esc(botName)}`,
    intro: `<p>What the bot sent through the local Telegram emulator, newest first (in memory: a restart empties it). JSON: <a href="messages">/messages</a>. Play a user: <code>POST /_user/&lt;chat_id&gt;/send {"text": "/start &lt;code&gt;"}</code>.</p>`,
    items,
    empty: 'No messages yet. Link Telegram in Настройки, then send /start with the code from here.',
  });
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new Error('body too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function startTelegramEmulator(opts: TelegramEmulatorOptions): Promise<TelegramEmulator> {
  const now = opts.now ?? (() => new Date());
  const botName = opts.botName ?? 'LocalReportsBot';
  const botId = 7_000_000_001;
  const sent: SentTelegramMessage[] = [];
  let webhook: { url: string; secret_token?: string } | null = null;
  let nextMessageId = 1;
  let nextUpdateId = 100_000;
  let rateLimited = { calls: 0, retryAfter: 1 };
  let failing = { calls: 0, status: 502 };
  const blocked = new Set<number>();

  const faults: TelegramFaults = {
    rateLimit(calls, retryAfter) {
      rateLimited = { calls, retryAfter };
    },
    serverError(calls, status = 502) {
      failing = { calls, status };
    },
    block(chatId) {
      blocked.add(chatId);
    },
    reset() {
      rateLimited = { calls: 0, retryAfter: 1 };
      failing = { calls: 0, status: 502 };
      blocked.clear();
    },
  };

  function record(chatId: number, text: string, parseMode: string | undefined, via: SentTelegramMessage['via']) {
    const m: SentTelegramMessage = {
      message_id: nextMessageId++,
      chat_id: chatId,
      text,
      ...(parseMode ? { parse_mode: parseMode } : {}),
      via,
      at: now().toISOString(),
    };
    sent.push(m);
    return m;
  }

  type Answer = { status: number; body: Record<string, unknown> };
  const fail = (status: number, description: string, extra: Record<string, unknown> = {}): Answer => ({
    status,
    body: { ok: false, error_code: status, description, ...extra },
  });

  function botCall(method: string, p: Record<string, unknown>): Answer {
    if (rateLimited.calls > 0) {
      rateLimited.calls--;
      return fail(429, `Too Many Requests: retry after ${rateLimited.retryAfter}`, {
        parameters: { retry_after: rateLimited.retryAfter },
      });
    }
    if (failing.calls > 0) {
      failing.calls--;
      return fail(failing.status, 'Internal Server Error');
    }
    switch (method) {
      case 'getMe':
        return {
          status: 200,
          body: { ok: true, result: { id: botId, is_bot: true, first_name: 'Отчёты WB', username: botName } },
        };
      case 'setWebhook': {
        const url = typeof p.url === 'string' ? p.url : '';
        if (url === '') {
          webhook = null;
          return { status: 200, body: { ok: true, result: true, description: 'Webhook was deleted' } };
        }
        const secret = p.secret_token;
        if (secret !== undefined && (typeof secret !== 'string' || !SECRET_TOKEN.test(secret)))
          return fail(400, 'Bad Request: secret token contains unallowed characters');
        try {
          new URL(url);
        } catch {
          return fail(400, 'Bad Request: invalid webhook URL specified');
        }
        webhook = { url, ...(typeof secret === 'string' ? { secret_token: secret } : {}) };
        return { status: 200, body: { ok: true, result: true, description: 'Webhook was set' } };
      }
      case 'deleteWebhook':
        webhook = null;
        return { status: 200, body: { ok: true, result: true, description: 'Webhook was deleted' } };
      case 'getWebhookInfo':
        return {
          status: 200,
          body: {
            ok: true,
            result: { url: webhook?.url ?? '', has_custom_certificate: false, pending_update_count: 0 },
          },
        };
      case 'sendMessage': {
        const chatId = Number(p.chat_id);
        if (!Number.isInteger(chatId)) return fail(400, 'Bad Request: chat not found');
        if (typeof p.text !== 'string' || p.text.trim() === '') return fail(400, 'Bad Request: message text is empty');
        if (p.text.length > 4096) return fail(400, 'Bad Request: message is too long');
        if (p.parse_mode !== undefined && p.parse_mode !== 'HTML' && p.parse_mode !== 'MarkdownV2')
          return fail(400, 'Bad Request: unsupported parse_mode');
        if (blocked.has(chatId)) return fail(403, 'Forbidden: bot was blocked by the user');
        const m = record(chatId, p.text, p.parse_mode as string | undefined, 'sendMessage');
        return {
          status: 200,
          body: {
            ok: true,
            result: {
              message_id: m.message_id,
              date: Math.floor(Date.parse(m.at) / 1000),
              chat: { id: chatId, type: 'private' },
              text: p.text,
            },
          },
        };
      }
      default:
        return fail(404, 'Not Found');
    }
  }

  async function userSends(chatId: number, text: string, username?: string): Promise<UserSendResult> {
    blocked.delete(chatId);
    if (!webhook) return { delivered: false, status: 0, reply: null };
    const update = {
      update_id: nextUpdateId++,
      message: {
        message_id: nextMessageId++,
        date: Math.floor(now().getTime() / 1000),
        chat: { id: chatId, type: 'private', ...(username ? { username } : {}) },
        from: { id: chatId, is_bot: false, first_name: 'Продавец', ...(username ? { username } : {}) },
        text,
        ...(text.startsWith('/')
          ? { entities: [{ type: 'bot_command', offset: 0, length: text.split(/\s/)[0]!.length }] }
          : {}),
      },
    };
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (webhook.secret_token) headers['x-telegram-bot-api-secret-token'] = webhook.secret_token;
    const res = await fetch(webhook.url, { method: 'POST', headers, body: JSON.stringify(update) });
    const body = await res.text();
    let reply: SentTelegramMessage | null = null;
    if (res.ok) {
      try {
        const r = JSON.parse(body) as { method?: string; chat_id?: unknown; text?: unknown; parse_mode?: string };
        if (r.method === 'sendMessage' && typeof r.text === 'string' && Number.isInteger(Number(r.chat_id)))
          reply = record(Number(r.chat_id), r.text, r.parse_mode, 'webhook_reply');
      } catch {
        // Telegram ignores a reply that is not a method call.
      }
    }
    return { delivered: res.ok, status: res.status, reply };
  }

  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const url = new URL(req.url ?? '/', 'http://localhost');
    const p = url.pathname;
    void (async () => {
      const bot = /^\/bot([^/]+)\/(\w+)$/.exec(p);
      if (bot) {
        if (bot[1] !== opts.token) return send(401, { ok: false, error_code: 401, description: 'Unauthorized' });
        let params: Record<string, unknown> = Object.fromEntries(url.searchParams);
        const raw = req.method === 'POST' ? await readBody(req) : '';
        if (raw) {
          try {
            params = { ...params, ...(JSON.parse(raw) as Record<string, unknown>) };
          } catch {
            return send(400, { ok: false, error_code: 400, description: "Bad Request: can't parse JSON" });
          }
        }
        const a = botCall(bot[2]!, params);
        return send(a.status, a.body);
      }
      const user = /^\/_user\/(-?\d+)\/send$/.exec(p);
      if (user && req.method === 'POST') {
        const b = JSON.parse((await readBody(req)) || '{}') as { text?: string; username?: string };
        if (typeof b.text !== 'string') return send(400, { error: 'text required' });
        if (!webhook) return send(409, { error: 'no webhook is set (setWebhook first)' });
        return send(200, await userSends(Number(user[1]), b.text, b.username));
      }
      if (p === '/_faults' && req.method === 'POST') {
        const b = JSON.parse((await readBody(req)) || '{}') as {
          rate_limit?: { calls: number; retry_after: number };
          server_error?: { calls: number; status?: number };
          block?: number;
          reset?: boolean;
        };
        if (b.reset) faults.reset();
        if (b.rate_limit) faults.rateLimit(b.rate_limit.calls, b.rate_limit.retry_after);
        if (b.server_error) faults.serverError(b.server_error.calls, b.server_error.status);
        if (b.block !== undefined) faults.block(b.block);
        return send(204, '');
      }
      if (p === '/messages' && req.method === 'DELETE') {
        sent.length = 0;
        return send(204, '');
      }
      if (p === '/messages') {
        const chat = url.searchParams.get('chat_id');
        return send(200, chat === null ? sent : sent.filter((m) => m.chat_id === Number(chat)));
      }
      if (p === '/count') return send(200, String(sent.length), 'text/plain');
      if (p === '/') return send(200, renderMessages(sent, botName), 'text/html; charset=utf-8');
      return send(404, { ok: false, error_code: 404, description: 'Not Found' });
    })().catch((e: Error) => {
      if (!res.headersSent) send(500, { error: e.message });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
    port,
    messages: (chatId) => (chatId === undefined ? [...sent] : sent.filter((m) => m.chat_id === chatId)),
    webhook: () => webhook,
    userSends,
    faults,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}
