import { describe, expect, it } from 'vitest';
import { rowMarks } from './row-marks';

describe('rowMarks', () => {
  it('marks a row paid «Комиссия за организацию платежа с НДС», as UTF-8 text or as its latin1 bytes', () => {
    const text = 'Комиссия за организацию платежа с НДС';
    expect(rowMarks({ paymentProcessing: text })).toEqual(['acquiring_billed']);
    expect(rowMarks({ paymentProcessing: Buffer.from(text, 'utf8').toString('latin1') })).toEqual(['acquiring_billed']);
  });

  it('leaves acquiring inside for_pay and rows without a payment type unmarked', () => {
    expect(rowMarks({ paymentProcessing: 'Компенсация платёжных услуг' })).toEqual([]);
    expect(rowMarks({ paymentProcessing: '' })).toEqual([]);
    expect(rowMarks({ paymentProcessing: 42 })).toEqual([]);
    expect(rowMarks({})).toEqual([]);
  });
});
