import { describe, expect, it } from 'vitest';
import { rowValueProblem } from './row-values';

const row = (over: Record<string, unknown> = {}) => ({
  rrdId: 7,
  docTypeName: 'Продажа',
  quantity: 1,
  retailAmount: '100.00',
  forPay: '80.00',
  ...over,
});

describe('rowValueProblem', () => {
  it('a plain sale, a return with a negative quantity, absent optional money: fine', () => {
    expect(rowValueProblem(row(), 0)).toBeNull();
    expect(rowValueProblem(row({ docTypeName: 'Возврат', quantity: -1 }), 0)).toBeNull();
    expect(rowValueProblem(row({ cashbackAmount: null }), 0)).toBeNull();
    // Long digit strings that are not money (a barcode, a sticker) are not amounts.
    expect(rowValueProblem(row({ sku: '2000458104212', stickerId: '123456789012345' }), 0)).toBeNull();
  });

  it('null money the engine reads, a negative sale, values past the bounds: the row named', () => {
    expect(rowValueProblem(row({ forPay: null }), 3)).toBe('row 3 (rrdId 7): forPay is null');
    expect(rowValueProblem(row({ quantity: -1000 }), 4)).toBe('row 4 (rrdId 7): quantity -1000 on a sale');
    // As the client's one-byte first reading has the row.
    const latin1 = Buffer.from('Продажа', 'utf8').toString('latin1');
    expect(rowValueProblem(row({ quantity: -1, docTypeName: latin1 }), 0)).toMatch(/on a sale/);
    expect(rowValueProblem(row({ retailAmount: '999999999999999.00' }), 0)).toMatch(/retailAmount .* past the bounds/);
    expect(rowValueProblem(row({ retailAmount: 1e300 }), 0)).toMatch(/past the bounds/);
    expect(rowValueProblem(row({ quantity: 2e9 }), 0)).toMatch(/quantity 2000000000 is past the bounds/);
  });
});
