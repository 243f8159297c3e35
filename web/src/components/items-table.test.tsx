import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import type { Item, Report, Values } from '../api/contract';
import { TOKEN_KEY } from '../api/session';
import { createQueryClient } from '../lib/query-client';
import { ReportPage } from '../pages/report-page';
import { columnWindow } from './items-table';
import { nullReasons } from '../../../shared/engine/fields';

// Intl's ru-RU grouping uses no-break spaces; compare text the way a reader sees it.
const plain = (s: string | null | undefined) => (s ?? '').replace(/[\u00a0\u202f]/g, ' ');

function values(overrides: Values): Values {
  return {
    sales_qty: 10,
    returns_qty: 1,
    net_qty: 9,
    seller_price: 1500,
    realization: 1234.56,
    for_pay: 1000,
    commission: 200,
    profit: 300,
    margin: 24.3,
    payout: 900,
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
    null_reasons: nullReasons(v),
  };
}

const report: Report = {
  id: 'r1',
  status: 'ready',
  title: 'Отчёт № 555',
  report_number: '555',
  seller: { id: 's1', number: '42', name: 'ИП Иванов' },
  period_from: '2025-12-01',
  period_to: '2025-12-07',
  rows: 120,
  is_combined: false,
  source_path: 'sources/u/r1/file.zip',
  source_available: true,
  created_at: '2025-12-08T10:00:00Z',
  totals: values({ realization: 2469.12, profit: 600, for_pay: 2000, payout: 1800, margin: 24.3 }),
  tax_profile: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
  allocation: null,
  cost_attribution: null,
  costs_pending: [],
  items: [item('i1', 'A-1'), item('i2', 'B-2', { realization: 1234.56, profit: 300 })],
  commission_by_category: [],
  warnings: [],
  stale: false,
  stale_reason: null,
};

/** Items' null_reasons as the columns answer holds them: {field: {row: reason}}. */
function reasonColumns(items: readonly Item[]) {
  const out: Partial<Record<'margin' | 'roi', Record<string, 'no_cost_price' | 'no_realization' | 'no_net_sales'>>> =
    {};
  items.forEach((i, row) => {
    for (const [f, why] of Object.entries(i.null_reasons) as Array<['margin' | 'roi', 'no_cost_price']>)
      (out[f] ??= {})[row] = why;
  });
  return out;
}

/** The report as GET /api/reports/{id}?items=columns answers it (items as columns, only differences sparse). */
function asColumns(r: Report) {
  const { items, ...rest } = r;
  const fields = [...new Set(items.flatMap((i) => [...Object.keys(i.effective), ...Object.keys(i.computed)]))];
  const sparse = (pick: (i: Item, f: string) => number | null | undefined) => {
    const out: Record<string, Record<string, number | null>> = {};
    items.forEach((i, row) =>
      fields.forEach((f) => {
        const v = pick(i, f);
        if (v !== undefined) (out[f] ??= {})[row] = v;
      }),
    );
    return out;
  };
  return {
    ...rest,
    item_columns: {
      count: items.length,
      item_id: items.map((i) => i.item_id),
      article: items.map((i) => i.article),
      category: items.map((i) => i.category),
      nm_id: items.map((i) => i.nm_id),
      brand: items.map((i) => i.brand),
      fields,
      effective: fields.map((f) => items.map((i) => i.effective[f] ?? null)),
      computed: sparse((i, f) =>
        (i.computed[f] ?? null) !== (i.effective[f] ?? null) ? (i.computed[f] ?? null) : undefined,
      ),
      manual_values: sparse((i, f) => i.manual_values[f] ?? undefined),
      null_reasons: reasonColumns(items),
    },
  };
}

type Call = { url: string; method: string; body: unknown };
let calls: Call[];
let nextPut: (body: { field: string; value: number | null }) => Response;

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

