// Issue 21: the table reads like a P&L — profit, margin and payout beside the article, a compact
// «Главное» preset remembered with the column choice, article names on two lines, a card per article
// on a phone.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import type { Item, Values } from '../api/contract';
import { MemoryRouter } from 'react-router-dom';
import { COLUMNS_KEY, ItemsTable } from './items-table';

const plain = (s: string | null | undefined) => (s ?? '').replace(/[\u00a0\u202f]/g, ' ');

function values(overrides: Values): Values {
  return {
    sales_qty: 10,
    returns_qty: 1,
    net_qty: 9,
    realization: 1000,
    for_pay: 800,
    logistics: 100,
    cost_price: 30,
    cost_total: 300,
    profit: 250,
    margin: 25,
    roi: 80,
    payout: 700,
    ...overrides,
  };
}

function item(id: string, article: string, overrides: Values = {}): Item {
  const v = values(overrides);
  return {
    item_id: id,
    article,
    category: 'Платья',
    nm_id: `nm-${id}`,
    brand: 'Бренд',
    computed: v,
    manual_values: {},
    effective: v,
    null_reasons: {},
  };
}

const LONG = 'набор из 2х полотенец махровых для ванной и кухни, хлопок 100 %, подарочная упаковка';
const items = [
  item('i1', 'A-1'),
  item('i2', LONG, { realization: 3000, profit: -600, margin: -20, payout: 2000 }),
  item('i3', 'C-3', { realization: 500, profit: 50, margin: 10 }),
];
const totals = values({ realization: 4500, profit: -300, payout: 3400, margin: -6.67 });

/** The header's column ids left to right (the second header row). */
const headerOrder = () =>
  Array.from(document.querySelectorAll('.items-table thead tr.header-row th')).map((th) =>
    plain(th.textContent)
      .replace(/[↑↓▲▼]/g, '')
      .trim(),
  );

function phone(narrow: boolean) {
  vi.stubGlobal('matchMedia', (q: string) => ({
    matches: narrow && q.includes('max-width: 640px'),
    media: q,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
  }));
}

