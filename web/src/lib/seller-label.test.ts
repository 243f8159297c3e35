import { describe, expect, it } from 'vitest';
import { sellerLabel } from './seller-label';

describe('sellerLabel', () => {
  it('names a seller once: «Name (number)», or the number when the name is missing or is the number', () => {
    expect(sellerLabel({ name: 'ИП Иванов', number: '1202289' })).toBe('ИП Иванов (1202289)');
    expect(sellerLabel({ name: '1202289', number: '1202289' })).toBe('1202289');
    expect(sellerLabel({ name: ' 1202289 ', number: '1202289' })).toBe('1202289');
    expect(sellerLabel({ name: '', number: '1202289' })).toBe('1202289');
    expect(sellerLabel({ name: null, number: '42' })).toBe('42');
  });
});
