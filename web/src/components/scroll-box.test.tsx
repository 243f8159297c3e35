// The answer first: the report's one line of reconciliation under its title, and the «листайте» hint of a
// table wider than its box (shown only while it is wider).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, render, screen } from '@testing-library/react';
import { ScrollBox } from './scroll-box';
import { ReconciliationStatus } from './wb-reconciliation';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('ScrollBox', () => {
  it('shows the hint while the table is wider than its box, and hides it once it fits', () => {
    let observed: (() => void) | null = null;
    vi.stubGlobal(
      'ResizeObserver',
      class {
        constructor(cb: () => void) {
          observed = cb;
        }
        observe() {}
        disconnect() {}
      },
    );
    let inner = 1200;
    Object.defineProperties(HTMLDivElement.prototype, {
      scrollWidth: { get: () => inner, configurable: true },
      clientWidth: { get: () => 390, configurable: true },
    });
    try {
      render(
        <ScrollBox className="table-wrap">
          <table />
        </ScrollBox>,
      );
      expect(screen.getByTestId('scroll-hint').textContent).toBe('Таблица шире экрана: листайте её вбок →');
      inner = 390;
      act(() => observed!());
      expect(screen.queryByTestId('scroll-hint')).toBeNull();
    } finally {
      delete (HTMLDivElement.prototype as unknown as Record<string, unknown>).scrollWidth;
      delete (HTMLDivElement.prototype as unknown as Record<string, unknown>).clientWidth;
    }
  });
});

describe('ReconciliationStatus', () => {
  const field = { field: 'payout', wb_field: 'bankPaymentSum', wb: 100, ours: 100, diff: 0 };
  it('says it agrees with WB, or names what differs; nothing when WB gave no sums', () => {
    const { rerender } = render(<ReconciliationStatus reconciliation={{ status: 'match', fields: [field] }} />);
    expect(screen.getByTestId('report-reconciliation').textContent).toBe('✓ Сходится с WB до копейки');
    rerender(
      <ReconciliationStatus reconciliation={{ status: 'mismatch', fields: [{ ...field, ours: 99, diff: -1 }] }} />,
    );
    expect(screen.getByTestId('report-reconciliation').textContent).toBe('Расходится с WB: Итого к оплате');
    rerender(<ReconciliationStatus reconciliation={{ status: 'unavailable', fields: [] }} />);
    expect(screen.queryByTestId('report-reconciliation')).toBeNull();
  });
});
