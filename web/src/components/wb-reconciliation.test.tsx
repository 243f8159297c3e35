// Reports imported from WB: the «WB API» mark and the reconciliation badge in the reports list, and the
// report page's «Сверка с WB» — «Сходится» only to the kopeck; any difference is a mismatch, in red, line
// by line with WB's field.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import type { Reconciliation, ReconciliationField, ReportSummary } from '../api/contract';
import { TOKEN_KEY } from '../api/session';
import { renderReportsPage } from '../pages/reports-page.test-support';
import { ReconciliationPanel } from './wb-reconciliation';

const plain = (s: string | null | undefined) => (s ?? '').replace(/[\u00a0\u202f]/g, ' ');

const line = (over: Partial<ReconciliationField> & Pick<ReconciliationField, 'field' | 'wb_field'>) => ({
  wb: 1000,
  ours: 1000,
  diff: 0,
  ...over,
});
const equal: Reconciliation = {
  status: 'match',
  fields: [
    line({ field: 'payout', wb_field: 'bankPaymentSum', wb: 81234.56, ours: 81234.56 }),
    line({ field: 'for_pay', wb_field: 'forPaySum' }),
  ],
};
/** A payout short of WB's by exactly a rebill: still a mismatch, never explained away. */
const shortByRebill: Reconciliation = {
  status: 'mismatch',
  fields: [
    line({ field: 'payout', wb_field: 'bankPaymentSum', wb: 81234.56, ours: 81152.92, diff: -81.64 }),
    line({ field: 'for_pay', wb_field: 'forPaySum' }),
  ],
};
const differs: Reconciliation = {
  status: 'mismatch',
  fields: [
    line({ field: 'payout', wb_field: 'bankPaymentSum', wb: 81234.56, ours: 81334.56, diff: 100 }),
    line({ field: 'storage', wb_field: 'paidStorageSum', wb: 500, ours: 400, diff: -100 }),
    line({ field: 'for_pay', wb_field: 'forPaySum' }),
  ],
};

const summary = (id: string, over: Partial<ReportSummary> = {}): ReportSummary => ({
  id,
  status: 'ready',
  title: `Отчёт ${id}`,
  report_number: null,
  seller: null,
  period_from: '2026-11-16',
  period_to: '2026-11-22',
  rows: 800,
  is_combined: false,
  source_path: null,
  source_available: true,
  created_at: '2026-11-26T10:00:00Z',
  totals: { realization: 1234.5, profit: 100 },
  ...over,
});

beforeEach(() => window.localStorage.setItem(TOKEN_KEY, 'jwt'));
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

describe('reports list', () => {
  it('marks reports imported from WB and says whether each agrees with WB', async () => {
    const items = [
      summary('file'),
      summary('ok', { source: 'wb_api', wb_report_id: '900000001', reconciliation: equal }),
      summary('bad', { source: 'wb_api', wb_report_id: '900000002', reconciliation: differs }),
      summary('none', { source: 'wb_api', reconciliation: { status: 'unavailable', fields: [] } }),
    ];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: RequestInfo | URL) => {
        const url = String(input);
        const body = url.startsWith('/api/reports') ? { items, next_cursor: null } : { items: [] };
        return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
      }),
    );
    renderReportsPage();
    const row = (id: string) => screen.findByTestId(`report-row-${id}`);
    const file = await row('file');
    expect(within(file).queryByTestId('wb-source-badge')).toBeNull();
    expect(within(file).queryByTestId('reconciliation-badge')).toBeNull();

    const ok = await row('ok');
    expect(within(ok).getByTestId('wb-source-badge').textContent).toBe('WB API');
    expect(within(ok).getByTestId('reconciliation-badge').textContent).toBe('Сходится с WB');
    const bad = await row('bad');
    expect(within(bad).getByTestId('wb-source-badge').textContent).toBe('WB API');
    expect(within(bad).getByTestId('reconciliation-badge').textContent).toBe('Расходится');
    const none = await row('none');
    expect(within(none).getByTestId('wb-source-badge').textContent).toBe('WB API');
    expect(within(none).queryByTestId('reconciliation-badge')).toBeNull();
  });
});

