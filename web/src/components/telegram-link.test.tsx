import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { TOKEN_KEY } from '../api/session';
import { createQueryClient } from '../lib/query-client';
import { TelegramLink } from './telegram-link';

const json = (status: number, body: unknown) =>
  new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });

type Call = { url: string; method: string };
let calls: Call[];
let statusAnswers: Array<() => Response>;
let linkAnswer: () => Response;

const NOT_LINKED = { configured: true, bot_name: 'ShopBot', link: null };
const LINKED = {
  configured: true,
  bot_name: 'ShopBot',
  link: { chat_id: 555, status: 'linked', username: 'anna_shop', linked_at: '2026-12-01T10:00:00.000Z' },
};
const BROKEN = { ...LINKED, link: { ...LINKED.link, status: 'broken' } };
const CODE = {
  code: 'AbCdEfGhIjKlMnOpQrStUvWxYz012345',
  url: 'https://t.me/ShopBot?start=AbCdEfGhIjKlMnOpQrStUvWxYz012345',
  expires_at: '2026-12-01T10:15:00.000Z',
};

beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  calls = [];
  statusAnswers = [];
  linkAnswer = () => json(201, CODE);
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const url = String(input);
      const method = init.method ?? 'GET';
      calls.push({ url, method });
      if (url === '/api/notifications/telegram' && method === 'GET')
        return (statusAnswers.length > 1 ? statusAnswers.shift()! : statusAnswers[0]!)();
      if (url === '/api/notifications/telegram/link' && method === 'POST') return linkAnswer();
      if (url === '/api/notifications/telegram' && method === 'DELETE') return json(204, null);
      return json(404, { error: { code: 'not_found', message: 'Not found' } });
    }),
  );
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

function renderIt() {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <TelegramLink />
    </QueryClientProvider>,
  );
}

describe('TelegramLink', () => {
  it('not linked: «Привязать Telegram» shows the deep link and the code with its 15 minutes', async () => {
    statusAnswers = [() => json(200, NOT_LINKED)];
    renderIt();
    expect((await screen.findByTestId('telegram-status')).textContent).toBe('Telegram не привязан.');
    expect(screen.queryByRole('button', { name: 'Отвязать' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Привязать Telegram' }));
    const box = await screen.findByTestId('telegram-code');
    const a = box.querySelector('a')!;
    expect(a.getAttribute('href')).toBe(CODE.url);
    expect(box.textContent).toContain(`/start ${CODE.code}`);
    expect(box.textContent).toContain('Код действует 15 минут');
    expect(screen.getByRole('button', { name: 'Получить новый код' })).toBeTruthy();
    expect(calls).toContainEqual({ url: '/api/notifications/telegram/link', method: 'POST' });
  });

  it('once the bot links the chat, the page shows it (polled while the code is shown)', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      statusAnswers = [() => json(200, NOT_LINKED), () => json(200, LINKED)];
      renderIt();
      fireEvent.click(await screen.findByRole('button', { name: 'Привязать Telegram' }));
      await screen.findByTestId('telegram-code');
      expect(calls.filter((c) => c.method === 'GET')).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(3000);
      await vi.waitFor(() =>
        expect(screen.getByTestId('telegram-status').textContent).toMatch(/^Telegram привязан как @anna_shop с /),
      );
      expect(screen.queryByTestId('telegram-code')).toBeNull();
      expect(calls.filter((c) => c.method === 'GET')).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('linked: «Отвязать» unlinks and the page reads not linked', async () => {
    statusAnswers = [() => json(200, LINKED), () => json(200, NOT_LINKED)];
    renderIt();
    expect((await screen.findByTestId('telegram-status')).textContent).toContain('@anna_shop');
    expect(screen.queryByRole('button', { name: 'Привязать Telegram' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Отвязать' }));
    await vi.waitFor(() => expect(screen.getByTestId('telegram-status').textContent).toBe('Telegram не привязан.'));
    expect(calls).toContainEqual({ url: '/api/notifications/telegram', method: 'DELETE' });
  });

  it('broken: says the bot is blocked and offers to link again and to unlink', async () => {
    statusAnswers = [() => json(200, BROKEN)];
    renderIt();
    expect((await screen.findByTestId('telegram-status')).textContent).toBe(
      'Бот заблокирован в Telegram — привяжите снова.',
    );
    expect(screen.getByRole('button', { name: 'Привязать Telegram' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Отвязать' })).toBeTruthy();
  });

  it('no bot on the server: says so, no buttons; a refused code shows the Russian message', async () => {
    statusAnswers = [() => json(200, { configured: false, bot_name: null, link: null })];
    renderIt();
    expect((await screen.findByTestId('telegram-status')).textContent).toBe(
      'Уведомления в Telegram на этом сервере не настроены.',
    );
    expect(screen.queryByRole('button')).toBeNull();
    cleanup();

    statusAnswers = [() => json(200, NOT_LINKED)];
    linkAnswer = () => json(503, { error: { code: 'telegram_not_configured', message: 'no bot', details: {} } });
    renderIt();
    fireEvent.click(await screen.findByRole('button', { name: 'Привязать Telegram' }));
    expect((await screen.findByTestId('telegram-action-error')).textContent).toContain(
      'Уведомления в Telegram на этом сервере не настроены',
    );
  });
});
