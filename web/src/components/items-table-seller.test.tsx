// Issue 13: corrections with the computed value and refusals in the editor, what changed downstream,
// zero columns hidden by default (and remembered), filtered totals, a visible «Ничего не найдено».
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { Item, Values } from '../api/contract';
import { allZeroFields, COLUMNS_KEY, ItemsTable, totalsOf } from './items-table';

const plain = (s: string | null | undefined) => (s ?? '').replace(/[\u00a0\u202f]/g, ' ');

function values(overrides: Values): Values {
  return {
    sales_qty: 10,
    returns_qty: 1,
    net_qty: 9,
    realization: 1000,
    for_pay: 800,
    logistics: 100,
    storage: 0,
    penalties: 0,
    cost_total: 300,
    profit: 250,
    margin: 25,
    payout: 700,
    ...overrides,
  };
}

function item(id: string, article: string, overrides: Values = {}, manual: Values = {}): Item {
  const v = values(overrides);
  return {
    item_id: id,
    article,
    category: 'Платья',
    nm_id: `nm-${id}`,
    brand: 'Бренд',
    computed: values({}),
    manual_values: manual,
    effective: v,
    null_reasons: {},
  };
}

const items = [item('i1', 'A-1'), item('i2', 'B-2', { realization: 3000, profit: 600, payout: 2000 })];
const totals = values({ realization: 4000, profit: 850, payout: 2700, margin: 21.25 });

beforeAll(() => {
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 700 });
});
beforeEach(() => window.localStorage.clear());
afterEach(() => cleanup());

describe('items table as a seller uses it', () => {
  it('shows the computed value and a refusal (as an error) in the editor panel, and saves by tap', async () => {
    const corrected = item('i1', 'A-1', { logistics: 150 }, { logistics: 150 });
    const onSave = vi.fn(async () => corrected);
    render(<ItemsTable items={[corrected, items[1]!]} totals={totals} onSave={onSave} />);
    expect(screen.getByTestId('correction-hint').textContent).not.toMatch(/наведите/i);

    fireEvent.click(screen.getByRole('button', { name: 'Изменить: Логистика, A-1' }));
    const panel = screen.getByTestId('editor-panel');
    // The computed value and the correction, in the editor itself (not a native tooltip).
    expect(plain(within(panel).getByTestId('editor-computed').textContent)).toBe(
      'Рассчитано: 100,00 ₽ · исправлено на 150,00 ₽',
    );
    const input = screen.getByLabelText('Логистика, A-1');
    expect(input.getAttribute('aria-describedby')).toBe('cell-editor-panel');

    fireEvent.change(input, { target: { value: 'двести' } });
    fireEvent.click(within(panel).getByRole('button', { name: 'Сохранить' }));
    const error = within(panel).getByRole('alert');
    expect(error.textContent).toBe('Введите число, например 1234,56');
    expect(error.className).toBe('editor-error');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(onSave).not.toHaveBeenCalled();

    fireEvent.change(input, { target: { value: '175,5' } });
    fireEvent.click(within(screen.getByTestId('editor-panel')).getByRole('button', { name: 'Сохранить' }));
    await waitFor(() => expect(onSave).toHaveBeenCalledWith(corrected, 'logistics', 175.5));
  });

  it('a count that is not whole is refused in the panel, Escape closes it', () => {
    render(<ItemsTable items={items} totals={totals} onSave={vi.fn()} />);
    fireEvent.click(screen.getByRole('button', { name: 'Изменить: Продажи, шт, A-1' }));
    const input = screen.getByLabelText('Продажи, шт, A-1');
    fireEvent.change(input, { target: { value: '2,5' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(screen.getByTestId('editor-error').textContent).toBe('Введите целое число, например 12');
    fireEvent.keyDown(input, { key: 'Escape' });
    expect(screen.queryByTestId('editor-panel')).toBeNull();
  });

  it('after a correction says what changed for the article: profit, margin, payout', async () => {
    const after = item('i1', 'A-1', { logistics: 200, profit: 150, margin: 15, payout: 600 }, { logistics: 200 });
    render(<ItemsTable items={items} totals={totals} onSave={async () => after} />);
    fireEvent.click(screen.getByRole('button', { name: 'Изменить: Логистика, A-1' }));
    const input = screen.getByLabelText('Логистика, A-1');
    fireEvent.change(input, { target: { value: '200' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    const note = await screen.findByTestId('correction-change');
    expect(plain(note.textContent)).toContain('A-1 · Логистика: 100,00 ₽ → 200,00 ₽.');
    expect(plain(note.textContent)).toContain(
      'Отсюда: прибыль 250,00 ₽ → 150,00 ₽; маржа 25,00 % → 15,00 %; к выплате 700,00 ₽ → 600,00 ₽.',
    );
  });

  it('hides all-zero columns by default, shows them on request and remembers the choice', () => {
    const { unmount } = render(<ItemsTable items={items} totals={totals} onSave={vi.fn()} />);
    // storage and penalties are 0 in every row; acquiring is absent everywhere.
    expect(screen.queryByTestId('cell-A-1-storage')).toBeNull();
    expect(screen.queryByTestId('cell-A-1-penalties')).toBeNull();
    expect(screen.getByTestId('cell-A-1-logistics')).toBeTruthy();
    const toggle = within(screen.getByTestId('show-zero-columns')).getByRole('checkbox');
    fireEvent.click(toggle);
    expect(screen.getByTestId('cell-A-1-storage')).toBeTruthy();
    // A group switched off is remembered too.
    fireEvent.click(within(screen.getByRole('group', { name: 'Группы колонок' })).getByLabelText('Продажи'));
    expect(screen.queryByTestId('cell-A-1-sales_qty')).toBeNull();
    expect(JSON.parse(window.localStorage.getItem(COLUMNS_KEY) ?? '{}')).toEqual({
      hiddenGroups: ['sales'],
      showZero: true,
    });
    unmount();
    render(<ItemsTable items={items} totals={totals} onSave={vi.fn()} />);
    expect(screen.getByTestId('cell-A-1-storage')).toBeTruthy();
    expect(screen.queryByTestId('cell-A-1-sales_qty')).toBeNull();
  });

  it('a search shows the total of the rows found, labelled so; none found is said outside the scroll box', async () => {
    render(<ItemsTable items={items} totals={totals} onSave={vi.fn()} />);
    expect(screen.getByTestId('totals-label').textContent).toBe('Итого по отчёту');
    fireEvent.change(screen.getByLabelText('Поиск по артикулам'), { target: { value: 'b-2' } });
    await waitFor(() => expect(screen.getByTestId('totals-label').textContent).toBe('Итого по найденным (1)'));
    expect(plain(screen.getByTestId('total-realization').textContent)).toBe('3 000,00');
    expect(plain(screen.getByTestId('total-margin').textContent)).toBe('20,00 %');

    fireEvent.change(screen.getByLabelText('Поиск по артикулам'), { target: { value: 'нет такого' } });
    const empty = await screen.findByTestId('items-empty');
    expect(empty.textContent).toBe('Ничего не найдено по запросу «нет такого»');
    expect(screen.getByTestId('items-table').contains(empty)).toBe(false);
  });

  it('totalsOf sums money and recomputes ratios; allZeroFields finds empty columns', () => {
    const t = totalsOf(items);
    expect(t.realization).toBe(4000);
    expect(t.profit).toBe(850);
    expect(t.margin).toBe(21.25);
    const zero = allZeroFields(items, totals);
    expect(zero.has('storage')).toBe(true);
    expect(zero.has('acquiring')).toBe(true);
    expect(zero.has('logistics')).toBe(false);
  });
});
