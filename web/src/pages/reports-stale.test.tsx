// Stale in sight: the list marks stale single and combined reports «Устарел» with the reason, offers
// «Пересобрать устаревшие (N)» (rebuild-many for uploaded reports, recombine for combined ones), and asks
// before the summary XLS or combine use a stale report.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import {
  endApi,
  json,
  renderReportsPage as renderPage,
  reportSummary as summary,
  startApi,
  type ApiCall,
} from './reports-page.test-support';

let calls: ApiCall[] = [];
/** The summary export's X-Stale-Reports answer. */
let staleHeader = '';

beforeEach(() => {
  staleHeader = '';
  calls = startApi(({ url, method }) => {
    if (url === '/api/reports/rebuild') return json({ rebuilt: ['a'], processing: [], skipped: [] });
    if (url === '/api/reports/summary-export')
      return new Response(new Blob(['xls']), {
        status: 200,
        headers: {
          'Content-Type': 'application/vnd.ms-excel',
          'Content-Disposition': 'attachment; filename="summary.xls"',
          'X-Stale-Reports': staleHeader,
        },
      });
    if (method === 'GET' && url.startsWith('/api/reports'))
      return json({
        items: [
          summary('a', { stale: true, stale_reason: 'Себестоимость товаров изменилась после сборки отчёта.' }),
          summary('b'),
          summary('c', {
            is_combined: true,
            source_report_ids: ['a', 'b'],
            stale: true,
            stale_reason: 'Исходный отчёт «Отчёт a» пересобран.',
          }),
        ],
        next_cursor: null,
      });
    return undefined;
  });
});
afterEach(endApi);

describe('stale reports in the list', () => {
  it('shows «Устарел» with the reason on single and combined reports, not on fresh ones', async () => {
    renderPage();
    const a = await screen.findByTestId('stale-badge-a');
    expect(a.textContent).toBe('Устарел');
    expect(a.getAttribute('title')).toContain('Себестоимость');
    expect(screen.getByTestId('stale-badge-c').getAttribute('title')).toContain('пересобран');
    expect(screen.queryByTestId('stale-badge-b')).toBeNull();
  });

  it('«Пересобрать устаревшие (2)» rebuilds the uploaded ones in one request and recombines the combined one', async () => {
    renderPage();
    const button = await screen.findByTestId('rebuild-stale-button');
    expect(button.textContent).toBe('Пересобрать устаревшие (2)');
    fireEvent.click(button);
    await waitFor(() => expect(calls.some((c) => c.url === '/api/reports/c/recombine')).toBe(true));
    const rebuild = calls.find((c) => c.url === '/api/reports/rebuild');
    expect(rebuild).toMatchObject({ method: 'POST', body: { report_ids: ['a'] } });
  });

  it('asks before the summary XLS uses a stale report; «no» sends nothing', async () => {
    const confirm = vi.fn((_text?: string) => false);
    vi.stubGlobal('confirm', confirm);
    window.confirm = confirm;
    renderPage();
    fireEvent.click(await screen.findByLabelText('Выбрать отчёт Отчёт a'));
    fireEvent.click(screen.getByTestId('summary-button'));
    expect(confirm).toHaveBeenCalledOnce();
    expect(confirm.mock.calls[0]![0]).toContain('«Отчёт a» устарел');
    expect(calls.some((c) => c.url === '/api/reports/summary-export')).toBe(false);
  });

  it('after the summary XLS, names the reports the API says went in stale; none: no line', async () => {
    vi.stubGlobal('confirm', () => true);
    window.confirm = () => true;
    URL.createObjectURL = vi.fn(() => 'blob:summary');
    URL.revokeObjectURL = vi.fn();
    staleHeader = 'a';
    renderPage();
    fireEvent.click(await screen.findByLabelText('Выбрать отчёт Отчёт a'));
    fireEvent.click(screen.getByLabelText('Выбрать отчёт Отчёт b'));
    fireEvent.click(screen.getByTestId('summary-button'));
    const line = await screen.findByTestId('summary-stale-note');
    expect(line.textContent).toContain('В сводную вошли устаревшие отчёты: «Отчёт a».');
    expect(calls.find((c) => c.url === '/api/reports/summary-export')?.body).toEqual({ report_ids: ['a', 'b'] });

    staleHeader = '';
    fireEvent.click(screen.getByTestId('summary-button'));
    await waitFor(() => expect(calls.filter((c) => c.url === '/api/reports/summary-export')).toHaveLength(2));
    await waitFor(() => expect(screen.queryByTestId('summary-stale-note')).toBeNull());
  });

  it('does not ask when nothing selected is stale', async () => {
    const confirm = vi.fn((_text?: string) => false);
    vi.stubGlobal('confirm', confirm);
    window.confirm = confirm;
    renderPage();
    fireEvent.click(await screen.findByLabelText('Выбрать отчёт Отчёт b'));
    fireEvent.click(screen.getByTestId('summary-button'));
    expect(confirm).not.toHaveBeenCalled();
  });
});
