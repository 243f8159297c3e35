import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import type { Item, ReportAllocation, ReportCostAttribution, ReportWarning } from '../api/contract';
import { AllocationPanel, CostAttributionPanel, MISSING_COST_LINK, MissingCostBanner } from './report-trust';

afterEach(() => cleanup());

const inRouter = (ui: React.ReactElement) => render(<MemoryRouter>{ui}</MemoryRouter>);

describe('MissingCostBanner', () => {
  const warning: ReportWarning = {
    code: 'missing_cost_price',
    message: 'Не указана себестоимость у 17 артикулов с продажами',
    details: { articles: 17, realization_share: 42.5, realization: 123_456.78, sample_articles: ['A'] },
  };

  it('says how many articles sold without a price and their share, and links to the filtered catalog', () => {
    inRouter(<MissingCostBanner warnings={[{ code: 'unknown_operation', message: 'x' }, warning]} />);
    const banner = screen.getByTestId('missing-cost-banner');
    expect(screen.getByTestId('missing-cost-count').textContent).toBe('17');
    expect(banner.textContent).toContain('17 артикулов с продажами');
    expect(screen.getByTestId('missing-cost-share').textContent).toMatch(/42,5/);
    const link = screen.getByTestId('missing-cost-link');
    expect(link.getAttribute('href')).toBe(MISSING_COST_LINK);
    expect(MISSING_COST_LINK).toBe('/products?missing=1');
  });

  it('one article: the singular; no share when realization is not positive', () => {
    inRouter(
      <MissingCostBanner
        warnings={[{ ...warning, details: { articles: 1, realization_share: null, realization: 0 } }]}
      />,
    );
    expect(screen.getByTestId('missing-cost-banner').textContent).toContain('1 артикула с продажами');
    expect(screen.queryByTestId('missing-cost-share')).toBeNull();
  });

  it('nothing without the warning', () => {
    inRouter(<MissingCostBanner warnings={[{ code: 'mixed_tax_profiles', message: 'x' }]} />);
    expect(screen.queryByTestId('missing-cost-banner')).toBeNull();
  });
});

describe('AllocationPanel', () => {
  const allocation: ReportAllocation = {
    method: 'realization',
    spread: { storage: 187_953.13, acceptance: 27_550.28, deductions: 87_683.97, penalties: 0, ads: 229_003.14 },
    total: 532_190.52,
    articles: 49,
  };

  it('shows the method and what was spread, per cost field (fields with 0 left out), and the total', () => {
    render(<AllocationPanel allocation={allocation} />);
    expect(screen.getByTestId('allocation-method').textContent).toMatch(/49 артикулам пропорционально реализации/);
    const amount = (id: string) => screen.getByTestId(`allocation-${id}`).textContent?.replace(/\s/g, ' ');
    expect(amount('storage')).toMatch(/Хранение.*187 953,13/);
    expect(amount('acceptance')).toMatch(/Приёмка.*27 550,28/);
    expect(amount('deductions')).toMatch(/Удержания.*87 683,97/);
    expect(amount('ads')).toMatch(/Реклама.*229 003,14/);
    expect(screen.queryByTestId('allocation-penalties')).toBeNull();
    expect(amount('total')).toMatch(/532 190,52/);
  });

  it('by quantity, none, and nothing to spread say so in words', () => {
    const { rerender } = render(<AllocationPanel allocation={{ ...allocation, method: 'quantity' }} />);
    expect(screen.getByTestId('allocation-method').textContent).toMatch(/пропорционально проданным штукам/);
    rerender(<AllocationPanel allocation={{ ...allocation, method: 'none', total: 0, articles: 0 }} />);
    expect(screen.getByTestId('allocation-method').textContent).toMatch(/Не распределяются/);
    expect(screen.queryByTestId('allocation-total')).toBeNull();
    rerender(
      <AllocationPanel
        allocation={{
          method: 'realization',
          spread: { storage: 0, acceptance: 0, deductions: 0, penalties: 0, ads: 0 },
          total: 0,
          articles: 0,
          reason: 'nothing_to_spread',
        }}
      />,
    );
    expect(screen.getByTestId('allocation-method').textContent).toMatch(/нет расходов без артикула/);
  });

  it('nothing for a report built before allocation existed', () => {
    render(<AllocationPanel allocation={null} />);
    expect(screen.queryByTestId('allocation-panel')).toBeNull();
  });
});

describe('CostAttributionPanel', () => {
  const ads: ReportCostAttribution = {
    ads: {
      report_total: 1000,
      from_api: 850,
      without_article: 150,
      api_total: 900,
      unmatched: 50,
      unmatched_cards: [{ nm_id: '99000001', amount: 50 }],
      articles: 3,
      days: 7,
    },
  };

  it('shows the API’s part on the articles, the «Реклама без артикула» rest and spend on a card without rows', () => {
    const item = (article: string, ads: number, drr: number | null) =>
      ({ article, effective: { ads, drr, roas: null } }) as unknown as Item;
    render(
      <CostAttributionPanel
        attribution={ads}
        items={[item('A', 400, 20), item('', 150, null), item('B', 0, 0), item('C', 450, 12.5)]}
      />,
    );
    const rows = [...screen.getByTestId('attribution-articles').querySelectorAll('tbody tr')];
    expect(rows.map((r) => r.getAttribute('data-testid'))).toEqual(['attribution-article-C', 'attribution-article-A']);
    expect(screen.getByTestId('attribution-article-A').textContent).toMatch(/400.*20/);
    expect(screen.getByTestId('attribution-ads-api').textContent).toMatch(/850/);
    expect(screen.getByTestId('attribution-ads-rest').textContent).toMatch(/150/);
    expect(screen.getByTestId('attribution-ads-remainder').textContent).toContain('Реклама без артикула');
    expect(screen.getByTestId('attribution-ads-unmatched').textContent).toContain('99000001');
    expect(screen.queryByTestId('attribution-storage')).toBeNull();
  });

  it('nothing without an attribution', () => {
    render(<CostAttributionPanel attribution={null} />);
    expect(screen.queryByTestId('attribution-panel')).toBeNull();
  });
});
