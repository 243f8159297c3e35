// «Цена для целевой маржи» on the report page: the price for a typed margin and the margin at a typed price,
// from the article's own figures (the worked example of docs/METRICS.md).
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { Item } from '../api/contract';
import { TargetPriceCalculator } from './target-price';

afterEach(cleanup);
const plain = (s: string | null | undefined) => (s ?? '').replace(/[\u00a0\u202f]/g, ' ');

// Two units sold for 1 000 ₽: commission 200, acquiring 20, USN 60, logistics 120 + 40, ads 40; cost 250 + 50 per unit.
const effective = {
  realization: 1000,
  net_qty: 2,
  commission: 200,
  acquiring: 20,
  logistics: 120,
  reverse_logistics: 40,
  ads: 40,
  vat: 0,
  usn: 60,
  cost_price: 250,
  own_cost_price: 50,
};
const item = (article: string, values: Record<string, number>) =>
  ({ id: article, article, effective: values, computed: values, manual_values: {} }) as unknown as Item;

describe('TargetPriceCalculator', () => {
  it('20 % margin → 769,24 ₽; at 1 000 ₽ the margin is 32 %; an unreachable margin says why', () => {
    render(<TargetPriceCalculator items={[item('A-1', effective), item('NONE', { ...effective, net_qty: 0 })]} />);
    expect(plain(screen.getByTestId('target-price-units').textContent)).toContain('комиссия WB 20,00 %');
    expect(plain(screen.getByTestId('target-price-answer').textContent)).toBe(
      'Для маржи 20,00 % цена (реализация за штуку) — 769,24 ₽.',
    );
    fireEvent.change(screen.getByLabelText('Цена, ₽'), { target: { value: '1 000' } });
    expect(plain(screen.getByTestId('target-price-margin').textContent)).toBe(
      'При цене 1 000,00 ₽: прибыль 320,00 ₽ за штуку, маржа 32,00 %.',
    );
    fireEvent.change(screen.getByLabelText('Маржа, %'), { target: { value: '75' } });
    expect(plain(screen.getByTestId('target-price-answer').textContent)).toContain('не получить ни при какой цене');
    // An article that sold nothing is not offered.
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['A-1']);
  });
});
