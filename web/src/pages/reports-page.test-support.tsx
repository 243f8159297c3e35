// The reports list as its page tests see it (reports-page.test.tsx, reports-stale.test.tsx): a signed-in
// session whose API is `route` (a fake fetch, every call recorded), a report summary with the fields the
// contract requires, and the page rendered inside the app's providers.
import { vi } from 'vitest';
import { cleanup, render } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { TOKEN_KEY } from '../api/session';
import type { ReportSummary } from '../api/contract';
import { createQueryClient } from '../lib/query-client';
import { UploadsProvider } from '../lib/uploads';
import { ReportsPage } from './reports-page';

/** A ready uploaded report of one week; `over` sets the rest. */
export const reportSummary = (id: string, over: Partial<ReportSummary> = {}): ReportSummary => ({
  id,
  status: 'ready',
  title: `Отчёт ${id}`,
  report_number: null,
  seller: null,
  period_from: '2025-12-01',
  period_to: '2025-12-07',
  rows: 10,
  is_combined: false,
  source_path: null,
  source_available: true,
  created_at: '2025-12-08T10:00:00Z',
  totals: { realization: 100, profit: 10 },
  stale: false,
  stale_reason: null,
  ...over,
});

export const json = (body: unknown) =>
  new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });

export interface ApiCall {
  url: string;
  method: string;
  body: unknown;
}

/**
 * Signs in and answers every fetch with `route` (else `{}`; `/api/sellers` with no sellers); returns the
 * calls as they are made. For beforeEach; endApi() in afterEach.
 */
export function startApi(route: (call: ApiCall) => Response | undefined): ApiCall[] {
  const calls: ApiCall[] = [];
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const call = {
        url: String(input),
        method: init?.method ?? 'GET',
        body: init?.body ? (JSON.parse(String(init.body)) as unknown) : null,
      };
      calls.push(call);
      return route(call) ?? (call.url === '/api/sellers' ? json({ items: [] }) : json({}));
    }),
  );
  return calls;
}

export function endApi() {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  window.localStorage.clear();
}

export function renderReportsPage() {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter>
        <UploadsProvider>
          <ReportsPage />
        </UploadsProvider>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}
