// Issue 10: on a phone the analytics charts are drawn for the phone's width (360 units, so labels stay
// about 11 px), not the desktop picture shrunk; the value axis is round and includes zero.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import type { AnalyticsWeek } from '../api/contract';
import { MarginGroupsChart, WeeksChart } from './analytics-charts';
import { valueAxis, zeroScale } from './chart-parts';

afterEach(cleanup);

const plain = (s: string | null | undefined) => (s ?? '').replace(/[\u00a0\u202f]/g, ' ');

const week = (i: number, profit: number): AnalyticsWeek => ({
  period_from: `2026-0${1 + Math.floor(i / 4)}-${String(1 + (i % 4) * 7).padStart(2, '0')}`,
  period_to: '2026-01-07',
  report_ids: ['r'],
  realization: 1000,
  for_pay: 800,
  payout: 700,
  profit,
  margin: 10,
  expenses: 300,
  sales_qty: 5,
  returns_qty: 1,
});

describe('analytics charts on a phone', () => {
  it('the weeks chart is 360 units wide, marked narrow, with at most 6 dates under the bars', () => {
    const weeks = Array.from({ length: 12 }, (_, i) => week(i, i % 3 === 0 ? -100 : 200));
    render(<WeeksChart weeks={weeks} narrow />);
    const chart = screen.getByTestId('weeks-chart');
    expect(chart.getAttribute('viewBox')).toMatch(/^0 0 360 /);
    expect(chart.getAttribute('class')).toContain('chart-narrow');
    expect(chart.getAttribute('data-layout')).toBe('narrow');
    const dates = [...chart.querySelectorAll('g[data-testid="week-group"] > text')];
    expect(dates.length).toBeLessThanOrEqual(6);
    expect(screen.getAllByTestId('week-group')).toHaveLength(12);
  });

  it('the desktop weeks chart stays 1000 units wide and unmarked', () => {
    render(<WeeksChart weeks={[week(0, 1)]} />);
    const chart = screen.getByTestId('weeks-chart');
    expect(chart.getAttribute('viewBox')).toMatch(/^0 0 1000 /);
    expect(chart.getAttribute('data-layout')).toBeNull();
  });

  it('margin groups on a phone: name and count, the bar, then realization and profit on their own line', () => {
    render(
      <MarginGroupsChart
        narrow
        groups={{
          high: { count: 3, realization: 3000, profit: 900 },
          low: { count: 2, realization: 1000, profit: 100 },
          loss: { count: 1, realization: 500, profit: -50 },
        }}
      />,
    );
    const chart = screen.getByTestId('margin-groups-chart');
    expect(chart.getAttribute('viewBox')).toMatch(/^0 0 360 /);
    const texts = [...screen.getByTestId('margin-group-loss').querySelectorAll('text')].map((t) =>
      plain(t.textContent),
    );
    expect(texts.slice(0, 2)).toEqual(['Убыточные (< 0)', '1 арт.']);
    expect(texts[2]).toMatch(/^500,00 ₽ · прибыль [−-]50,00$/);
  });
});

describe('chart scales', () => {
  it('zeroScale covers the values and zero', () => {
    const x = zeroScale([50, 150], 0, 100);
    expect(x(0)).toBe(0);
    expect(x(150)).toBe(100);
  });

  it('valueAxis: round ticks through zero, y from the bottom edge up to the top', () => {
    const { ticks, y } = valueAxis([-30, 170], 10, 210);
    expect(ticks).toContain(0);
    expect(ticks[0]).toBeLessThanOrEqual(-30);
    expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(170);
    expect(y(ticks[ticks.length - 1]!)).toBe(10);
    expect(y(ticks[0]!)).toBe(210);
  });
});