describe('«Сверка с WB» on the report page', () => {
  it('says «Сходится с WB до копейки» when every figure is equal', () => {
    render(<ReconciliationPanel reconciliation={equal} />);
    expect(screen.getByTestId('reconciliation-summary').textContent).toBe(
      '✓ Сходится с WB до копейки: Итого к оплате, К перечислению за товар.',
    );
    expect(screen.queryByTestId('reconciliation-table')).toBeNull();
  });

  it('a payout short of WB’s «Итого к оплате» is a mismatch in red with WB’s figure, ours and the difference', () => {
    render(<ReconciliationPanel reconciliation={shortByRebill} />);
    const summary = screen.getByTestId('reconciliation-summary');
    expect(summary.textContent).toBe('Расходится с WB: Итого к оплате — наши итоги отличаются от сумм отчёта WB.');
    expect(summary.className).toBe('reconciliation-bad');
    const row = screen.getByTestId('reconciliation-bankPaymentSum');
    const cells = [...row.querySelectorAll('td')].map((td) => plain(td.getAttribute('data-label')));
    expect(cells).toEqual(['Показатель', 'WB', 'У нас', 'Разница']);
    expect(plain(row.textContent)).toContain('Итого к оплате');
    expect(plain(row.textContent)).toContain('поле WB: bankPaymentSum');
    expect(plain(row.textContent)).toContain('81 234,56 ₽');
    expect(plain(row.textContent)).toContain('81 152,92 ₽');
    const diff = row.querySelector('td:last-child')!;
    expect(plain(diff.textContent)).toBe('-81,64 ₽');
    expect(diff.className).toContain('negative');
    // Equal lines are not repeated.
    expect(screen.queryByTestId('reconciliation-forPaySum')).toBeNull();
  });

  it('lists every differing line of a mismatch, signed', () => {
    render(<ReconciliationPanel reconciliation={differs} />);
    expect(screen.getByTestId('reconciliation-summary').textContent).toBe(
      'Расходится с WB: Итого к оплате, Стоимость хранения — наши итоги отличаются от сумм отчёта WB.',
    );
    const rows = within(screen.getByTestId('reconciliation-table')).getAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(plain(screen.getByTestId('reconciliation-bankPaymentSum').querySelector('td:last-child')?.textContent)).toBe(
      '+100,00 ₽',
    );
    const storage = screen.getByTestId('reconciliation-paidStorageSum');
    expect(plain(storage.textContent)).toContain('Стоимость хранения');
    expect(plain(storage.querySelector('td:last-child')?.textContent)).toBe('-100,00 ₽');
  });

  it('a combined report of WB reports: each WB report with its own verdict, a difference shown even when the sums agree', () => {
    const storage = (diff: number) =>
      line({ field: 'storage', wb_field: 'paidStorageSum', wb: 500, ours: 500 + diff, diff });
    render(
      <ReconciliationPanel
        reconciliation={{
          status: 'mismatch',
          fields: [storage(0)],
          reports: [
            { report_id: 'R1', wb_report_id: '900000001', status: 'mismatch', fields: [storage(0.01)] },
            { report_id: 'R2', wb_report_id: '900000002', status: 'mismatch', fields: [storage(-0.01)] },
            { report_id: 'R3', wb_report_id: '900000003', status: 'match', fields: [storage(0)] },
          ],
        }}
      />,
    );
    const summary = screen.getByTestId('reconciliation-summary');
    expect(summary.textContent).toBe(
      'Расходится с WB по отдельным отчётам (ниже), хотя суммы за весь период совпадают.',
    );
    expect(summary.className).toBe('reconciliation-bad');
    expect(screen.queryByTestId('reconciliation-table')).toBeNull();
    const items = within(screen.getByTestId('reconciliation-reports')).getAllByRole('listitem');
    expect(items.map((li) => li.dataset.status)).toEqual(['mismatch', 'mismatch', 'match']);
    expect(plain(screen.getByTestId('reconciliation-report-900000001').textContent)).toBe(
      'Отчёт WB № 900000001: расходится — Стоимость хранения: WB 500,00 ₽, у нас 500,01 ₽ (+0,01 ₽)',
    );
    expect(plain(screen.getByTestId('reconciliation-report-900000003').textContent)).toBe(
      'Отчёт WB № 900000003: сходится до копейки',
    );
  });

  it('says when WB gave no sums to compare with, and nothing for a report not from WB', () => {
    const { unmount } = render(<ReconciliationPanel reconciliation={{ status: 'unavailable', fields: [] }} />);
    expect(screen.getByTestId('reconciliation-summary').textContent).toContain('сверить итоги не с чем');
    unmount();
    render(<ReconciliationPanel />);
    expect(screen.queryByTestId('reconciliation')).toBeNull();
  });
});
