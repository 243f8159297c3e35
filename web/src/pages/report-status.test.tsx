import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import type { CombineJob, ReportSummary } from '../api/contract';
import { combineStepText } from '../lib/use-combine-job';
import { ReportStatusBadge } from './reports-page';

const plain = (s: string | null | undefined) => (s ?? '').replace(/[\u00a0\u202f]/g, ' ');

const base: ReportSummary = {
  id: 'r1',
  status: 'ready',
  title: 'Неделя 12',
  report_number: '1',
  seller: null,
  period_from: null,
  period_to: null,
  rows: 40000,
  is_combined: false,
  source_path: null,
  source_available: true,
  created_at: '2026-11-25T00:00:00Z',
  totals: {},
};

afterEach(cleanup);

describe('report status in the list', () => {
  it('shows nothing for a ready report', () => {
    render(<ReportStatusBadge report={{ ...base, status: 'ready' }} />);
    expect(screen.queryByTestId('report-status-r1')).toBeNull();
  });

  it('shows a processing upload with the worker’s step and how far it got', () => {
    render(
      <ReportStatusBadge
        report={{
          ...base,
          status: 'processing',
          task: 'upload',
          progress: { step: 'reading', rows_read: 20000, rows_total: 40000, items_written: 0, items_total: 0 },
        }}
      />,
    );
    expect(plain(screen.getByTestId('report-status-r1').textContent)).toBe(
      'ОбрабатываетсяЧитаем строки: 20 000 из 40 000 · 30 %',
    );
  });

  it('shows a rebuild under way as such', () => {
    render(<ReportStatusBadge report={{ ...base, status: 'processing', task: 'rebuild' }} />);
    expect(screen.getByTestId('report-status-r1').textContent).toContain('Пересчитывается');
  });

  it('shows a failed report with its Russian reason and the rows given back', () => {
    render(
      <ReportStatusBadge
        report={{
          ...base,
          status: 'failed',
          refunded_rows: 40000,
          error: { code: 'processing_failed', message: 'Не удалось обработать отчёт из-за сбоя на сервере.' },
        }}
      />,
    );
    expect(plain(screen.getByTestId('report-status-r1').textContent)).toBe(
      'ОшибкаНе удалось обработать отчёт из-за сбоя на сервере. Возвращено: 40 000 строк.',
    );
  });
});

describe('combine progress', () => {
  const job = (done: number, step?: string): CombineJob => ({
    job_id: 'j',
    status: 'running',
    progress: { done, total: 6, step },
  });
  it('names each step: reading source k of n, merging, writing', () => {
    expect(combineStepText(job(0, 'reading'))).toBe('Читаем отчёт 1 из 4');
    expect(combineStepText(job(3, 'reading'))).toBe('Читаем отчёт 4 из 4');
    expect(combineStepText(job(4, 'merging'))).toBe('Сводим артикулы');
    expect(combineStepText(job(5, 'writing'))).toBe('Записываем сводный отчёт');
    // A server without steps: the plain count.
    expect(combineStepText(job(2))).toBe('2 из 6');
  });
});