beforeAll(() => {
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 700 });
});
beforeEach(() => {
  window.localStorage.clear();
  phone(false);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('items table read like a P&L', () => {
  it('puts profit, margin and payout right after the article, the card and the rest after', () => {
    render(<ItemsTable items={items} totals={totals} onSave={vi.fn()} />);
    const order = headerOrder();
    expect(order.slice(0, 4)).toEqual(['Артикул', 'Прибыль', 'Маржа, %', 'К выплате']);
    expect(order.indexOf('Код WB')).toBeGreaterThan(order.indexOf('К выплате'));
    expect(order.indexOf('Реализация')).toBeGreaterThan(order.indexOf('Код WB'));
    const groups = Array.from(document.querySelectorAll('.items-table thead tr.group-row th')).map(
      (th) => th.textContent,
    );
    expect(groups.slice(0, 3)).toEqual(['Товар', 'Результат', 'Карточка']);
    // Still realization, largest first.
    const rows = Array.from(document.querySelectorAll('tbody tr.item-row')).map((tr) => tr.getAttribute('data-testid'));
    expect(rows).toEqual([`row-${LONG}`, 'row-A-1', 'row-C-3']);
  });

  it('«Главное» shows the compact columns, «Все колонки» all of them; the choice is remembered', () => {
    const { unmount } = render(<ItemsTable items={items} totals={totals} onSave={vi.fn()} />);
    const presets = screen.getByRole('group', { name: 'Набор колонок' });
    expect(within(presets).getByRole('button', { name: 'Все колонки' }).getAttribute('aria-pressed')).toBe('true');
    fireEvent.click(within(presets).getByRole('button', { name: 'Главное' }));
    expect(headerOrder()).toEqual([
      'Артикул',
      'Реализация',
      'Прибыль',
      'Маржа, %',
      'К выплате',
      'Чистые продажи, шт',
      'Себестоимость за шт, ₽',
      'Себестоимость',
    ]);
    expect(screen.queryByTestId('cell-A-1-logistics')).toBeNull();
    expect(screen.getByTestId('cell-A-1-profit')).toBeTruthy();
    // Group chips belong to «Все колонки».
    expect(within(screen.getByRole('group', { name: 'Группы колонок' })).queryByLabelText('Продажи')).toBeNull();
    expect(JSON.parse(window.localStorage.getItem(COLUMNS_KEY) ?? '{}')).toMatchObject({ preset: 'main' });
    unmount();

    render(<ItemsTable items={items} totals={totals} onSave={vi.fn()} />);
    expect(headerOrder()[1]).toBe('Реализация');
    fireEvent.click(screen.getByRole('button', { name: 'Все колонки' }));
    expect(screen.getByTestId('cell-A-1-logistics')).toBeTruthy();
    expect(JSON.parse(window.localStorage.getItem(COLUMNS_KEY) ?? '{}')).toMatchObject({ preset: 'all' });
  });

  it('keeps a long article name whole in the cell, wrapped to two lines by the style sheet', () => {
    render(<ItemsTable items={items} totals={totals} onSave={vi.fn()} />);
    const cell = screen.getByTestId(`cell-${LONG}-article`);
    const name = cell.querySelector('.article-name')!;
    expect(name.textContent).toBe(LONG);
    expect(cell.getAttribute('title')).toContain(LONG);
  });
});

describe('items on a phone', () => {
  it('are cards with the article, realization, profit and margin, and no table to scroll sideways', () => {
    phone(true);
    render(<ItemsTable items={items} totals={totals} onSave={vi.fn()} />);
    expect(screen.queryByTestId('items-table')).toBeNull();
    expect(screen.getByRole('button', { name: 'Главное' }).getAttribute('aria-pressed')).toBe('true');
    const card = screen.getByTestId(`card-${LONG}`);
    expect(within(card).getByTitle(LONG).textContent).toBe(LONG);
    expect(plain(screen.getByTestId(`card-${LONG}-realization`).textContent)).toBe('3 000,00 ₽');
    expect(plain(screen.getByTestId(`card-${LONG}-profit`).textContent)).toBe('-600,00 ₽');
    expect(screen.getByTestId(`card-${LONG}-profit`).className).toBe('figure-money negative');
    expect(plain(screen.getByTestId(`card-${LONG}-margin`).textContent)).toBe('-20,00 %');
    expect(plain(screen.getByTestId('cards-total-realization').textContent)).toBe('4 500,00 ₽');
    // Largest realization first; the sort picker reorders.
    const order = () =>
      Array.from(document.querySelectorAll('.item-cards li')).map((li) => li.getAttribute('data-testid'));
    expect(order()).toEqual([`card-${LONG}`, 'card-A-1', 'card-C-3']);
    fireEvent.change(screen.getByLabelText('Сортировка карточек'), { target: { value: 'profit' } });
    expect(order()).toEqual(['card-A-1', 'card-C-3', `card-${LONG}`]);
  });

  it('a card without a cost price reads «—» for its margin and says why', () => {
    phone(true);
    const bare = {
      ...item('i9', 'NO-COST', { realization: 2000, profit: 1500, margin: null }),
      null_reasons: { margin: 'no_cost_price' as const },
    };
    render(<ItemsTable items={[...items, bare]} totals={totals} onSave={vi.fn()} />);
    const margin = screen.getByTestId('card-NO-COST-margin');
    expect(plain(margin.textContent)).toBe('—нет себестоимости');
    expect(margin.querySelector('.item-card-why')!.getAttribute('title')).toBe(
      'Нет себестоимости: маржа не считается — укажите её в каталоге',
    );
    expect(screen.getByTestId(`card-${LONG}-margin`).querySelector('.item-card-why')).toBeNull();
  });

  it('a search filters the cards and totals them as found', () => {
    phone(true);
    render(<ItemsTable items={items} totals={totals} onSave={vi.fn()} />);
    fireEvent.change(screen.getByLabelText('Поиск по артикулам'), { target: { value: 'c-3' } });
    return vi.waitFor(() => {
      expect(Array.from(document.querySelectorAll('.item-cards li'))).toHaveLength(1);
      expect(plain(screen.getByTestId('cards-totals').textContent)).toContain('Итого по найденным (1)');
      expect(plain(screen.getByTestId('cards-total-realization').textContent)).toBe('500,00 ₽');
    });
  });

  it('«Все колонки» on a phone is the full table, for corrections', () => {
    phone(true);
    render(<ItemsTable items={items} totals={totals} onSave={vi.fn()} />);
    fireEvent.click(screen.getByRole('button', { name: 'Все колонки' }));
    expect(screen.getByTestId('items-table')).toBeTruthy();
    expect(screen.queryByTestId('items-cards')).toBeNull();
    expect(screen.getByRole('button', { name: 'Изменить: Логистика, A-1' })).toBeTruthy();
  });
});

describe('each article opens its unit economics', () => {
  const href = (article: string) => `/articles/${encodeURIComponent(article)}/unit-economics`;

  it('in the table, the article cell is a link to its page', () => {
    phone(false);
    render(
      <MemoryRouter>
        <ItemsTable items={items} totals={totals} onSave={vi.fn()} articleHref={href} />
      </MemoryRouter>,
    );
    expect(screen.getByTestId('ue-link-A-1').getAttribute('href')).toBe('/articles/A-1/unit-economics');
  });

  it('on a phone, the card title is the link', () => {
    phone(true);
    render(
      <MemoryRouter>
        <ItemsTable items={items} totals={totals} onSave={vi.fn()} articleHref={href} />
      </MemoryRouter>,
    );
    expect(screen.getByTestId('ue-link-A-1').getAttribute('href')).toBe('/articles/A-1/unit-economics');
  });
});
