// «Подключение WB» in the settings: connecting with a token (and the first day), the API's refusal in
// Russian from the contract's catalogue, the connection's facts, and a running sync followed by polling the
// connection until it ends.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { ERRORS, type WbConnection } from '../api/contract';
import { TOKEN_KEY } from '../api/session';
import { createQueryClient } from '../lib/query-client';
import { WbConnectionPanel, WB_SYNC_POLL_MS } from './wb-connection-panel';

const json = (status: number, body?: unknown) =>
  new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
const plain = (s: string | null | undefined) => (s ?? '').replace(/[\u00a0\u202f]/g, ' ');

const DAY = 86_400_000;
const connection = (over: Partial<WbConnection> = {}): WbConnection => ({
  id: 'c1',
  seller_id: 's1',
  wb_seller_id: '4242001',
  status: 'active',
  seller_name: 'ИП Демо',
  token_hint: '…x9Qz',
  scopes: ['Статистика', 'Финансы'],
  expires_at: new Date(Date.now() + 100.5 * DAY).toISOString(),
  expiry_mail_sent_at: null,
  from: '2025-01-01',
  created_at: '2026-11-26T09:00:00.000Z',
  last_sync: null,
  next_sync: null,
  reports_imported: 0,
  sync: {
    status: 'scheduled',
    progress: { reports_found: 0, reports_imported: 0, rows_read: 0, next_call_at: null },
  },
  error: null,
  unread_reports: [],
  ...over,
});

type Call = { url: string; method: string; body: unknown };
let calls: Call[];
let connections: WbConnection[];
let answers: Record<string, () => Response>;

beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  calls = [];
  connections = [];
  answers = {};
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const url = String(input);
      const method = init.method ?? 'GET';
      calls.push({ url, method, body: init.body ? JSON.parse(String(init.body)) : undefined });
      const answer = answers[`${method} ${url}`];
      if (answer) return answer();
      if (method === 'GET' && url === '/api/wb/connections') return json(200, { items: connections });
      return json(404, { error: { code: 'not_found', message: 'Not found' } });
    }),
  );
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

