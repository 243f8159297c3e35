import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { PeriodRangeForm } from './period-range-form';

afterEach(cleanup);

describe('PeriodRangeForm', () => {
  it('shows the period only on «Показать», and only with both ends', () => {
    const onSubmit = vi.fn();
    render(
      <PeriodRangeForm
        kind="month"
        initial={{ from: '2026-01', to: '' }}
        labels={{ from: 'Первый месяц', to: 'Последний месяц' }}
        onSubmit={onSubmit}
      />,
    );
    const from = screen.getByLabelText('Первый месяц') as HTMLInputElement;
    const to = screen.getByLabelText('Последний месяц') as HTMLInputElement;
    expect(from.type).toBe('month');
    expect(from.value).toBe('2026-01');
    const show = screen.getByRole('button', { name: 'Показать' }) as HTMLButtonElement;
    expect(show.disabled).toBe(true);
    fireEvent.change(to, { target: { value: '2026-03' } });
    expect(onSubmit).not.toHaveBeenCalled();
    expect(show.disabled).toBe(false);
    fireEvent.click(show);
    expect(onSubmit).toHaveBeenCalledWith({ from: '2026-01', to: '2026-03' });
  });

  it('takes days for analytics', () => {
    const onSubmit = vi.fn();
    render(
      <PeriodRangeForm
        kind="date"
        initial={{ from: '', to: '' }}
        labels={{ from: 'Начало периода', to: 'Конец периода' }}
        onSubmit={onSubmit}
      />,
    );
    fireEvent.change(screen.getByLabelText('Начало периода'), { target: { value: '2026-01-05' } });
    fireEvent.change(screen.getByLabelText('Конец периода'), { target: { value: '2026-02-01' } });
    fireEvent.submit(screen.getByRole('button', { name: 'Показать' }).closest('form')!);
    expect(onSubmit).toHaveBeenCalledWith({ from: '2026-01-05', to: '2026-02-01' });
    expect((screen.getByLabelText('Начало периода') as HTMLInputElement).type).toBe('date');
  });
});
