import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import type { Values } from '../api/contract';
import { ReportCharts, waterfallSteps } from './report-charts';

const totals: Values = {
  seller_price: 1500,
  wb_discount: 300,
  realization: 1200,
  commission: 200,
  acquiring: 0,
  attorney_services: 0,
  for_pay: 1000,
  logistics: 100,
  storage: 20,
  loans: 50,
  payout: 830,
  vat: 0,
  usn: 60,
  cost_total: 400,
  profit: 420,
};

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the way from the seller price to profit', () => {
  it('takes loans off the payout, shows the payout milestone, and gives loans back before profit', () => {
    const steps = waterfallSteps(totals).map((s) => [s.label, s.kind, s.value]);
    const at = (label: string) => steps.findIndex(([l]) => l === label);
    expect(steps[at('Займы')]).toEqual(['Займы', 'delta', -50]);
    expect(steps[at('К выплате')]).toEqual(['К выплате', 'total', 830]);
    expect(steps[at('Займы (не расход)')]).toEqual(['Займы (не расход)', 'delta', 50]);
    expect(at('Займы')).toBeLessThan(at('К выплате'));
    expect(at('К выплате')).toBeLessThan(at('Займы (не расход)'));
    expect(steps.at(-1)).toEqual(['Прибыль', 'total', 420]);
    // It adds up: no gap steps were needed.
    expect(steps.some(([l]) => String(l).includes('Округления') || String(l).includes('корректировки'))).toBe(false);
  });

  it('on a phone draws the chart as wide as the screen with each label above its bar', () => {
    vi.stubGlobal('matchMedia', (q: string) => ({
      matches: q.includes('max-width: 640px'),
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    }));
    render(<ReportCharts items={[]} totals={totals} />);
    const chart = screen.getByTestId('waterfall-chart');
    expect(chart.getAttribute('data-layout')).toBe('narrow');
    expect(chart.getAttribute('class')).toContain('chart-narrow');
    // Label and amount on one line, the bar under them.
    const group = [...chart.querySelectorAll('g')].find((g) => g.querySelector('text')?.textContent === 'К выплате')!;
    const [label, amount] = group.querySelectorAll('text');
    const bar = group.querySelector('rect')!;
    expect(label!.getAttribute('y')).toBe(amount!.getAttribute('y'));
    expect(Number(bar.getAttribute('y'))).toBeGreaterThan(Number(label!.getAttribute('y')));
    expect(chart.getAttribute('viewBox')).toMatch(/^0 0 360 /);
  });

  it('on a wide screen keeps labels beside the bars', () => {
    vi.stubGlobal('matchMedia', () => ({
      matches: false,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    }));
    render(<ReportCharts items={[]} totals={totals} />);
    expect(screen.getByTestId('waterfall-chart').getAttribute('data-layout')).toBeNull();
  });
});
