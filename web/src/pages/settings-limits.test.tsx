// «Лимит строк» in the settings: a WB sync charges rows while the page is open, so the profile's balance
// may be older than the history's totals. The panel reads the balance from the same answer as the totals
// (the newest record's limits_after): an import's rows are «Списано», never «Начислено при регистрации».
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import type { LimitHistoryPage, User } from '../api/contract';
import { TOKEN_KEY } from '../api/session';
import { createQueryClient } from '../lib/query-client';
import { LimitsPanel } from './settings-page';

const plain = (s: string | null | undefined) => (s ?? '').replace(/[\u00a0\u202f]/g, ' ');

const user = (limits: number) => ({ id: 'u1', email: 'a@b.c', role: 'seller', confirmed: true, limits }) as User;

let history: LimitHistoryPage;

beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL) => {
      const url = String(input);
      if (url.startsWith('/api/auth/limit-history'))
        return new Response(JSON.stringify(history), { status: 200, headers: { 'Content-Type': 'application/json' } });
      return new Response(JSON.stringify({ error: { code: 'not_found', message: 'Not found' } }), { status: 404 });
    }),
  );
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

describe('the limits panel', () => {
  it('counts a WB import charged since the profile was read as charged, not as granted', async () => {
    // Registered with 100 000; a WB sync imported a week of 6 800 rows after the profile was read.
    history = {
      items: [
        {
          id: 'h1',
          operation: 'expense',
          rows: 6_800,
          limits_after: 93_200,
          report_id: 'r1',
          created_at: '2026-11-26T10:00:00.000Z',
          report_title: 'Отчёт WB № 900000001 (16.11–22.11.2026)',
          report_deleted: false,
        },
      ],
      next_cursor: null,
      totals: { charged: 6_800, refunded: 0, topped_up: 0 },
    };
    render(
      <QueryClientProvider client={createQueryClient()}>
        <MemoryRouter>
          <LimitsPanel user={user(100_000)} />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    await vi.waitFor(() => expect(plain(screen.getByTestId('limits-charged').textContent)).toBe('6 800'));
    expect(plain(screen.getByTestId('limits-granted').textContent)).toBe('100 000');
    expect(plain(screen.getByTestId('limits-left').textContent)).toBe('93 200');
    expect(plain(screen.getByTestId('limits-sum').textContent)).toContain(
      '100 000 + 0 пополнено − 6 800 списано = 93 200 осталось',
    );
  });
});
