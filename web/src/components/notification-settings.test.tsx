import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { TOKEN_KEY } from '../api/session';
import { createQueryClient } from '../lib/query-client';
import { NotificationSettings } from './notification-settings';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

const KINDS = [
  'report_ready',
  'reconciliation_mismatch',
  'sync_problem',
  'token_expiring',
  'limits_low',
  'profit_drop',
  'penalties',
  'payout',
  'digest',
];
const settings = () => ({
  channels: {
    email: { enabled: true, address: 'seller@example.com' },
    telegram: { status: 'broken', username: 'shop', linked_at: '2026-03-01T10:00:00.000Z' },
  },
  events: Object.fromEntries(KINDS.map((k) => [k, { email: true, telegram: k !== 'digest' }])),
  quiet_hours: null,
  profit_drop_percent: 20,
});

type Call = { url: string; method: string; body: unknown };
let calls: Call[];
let putAnswer: (body: Record<string, unknown>) => Response;

beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  calls = [];
  putAnswer = (body) => json(200, { ...settings(), ...body });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const url = String(input);
      const body = init.body ? JSON.parse(String(init.body)) : undefined;
      calls.push({ url, method: init.method ?? 'GET', body });
      if (url === '/api/notifications/settings' && (init.method ?? 'GET') === 'GET') return json(200, settings());
      if (url === '/api/notifications/settings') return putAnswer(body);
      if (url === '/api/notifications')
        return json(200, {
          items: [
            {
              event_key: 'report_ready:r1',
              kind: 'report_ready',
              channel: 'email',
              status: 'sent',
              subject: 'Отчёт готов: 18.05.2026–24.05.2026',
              created_at: '2026-05-25T10:00:00.000Z',
              sent_at: '2026-05-25T10:01:00.000Z',
              reason: null,
            },
            {
              event_key: 'report_ready:r1',
              kind: 'report_ready',
              channel: 'telegram',
              status: 'held',
              subject: 'Отчёт готов: 18.05.2026–24.05.2026',
              created_at: '2026-05-25T10:00:00.000Z',
              sent_at: null,
              reason: 'quiet_hours',
            },
          ],
          next_cursor: null,
        });
      return json(404, { error: { code: 'not_found', message: 'Not found' } });
    }),
  );
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

function renderSection() {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <NotificationSettings telegramLink={<div data-testid="telegram-slot">привязка</div>} />
    </QueryClientProvider>,
  );
}

describe('«Уведомления» in Настройки', () => {
  it('shows the channels, the Telegram slot and the history; saves the toggles, quiet hours and threshold', async () => {
    renderSection();
    await screen.findByText(/seller@example\.com/);
    expect(screen.getByText(/Бот заблокирован в Telegram/)).toBeTruthy();
    expect(screen.getByTestId('telegram-slot')).toBeTruthy();
    const history = await screen.findByTestId('notification-history');
    expect(history.textContent).toContain('почта · Отчёт готов: 18.05.2026–24.05.2026 — отправлено');
    expect(history.textContent).toContain('Telegram · Отчёт готов: 18.05.2026–24.05.2026 — ждёт конца тихих часов');

    fireEvent.click(screen.getByLabelText('Штрафы и удержания WB в отчёте: почта'));
    fireEvent.click(screen.getByLabelText('Включить'));
    fireEvent.change(screen.getByLabelText('Тихие часы с'), { target: { value: '22:30' } });
    fireEvent.change(screen.getByLabelText('Порог падения прибыли, %'), { target: { value: '35' } });
    fireEvent.click(screen.getByRole('button', { name: 'Сохранить' }));
    await screen.findByTestId('notification-settings-saved');
    const put = calls.find((c) => c.method === 'PUT')!;
    expect(put.url).toBe('/api/notifications/settings');
    expect(put.body).toMatchObject({
      events: { penalties: { email: false, telegram: true }, report_ready: { email: true, telegram: true } },
      quiet_hours: { from: '22:30', to: '08:00' },
      profit_drop_percent: 35,
    });
  });

  it('shows a refusal in Russian', async () => {
    putAnswer = () =>
      json(422, {
        error: {
          code: 'invalid_notification_settings',
          message: 'profit_drop_percent',
          details: { field: 'profit_drop_percent' },
        },
      });
    renderSection();
    await screen.findByText(/seller@example\.com/);
    fireEvent.change(screen.getByLabelText('Порог падения прибыли, %'), { target: { value: '500' } });
    fireEvent.click(screen.getByRole('button', { name: 'Сохранить' }));
    expect((await screen.findByTestId('notification-settings-error')).textContent).toContain(
      'Проверьте настройки уведомлений',
    );
  });
});
