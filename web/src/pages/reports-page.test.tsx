// Issue 13 on the reports list: one card per report on a phone (title, period, realization, profit,
// status), and the summary XLS and combine buttons always shown, disabled with a hint until reports are ticked.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, within } from '@testing-library/react';
import { endApi, json, renderReportsPage as renderPage, reportSummary, startApi } from './reports-page.test-support';

const summary = (id: string, profit: number) => reportSummary(id, { totals: { realization: 1234.5, profit } });

beforeEach(() => {
  startApi(({ url }) =>
    url.startsWith('/api/reports')
      ? json({ items: [summary('a', 100), summary('b', -5)], next_cursor: null })
      : undefined,
  );
});
afterEach(endApi);

describe('reports list', () => {
  it('labels each cell so a row reads as a card on a phone: period, realization, profit, status', async () => {
    renderPage();
    const row = await screen.findByTestId('report-row-a');
    const labelled = Object.fromEntries(
      [...row.querySelectorAll('td[data-label]')].map((td) => [
        td.getAttribute('data-label'),
        (td.textContent ?? '').replace(/[\u00a0\u202f]/g, ' '),
      ]),
    );
    expect(labelled).toMatchObject({
      Период: '01.12.2025 — 07.12.2025',
      Реализация: '1 234,50 ₽',
      Прибыль: '100,00 ₽',
      Статус: 'Готов',
    });
    expect(row.querySelector('td.card-title')?.textContent).toContain('Отчёт a');
  });

  it('shows summary XLS and combine disabled with a hint until enough reports are ticked', async () => {
    renderPage();
    await screen.findByTestId('report-row-a');
    const bar = screen.getByTestId('selection-bar');
    const summaryButton = within(bar).getByTestId('summary-button') as HTMLButtonElement;
    const combineButton = within(bar).getByTestId('combine-button') as HTMLButtonElement;
    expect(summaryButton.disabled).toBe(true);
    expect(combineButton.disabled).toBe(true);
    expect(screen.getByTestId('selection-hint').textContent).toContain('Отметьте отчёты галочками');

    fireEvent.click(screen.getByLabelText('Выбрать отчёт Отчёт a'));
    expect(summaryButton.disabled).toBe(false);
    expect(combineButton.disabled).toBe(true);
    expect(screen.getByTestId('selection-hint').textContent).toBe('Для объединения отметьте ещё хотя бы один отчёт.');

    fireEvent.click(screen.getByLabelText('Выбрать отчёт Отчёт b'));
    expect(combineButton.disabled).toBe(false);
  });
});