const heightDescriptor = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientHeight');
beforeAll(() => {
  // happy-dom does no layout; give the scroll box a height so the virtualiser renders rows.
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 700 });
});
afterAll(() => {
  if (heightDescriptor) Object.defineProperty(HTMLElement.prototype, 'clientHeight', heightDescriptor);
});

beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  calls = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const url = String(input);
      const method = init.method ?? 'GET';
      const body = init.body ? JSON.parse(String(init.body)) : undefined;
      calls.push({ url, method, body });
      if (method === 'GET' && url === '/api/reports/r1?items=columns') return json(200, { report: asColumns(report) });
      if (method === 'PUT' && url === '/api/reports/items/i1/manual-value') return nextPut(body);
      return json(404, { error: { code: 'not_found', message: 'Not found' } });
    }),
  );
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

function renderReport() {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={['/reports/r1']}>
        <Routes>
          <Route path="/reports/:id" element={<ReportPage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('items table', () => {
  it('shows the report figures and a row per article with effective values and totals', async () => {
    renderReport();
    expect(plain((await screen.findByTestId('figure-profit')).textContent)).toBe('600,00 ₽');
    expect(plain(screen.getByTestId('figure-realization').textContent)).toBe('2 469,12 ₽');
    expect(plain(screen.getByTestId('figure-margin').textContent)).toBe('24,30 %');
    expect(plain(screen.getByTestId('cell-A-1-realization').textContent)).toBe('1 234,56');
    expect(screen.getByTestId('cell-B-2-article').textContent).toBe('B-2');
    expect(plain(screen.getByTestId('total-realization').textContent)).toBe('2 469,12');
  });

  it('shows «—» for the kVV rate of an article without sales or returns (unknown, not 0,00 %)', async () => {
    const original = report.items;
    report.items = [
      item('i1', 'A-1', { category_commission_percent: 25 }),
      item('i2', 'B-2', { sales_qty: 0, returns_qty: 0, net_qty: 0, category_commission_percent: 0, realization: 0 }),
    ];
    try {
      renderReport();
      expect(plain((await screen.findByTestId('cell-A-1-category_commission_percent')).textContent)).toBe('25,00 %');
      expect(screen.getByTestId('cell-B-2-category_commission_percent').textContent).toBe('—');
    } finally {
      report.items = original;
    }
  });

  it('shows «—» for the ROI of an article without a cost price, and says why on hover', async () => {
    const original = report.items;
    report.items = [
      item('i1', 'A-1', { cost_total: 10_000, roi: 12.5 }),
      item('i2', 'B-2', { cost_price: 0, cost_total: 0, own_costs: 30, roi: null }),
    ];
    try {
      renderReport();
      const roi = await screen.findByTestId('cell-B-2-roi');
      expect(roi.textContent).toBe('—');
      expect(roi.getAttribute('title')).toContain('Нет себестоимости');
      expect(screen.getByTestId('cell-A-1-roi').getAttribute('title')).toBeNull();
    } finally {
      report.items = original;
    }
  });

  it('shows «—» for the margin of an article without a cost price, and says why on hover', async () => {
    const original = report.items;
    report.items = [
      item('i1', 'A-1', { cost_price: 100, cost_total: 10_000, margin: 20 }),
      item('i2', 'B-2', { realization: 5_000, cost_price: 0, cost_total: 0, margin: null, roi: null }),
    ];
    try {
      renderReport();
      const margin = await screen.findByTestId('cell-B-2-margin');
      expect(margin.textContent).toBe('—');
      expect(margin.getAttribute('title')).toBe('Нет себестоимости: маржа не считается — укажите её в каталоге');
      expect(screen.getByTestId('cell-A-1-margin').getAttribute('title')).toBeNull();
    } finally {
      report.items = original;
    }
  });

  it('orders the articles by realization, largest first, before any header is clicked', async () => {
    const original = report.items;
    report.items = [
      item('i1', 'SMALL', { realization: 100 }),
      item('i2', 'BIG', { realization: 5000 }),
      item('i3', 'MID', { realization: 900 }),
    ];
    try {
      renderReport();
      await screen.findByTestId('row-BIG');
      const order = screen.getAllByTestId(/^row-/).map((r) => r.dataset.testid);
      expect(order).toEqual(['row-BIG', 'row-MID', 'row-SMALL']);
    } finally {
      report.items = original;
    }
  });

  it('edits a cell in place: PUT with the field and the value in roubles, then marks it corrected with the computed value on hover', async () => {
    nextPut = (body) => {
      const corrected = values({ realization: 1500.5, profit: 565.94 });
      return json(200, {
        item: { ...item('i1', 'A-1'), manual_values: { [body.field]: body.value }, effective: corrected },
        totals: values({ realization: 2735.06, profit: 865.94 }),
      });
    };
    renderReport();
    const cell = await screen.findByTestId('cell-A-1-realization');
    expect(cell.getAttribute('title')).toBeNull();

    fireEvent.click(within(cell).getByRole('button', { name: 'Изменить: Реализация, A-1' }));
    const input = screen.getByLabelText('Реализация, A-1') as HTMLInputElement;
    expect(input.value).toBe('1234,56');
    fireEvent.change(input, { target: { value: '1 500,50' } });
    fireEvent.keyDown(input, { key: 'Enter' });

    await waitFor(() => expect(screen.getByTestId('cell-A-1-realization').getAttribute('data-corrected')).toBe('true'));
    const put = calls.filter((c) => c.method === 'PUT');
    expect(put).toEqual([
      { url: '/api/reports/items/i1/manual-value', method: 'PUT', body: { field: 'realization', value: 1500.5 } },
    ]);

    const corrected = screen.getByTestId('cell-A-1-realization');
    expect(corrected.className).toContain('corrected');
    expect(plain(corrected.getAttribute('title'))).toBe('Исправлено вручную. Рассчитано: 1 234,56');
    expect(plain(corrected.textContent)).toContain('1 500,50');
    // Totals and the headline follow the API's recomputed totals.
    expect(plain(screen.getByTestId('total-realization').textContent)).toBe('2 735,06');
    expect(plain(screen.getByTestId('figure-profit').textContent)).toBe('865,94 ₽');
    expect(plain(screen.getByTestId('cell-A-1-profit').textContent)).toContain('565,94');
  });

  it('resets a correction by sending null', async () => {
    const manual = { ...item('i1', 'A-1'), manual_values: { profit: 999 }, effective: values({ profit: 999 }) };
    report.items = [manual, item('i2', 'B-2')];
    nextPut = () => json(200, { item: item('i1', 'A-1'), totals: report.totals });
    try {
      renderReport();
      const cell = await screen.findByTestId('cell-A-1-profit');
      expect(plain(cell.getAttribute('title'))).toBe('Исправлено вручную. Рассчитано: 300,00');

      fireEvent.click(within(cell).getByRole('button', { name: 'Сбросить корректировку: Прибыль, A-1' }));

      await waitFor(() => expect(screen.getByTestId('cell-A-1-profit').getAttribute('data-corrected')).toBeNull());
      expect(calls.filter((c) => c.method === 'PUT')).toEqual([
        { url: '/api/reports/items/i1/manual-value', method: 'PUT', body: { field: 'profit', value: null } },
      ]);
      const reset = screen.getByTestId('cell-A-1-profit');
      expect(reset.getAttribute('title')).toBeNull();
      expect(plain(reset.textContent)).toBe('300,00');
    } finally {
      report.items = [item('i1', 'A-1'), item('i2', 'B-2', { realization: 1234.56, profit: 300 })];
    }
  });

  it('sends counts as whole numbers and percents to 2 decimals', async () => {
    nextPut = (body) =>
      json(200, { item: { ...item('i1', 'A-1'), manual_values: { [body.field]: body.value } }, totals: report.totals });
    renderReport();
    const qty = await screen.findByTestId('cell-A-1-sales_qty');
    fireEvent.click(within(qty).getByRole('button'));
    const input = screen.getByLabelText('Продажи, шт, A-1');
    fireEvent.change(input, { target: { value: '12' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(1));

    fireEvent.click(
      within(screen.getByTestId('cell-A-1-margin')).getByRole('button', { name: 'Изменить: Маржа, %, A-1' }),
    );
    const margin = screen.getByLabelText('Маржа, %, A-1');
    fireEvent.change(margin, { target: { value: '31,456' } });
    fireEvent.keyDown(margin, { key: 'Enter' });
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(2));

    expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([
      { field: 'sales_qty', value: 12 },
      { field: 'margin', value: 31.46 },
    ]);
  });

  it('does not send text that is not a number, and Escape leaves the value as it was', async () => {
    renderReport();
    const cell = await screen.findByTestId('cell-A-1-realization');
    fireEvent.click(within(cell).getByRole('button'));
    const input = screen.getByLabelText('Реализация, A-1');
    fireEvent.change(input, { target: { value: 'двести' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(input.getAttribute('aria-invalid')).toBe('true');
    fireEvent.keyDown(input, { key: 'Escape' });
    expect(screen.queryByLabelText('Реализация, A-1')).toBeNull();
    expect(plain(screen.getByTestId('cell-A-1-realization').textContent)).toBe('1 234,56');
    expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(0);
  });

  it('explains a refused correction in Russian and keeps the computed value', async () => {
    nextPut = () => json(422, { error: { code: 'field_not_correctable', message: 'Field is not correctable' } });
    renderReport();
    const cell = await screen.findByTestId('cell-A-1-for_pay');
    fireEvent.click(within(cell).getByRole('button'));
    const input = screen.getByLabelText('К перечислению, A-1');
    fireEvent.change(input, { target: { value: '1100' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect((await screen.findByTestId('cell-save-error')).textContent).toBe('Это поле нельзя скорректировать вручную.');
    expect(screen.getByTestId('cell-A-1-for_pay').getAttribute('data-corrected')).toBeNull();
  });

  it('filters rows by the search text', async () => {
    renderReport();
    await screen.findByTestId('cell-A-1-profit');
    fireEvent.change(screen.getByLabelText('Поиск по артикулам'), { target: { value: 'b-2' } });
    await waitFor(() => expect(screen.queryByTestId('row-A-1')).toBeNull());
    expect(screen.getByTestId('row-B-2')).toBeTruthy();
    expect(screen.getByTestId('items-count').textContent).toContain('Найдено 1 из 2');
  });

  it('renders only a window of rows for a report with 5,000 articles', async () => {
    const many = Array.from({ length: 5000 }, (_, i) => item(`m${i}`, `ART-${i}`, { profit: i }));
    const original = report.items;
    report.items = many;
    try {
      renderReport();
      await screen.findByTestId('cell-ART-0-profit');
      const rendered = screen.getAllByTestId(/^row-ART-/).length;
      expect(rendered).toBeGreaterThan(10);
      expect(rendered).toBeLessThan(100);
      expect(screen.getByTestId('items-count').textContent).toContain('5');
      // Sorting by profit descending brings the last article to the top.
      fireEvent.click(screen.getByRole('button', { name: 'Прибыль' }));
      await screen.findByTestId('cell-ART-4999-profit');
    } finally {
      report.items = original;
    }
  });

  it('windows columns around the visible part, and renders all without a measured width', () => {
    const cols = ['article', 'nm_id', 'category', ...Array.from({ length: 40 }, (_, i) => `f${i}`)].map((id) => ({
      id,
    })) as unknown as Parameters<typeof columnWindow>[0];
    expect(columnWindow(cols, 0, 0)).toEqual([1, 42]);
    const [from, to] = columnWindow(cols, 0, 1400);
    expect(from).toBe(1);
    expect(to).toBeGreaterThan(15);
    expect(to).toBeLessThan(30);
    const [from2, to2] = columnWindow(cols, 3000, 1400);
    expect(from2).toBeGreaterThan(15);
    expect(to2).toBe(42);
  });
});