function renderPanel() {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter>
        <WbConnectionPanel />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('«Подключение WB»', () => {
  it('connects with the pasted token and the first day, then shows the connection’s facts', async () => {
    renderPanel();
    fireEvent.change(await screen.findByTestId('wb-token'), { target: { value: '  eyJ.token.sig \n' } });
    fireEvent.change(screen.getByTestId('wb-from'), { target: { value: '2026-10-01' } });
    const made = connection({ from: '2026-10-01', next_sync: '2026-11-26T09:00:02.000Z' });
    answers['POST /api/wb/connections'] = () => {
      connections = [made];
      return json(201, { connection: made });
    };
    fireEvent.click(screen.getByTestId('wb-connect'));

    const card = await screen.findByTestId('wb-connection-c1');
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([
      { url: '/api/wb/connections', method: 'POST', body: { token: 'eyJ.token.sig', from: '2026-10-01' } },
    ]);
    expect(within(card).getByTestId('wb-status').textContent).toBe('Подключено');
    expect(within(card).getByTestId('wb-token-hint').textContent).toBe('…x9Qz');
    expect(within(card).getByTestId('wb-scopes').textContent).toBe('СтатистикаФинансы');
    expect(plain(within(card).getByTestId('wb-expires').textContent)).toContain('осталось 100 дней');
    expect(within(card).getByTestId('wb-from-date').textContent).toBe('01.10.2026');
    expect(within(card).getByTestId('wb-last-sync').textContent).toBe('ещё не было');
    expect(within(card).getByTestId('wb-next-sync').textContent).toContain('26.11.2026');
    expect(screen.queryByTestId('wb-token')).toBeNull();
    expect(within(card).queryByTestId('wb-expiry-warning')).toBeNull();
  });

  it('a token within 7 days of its expiry: the card says so, and that the mail about it went out', async () => {
    const expires = new Date(Date.now() + 5.5 * DAY).toISOString();
    connections = [connection({ expires_at: expires, expiry_mail_sent_at: '2026-11-25T10:00:00.000Z' })];
    renderPanel();
    const card = await screen.findByTestId('wb-connection-c1');
    const warning = plain(within(card).getByTestId('wb-expiry-warning').textContent);
    expect(warning).toContain('осталось 5 дней');
    expect(warning).toContain('синхронизация остановится');
    expect(warning).toContain('Письмо об этом отправлено 25.11.2026');
    expect(within(card).getByTestId('wb-expires').className).toBe('negative');
  });

  it('says in Russian why WB refused the token, from the contract’s catalogue, and keeps the form', async () => {
    renderPanel();
    answers['POST /api/wb/connections'] = () =>
      json(422, { error: { code: 'wb_token_no_finance', message: 'token lacks the Finance category' } });
    fireEvent.click(await screen.findByTestId('wb-connect'));
    expect((await screen.findByRole('alert')).textContent).toBe('Вставьте токен WB API.');
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);

    fireEvent.change(screen.getByTestId('wb-token'), { target: { value: 'eyJ.no.finance' } });
    fireEvent.click(screen.getByTestId('wb-connect'));
    const error = await screen.findByTestId('wb-connect-error');
    expect(error.textContent).toBe(ERRORS.wb_token_no_finance.message);
    expect(error.textContent).not.toContain('Finance category');
    expect(calls.filter((c) => c.method === 'POST')).toEqual([
      { url: '/api/wb/connections', method: 'POST', body: { token: 'eyJ.no.finance' } },
    ]);
    expect((screen.getByTestId('wb-token') as HTMLTextAreaElement).value).toBe('eyJ.no.finance');
    expect((screen.getByTestId('wb-connect') as HTMLButtonElement).disabled).toBe(false);
  });

  it('a report WB does not give the rows of: named with its week, retried by a button (a sync now)', async () => {
    connections = [
      connection({
        sync: {
          status: 'error',
          progress: { reports_found: 1, reports_imported: 0, rows_read: 0, next_call_at: null },
        },
        error: { code: 'wb_report_unread', message: 'WB не отдаёт строки отчёта № 777' },
        unread_reports: [
          {
            wb_report_id: 777,
            date_from: '2026-11-09',
            date_to: '2026-11-15',
            reason: 'WB answered no rows to the first page (204 or [])',
            attempts: 2,
            since: '2026-11-16T09:00:00.000Z',
          },
        ],
      }),
    ];
    answers['POST /api/wb/connections/c1/sync'] = () => json(202, { connection: connection() });
    renderPanel();
    const card = await screen.findByTestId('wb-connection-c1');
    const unread = within(card).getByTestId('wb-unread');
    expect(plain(unread.textContent)).toContain('WB не отдаёт строки отчёта №777 (09.11.2026 — 15.11.2026)');
    expect(plain(unread.textContent)).toContain('Попыток: 2');
    // The error's sentence is the list itself: not shown twice.
    expect(within(card).queryByTestId('wb-sync-error')).toBeNull();
    fireEvent.click(within(card).getByTestId('wb-unread-retry'));
    await vi.waitFor(() =>
      expect(calls.filter((c) => c.method === 'POST')).toEqual([
        { url: '/api/wb/connections/c1/sync', method: 'POST', body: {} },
      ]),
    );
    await vi.waitFor(() => expect(within(card).queryByTestId('wb-unread')).toBeNull());
  });

  it('WB failing call after call: the error shows WB’s status, the last attempt and the next', async () => {
    connections = [
      connection({
        sync: {
          status: 'error',
          progress: { reports_found: 0, reports_imported: 0, rows_read: 0, next_call_at: '2026-11-26T09:10:00.000Z' },
        },
        error: {
          code: 'wb_unavailable',
          message: 'WB не отвечает как ожидалось',
          wb_status: 500,
          last_attempt_at: '2026-11-26T09:02:00.000Z',
          next_attempt_at: '2026-11-26T09:10:00.000Z',
        },
      }),
    ];
    renderPanel();
    const card = await screen.findByTestId('wb-connection-c1');
    const times = plain(within(card).getByTestId('wb-failure-times').textContent);
    expect(times).toContain('Ответ WB: 500');
    expect(times).toMatch(/Последняя попытка: 26\.11\.2026/);
    expect(times).toMatch(/Следующая: 26\.11\.2026/);
  });

  it('starts a sync, shows its progress while it runs (polling the connection), and its end', async () => {
    connections = [connection({ last_sync: '2026-11-19T09:00:00.000Z', reports_imported: 2 })];
    const running = connection({
      last_sync: '2026-11-19T09:00:00.000Z',
      reports_imported: 3,
      sync: {
        status: 'syncing',
        progress: { reports_found: 4, reports_imported: 1, rows_read: 1600, next_call_at: '2026-11-26T09:01:00.000Z' },
      },
    });
    const done = connection({
      last_sync: '2026-11-26T09:02:00.000Z',
      next_sync: '2026-11-27T09:02:00.000Z',
      reports_imported: 6,
    });
    answers['POST /api/wb/connections/c1/sync'] = () => json(202, { connection: running });
    let polls = 0;
    answers['GET /api/wb/connections/c1'] = () => {
      polls += 1;
      return json(200, { connection: done });
    };
    renderPanel();
    const card = await screen.findByTestId('wb-connection-c1');
    expect(within(card).queryByTestId('wb-progress')).toBeNull();
    fireEvent.click(within(card).getByTestId('wb-sync-now'));

    const bar = await within(card).findByTestId('wb-progress');
    expect(calls.filter((c) => c.method === 'POST')).toEqual([
      { url: '/api/wb/connections/c1/sync', method: 'POST', body: {} },
    ]);
    expect(plain(bar.textContent)).toContain('отчётов загружено 1 из 4 · строк прочитано 1 600');
    expect(plain(bar.textContent)).toContain('следующий запрос к WB');
    expect(within(bar).getByRole('progressbar').getAttribute('aria-valuenow')).toBe('25');
    expect(within(card).getByTestId('wb-sync-status').textContent).toBe('Идёт синхронизация');
    expect(within(card).getByTestId('wb-next-sync').textContent).toBe('идёт сейчас');
    expect((within(card).getByTestId('wb-sync-now') as HTMLButtonElement).disabled).toBe(true);

    // The next poll finds the round over.
    await vi.waitFor(() => expect(within(card).queryByTestId('wb-progress')).toBeNull(), {
      timeout: WB_SYNC_POLL_MS * 3,
    });
    expect(polls).toBeGreaterThanOrEqual(1);
    expect(within(card).getByTestId('wb-sync-status').textContent).toBe('Ждёт следующей синхронизации');
    expect(within(card).getByTestId('wb-reports-imported').textContent).toBe('6');
    expect(within(card).getByTestId('wb-last-sync').textContent).toContain('26.11.2026');
    expect((within(card).getByTestId('wb-sync-now') as HTMLButtonElement).disabled).toBe(false);
  });

  it('a refused token asks for a new one; the sync says why it stopped; the new token is sent', async () => {
    connections = [
      connection({
        status: 'token_expired',
        sync: {
          status: 'stopped',
          progress: { reports_found: 0, reports_imported: 0, rows_read: 0, next_call_at: null },
        },
        error: { code: 'wb_token_expired', message: ERRORS.wb_token_expired.message },
      }),
    ];
    answers['PATCH /api/wb/connections/c1'] = () =>
      json(422, { error: { code: 'wb_token_invalid', message: 'unauthorized' } });
    renderPanel();
    const card = await screen.findByTestId('wb-connection-c1');
    expect(within(card).getByTestId('wb-status').textContent).toBe('Срок токена истёк');
    expect(within(card).getByTestId('wb-sync-error').textContent).toBe(ERRORS.wb_token_expired.message);
    expect((within(card).getByTestId('wb-sync-now') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(within(card).getByTestId('wb-new-token'), { target: { value: 'eyJ.new.one' } });
    fireEvent.click(within(card).getByRole('button', { name: 'Сохранить токен' }));
    expect((await within(card).findByTestId('wb-action-error')).textContent).toBe(ERRORS.wb_token_invalid.message);
    expect(calls.filter((c) => c.method === 'PATCH')).toEqual([
      { url: '/api/wb/connections/c1', method: 'PATCH', body: { token: 'eyJ.new.one' } },
    ]);
  });
});
