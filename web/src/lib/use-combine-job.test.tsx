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
import { COMBINE_POLL_MS, useCombineJob } from './use-combine-job';

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
      if (url === '/api/reports/combine-status/j1') return json(200, statuses.shift());
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
});
