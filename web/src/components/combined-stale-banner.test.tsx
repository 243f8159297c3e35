import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { TOKEN_KEY } from '../api/session';
import type { ReportDetail } from '../api/types';
import { createQueryClient } from '../lib/query-client';
import { CombinedStaleBanner } from './combined-stale-banner';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

type Call = { url: string; method: string };
let calls: Call[];
let recombineAnswer: () => Response;
let statusAnswers: Response[];

beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  calls = [];
  recombineAnswer = () => json(202, { job_id: 'job-1', status: 'running', progress: { done: 0, total: 2 } });
  statusAnswers = [json(200, { job_id: 'job-1', status: 'done', progress: { done: 2, total: 2 }, report_id: 'c1' })];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const url = String(input);
      calls.push({ url, method: init.method ?? 'GET' });
      if (url === '/api/reports/c1/recombine') return recombineAnswer();
      if (url === '/api/reports/combine-status/job-1') return statusAnswers.shift() ?? json(500, {});
      return json(404, { error: { code: 'not_found', message: 'Not found' } });
    }),
  );
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

function report(over: Partial<ReportDetail>): ReportDetail {
  return {
    id: 'c1',
    title: 'Сводный отчёт 05.01.2026–18.01.2026',
    report_number: null,
    seller: null,
    period_from: '2026-01-05',
    period_to: '2026-01-18',
    rows: 200,
    is_combined: true,
    source_path: null,
    source_available: false,
    source_report_ids: ['a', 'b'],
    created_at: '2026-01-20T10:00:00.000Z',
    totals: {},
    tax_profile: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
    items: [],
    commission_by_category: [],
    warnings: [],
    stale: true,
    stale_reason:
      'После сборки изменились исходные отчёты: отчёт «Неделя 1» исправлен вручную; отчёт «Неделя 2» пересобран.',
    stale_sources: [
      { id: 'a', title: 'Неделя 1', change: 'corrected' },
      { id: 'b', title: 'Неделя 2', change: 'rebuilt' },
    ],
    ...over,
  } as ReportDetail;
}

function renderBanner(r: ReportDetail) {
  const client = createQueryClient();
  const invalidate = vi.spyOn(client, 'invalidateQueries');
  render(
    <QueryClientProvider client={client}>
      <CombinedStaleBanner report={r} />
    </QueryClientProvider>,
  );
  return invalidate;
}

describe('combined stale banner', () => {
  it('says which source changed how and recombines with one action, then reloads the report', async () => {
    const invalidate = renderBanner(report({}));
    const banner = screen.getByTestId('combined-stale-banner');
    expect(banner.textContent).toContain('Сводный отчёт устарел.');
    expect(banner.textContent).toContain('отчёт «Неделя 1» исправлен вручную; отчёт «Неделя 2» пересобран.');
    expect(
      Array.from(screen.getByTestId('combined-stale-sources').querySelectorAll('li')).map((li) => li.textContent),
    ).toEqual(['«Неделя 1» — исправлен вручную', '«Неделя 2» — пересобран']);

    fireEvent.click(screen.getByRole('button', { name: 'Пересобрать' }));
    await screen.findByRole('button', { name: 'Пересобираем…' });
    await vi.waitFor(() => expect(invalidate).toHaveBeenCalledWith({ queryKey: ['report', 'c1'] }), {
      timeout: 3000,
    });
    expect(calls).toEqual([
      { url: '/api/reports/c1/recombine', method: 'POST' },
      { url: '/api/reports/combine-status/job-1', method: 'GET' },
    ]);
    expect(screen.queryByTestId('recombine-error')).toBeNull();
  });

  it('offers no recombine when a source is deleted, and says why', () => {
    renderBanner(
      report({
        stale_reason: 'После сборки изменились исходные отчёты: отчёт a удалён.',
        stale_sources: [{ id: 'a', title: null, change: 'deleted' }],
      }),
    );
    expect(screen.getByTestId('combined-stale-deleted').textContent).toContain('Один из исходных отчётов удалён');
    expect(screen.queryByRole('button', { name: 'Пересобрать' })).toBeNull();
  });

  it('shows a refused recombine in Russian', async () => {
    recombineAnswer = () =>
      json(409, { error: { code: 'source_missing', message: 'gone', details: { report_ids: ['a'] } } });
    renderBanner(report({}));
    fireEvent.click(screen.getByRole('button', { name: 'Пересобрать' }));
    expect((await screen.findByTestId('recombine-error')).textContent).toBe(
      'Один из исходных отчётов удалён, поэтому сводный отчёт нельзя пересобрать.',
    );
  });

  it('shows nothing for a combined report that is up to date', () => {
    renderBanner(report({ stale: false, stale_reason: null, stale_sources: [] }));
    expect(screen.queryByTestId('combined-stale-banner')).toBeNull();
  });
});
