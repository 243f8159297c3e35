// The combine job as the reports page follows it: start, poll every second, open the new report when
// done; a failed job becomes one Russian error, and the caller's error is cleared when a job starts.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { MemoryRouter, useLocation } from 'react-router-dom';
import { ApiError } from '../api/errors';
import { TOKEN_KEY } from '../api/session';
import { createQueryClient } from './query-client';
import {
  COMBINE_POLL_MS,
  COMBINE_STATUS_RETRIES,
  combineRetryDelay,
  retryableStatusError,
  useCombineJob,
} from './use-combine-job';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

let statuses: unknown[];
let requests: Array<{ url: string; body: unknown }>;

beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  requests = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      requests.push({ url, body: init?.body ? JSON.parse(String(init.body)) : null });
      if (url === '/api/reports/combine')
        return json(202, { job_id: 'j1', status: 'queued', progress: { done: 0, total: 4 } });
      if (url === '/api/reports/combine-status/j1') {
        const next = statuses.shift();
        if (next instanceof Error) throw new TypeError('Failed to fetch');
        if (typeof next === 'number')
          return json(next, { error: { code: next === 429 ? 'too_many_requests' : 'internal_error', message: 'x' } });
        return json(200, next);
      }
      return json(200, { items: [], next_cursor: null });
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

function setup() {
  const setError = vi.fn();
  const onDone = vi.fn();
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={['/reports']}>{children}</MemoryRouter>
    </QueryClientProvider>
  );
  const hook = renderHook(() => ({ combine: useCombineJob({ setError, onDone }), path: useLocation().pathname }), {
    wrapper,
  });
  return { hook, setError, onDone };
}

describe('useCombineJob', () => {
  it('starts the job, follows its steps and opens the combined report when done', async () => {
    statuses = [
      { job_id: 'j1', status: 'running', progress: { done: 2, total: 4, step: 'merging' } },
      { job_id: 'j1', status: 'done', progress: { done: 4, total: 4, step: 'done' }, report_id: 'R9' },
    ];
    const { hook, setError, onDone } = setup();
    await act(() => hook.result.current.combine.start(['a', 'b'], '  Декабрь  '));
    expect(requests[0]).toEqual({ url: '/api/reports/combine', body: { report_ids: ['a', 'b'], title: 'Декабрь' } });
    expect(setError).toHaveBeenCalledWith(null);
    expect(hook.result.current.combine.combining).toBe(true);
    expect(hook.result.current.combine.job?.status).toBe('queued');

    await waitFor(() => expect(hook.result.current.combine.job?.progress.step).toBe('merging'), {
      timeout: COMBINE_POLL_MS * 3,
    });
    await waitFor(() => expect(hook.result.current.path).toBe('/reports/R9'), { timeout: COMBINE_POLL_MS * 3 });
    expect(hook.result.current.combine.combining).toBe(false);
    expect(hook.result.current.combine.job).toBeNull();
    expect(onDone).toHaveBeenCalledTimes(1);
    expect(setError).toHaveBeenCalledTimes(1);
  });

  it('opens the combined report with the stale sources the start answered (the page names them)', async () => {
    const stale = [{ id: 'a', title: 'Неделя 49', reason: 'Себестоимость товаров изменилась после сборки отчёта.' }];
    vi.mocked(fetch).mockImplementationOnce(async () =>
      json(202, {
        job_id: 'j1',
        status: 'done',
        progress: { done: 4, total: 4, step: 'done' },
        report_id: 'R7',
        stale_sources: stale,
      }),
    );
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={createQueryClient()}>
        <MemoryRouter initialEntries={['/reports']}>{children}</MemoryRouter>
      </QueryClientProvider>
    );
    const hook = renderHook(() => ({ combine: useCombineJob({ setError: vi.fn() }), location: useLocation() }), {
      wrapper,
    });
    await act(() => hook.result.current.combine.start(['a', 'b'], ''));
    await waitFor(() => expect(hook.result.current.location.pathname).toBe('/reports/R7'));
    expect(hook.result.current.location.state).toEqual({ combinedFromStale: stale });
  });

  it('a failed job ends the progress with the reason in Russian and stays on the list', async () => {
    statuses = [
      {
        job_id: 'j1',
        status: 'failed',
        progress: { done: 1, total: 4 },
        error: { code: 'source_missing', message: 'x' },
      },
    ];
    const { hook, setError, onDone } = setup();
    await act(() => hook.result.current.combine.start(['a', 'b'], ''));
    expect(requests[0]?.body).toEqual({ report_ids: ['a', 'b'] });
    await waitFor(() => expect(hook.result.current.combine.combining).toBe(false), { timeout: COMBINE_POLL_MS * 3 });
    const error = setError.mock.calls.at(-1)?.[0] as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe('source_missing');
    expect(error.message).toMatch(/^Не удалось объединить отчёты\. /);
    expect(hook.result.current.path).toBe('/reports');
    expect(onDone).not.toHaveBeenCalled();
  });

  it('a status call answered 503, 429 or not at all is retried with backoff; the job still opens', async () => {
    statuses = [
      503,
      429,
      new Error('offline'),
      { job_id: 'j1', status: 'done', progress: { done: 4, total: 4, step: 'done' }, report_id: 'R5' },
    ];
    const { hook, setError } = setup();
    await act(() => hook.result.current.combine.start(['a', 'b'], ''));
    const timeout = COMBINE_POLL_MS + combineRetryDelay(1) + combineRetryDelay(2) + combineRetryDelay(3) + 3000;
    await waitFor(() => expect(hook.result.current.path).toBe('/reports/R5'), { timeout });
    expect(requests.filter((r) => r.url.includes('combine-status'))).toHaveLength(4);
    // Only the start's clearing: no error reached the page.
    expect(setError).toHaveBeenCalledTimes(1);
    expect(setError).toHaveBeenCalledWith(null);
  }, 20_000);

  it('retries throttles, server errors and no answer, not a 404, waiting 1, 2, 4, 8, 16 s', () => {
    expect([1, 2, 3, 4, 5].map(combineRetryDelay)).toEqual([1000, 2000, 4000, 8000, 16000]);
    expect(COMBINE_STATUS_RETRIES).toBe(5);
    expect(retryableStatusError(new ApiError(503, 'internal_error', 'x'))).toBe(true);
    expect(retryableStatusError(new ApiError(429, 'too_many_requests', 'x'))).toBe(true);
    expect(retryableStatusError(new ApiError(0, 'network_error', 'x'))).toBe(true);
    expect(retryableStatusError(new ApiError(404, 'job_not_found', 'x'))).toBe(false);
    expect(retryableStatusError(new Error('x'))).toBe(false);
  });

  it('a lost job (404) ends the progress at once with its error', async () => {
    statuses = [404];
    const { hook, setError } = setup();
    await act(() => hook.result.current.combine.start(['a', 'b'], ''));
    await waitFor(() => expect(hook.result.current.combine.combining).toBe(false), { timeout: COMBINE_POLL_MS * 3 });
    expect((setError.mock.calls.at(-1)?.[0] as ApiError).status).toBe(404);
    expect(requests.filter((r) => r.url.includes('combine-status'))).toHaveLength(1);
  });
});
