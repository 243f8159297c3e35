import { describe, expect, it } from 'vitest';
import { DETAILED_ROW_FIELDS, DETAILED_ROW_FIELD_NAMES } from './finance-fields';
import { checkDetailedPage, detailedPageSchema } from './schemas';

/** A row of every field at a value of its type, plus WB's variants: null, absent, number for money, blank money. */
function rows(): unknown[] {
  const full: Record<string, unknown> = {};
  DETAILED_ROW_FIELD_NAMES.forEach((f, i) => {
    const t = DETAILED_ROW_FIELDS[f][0];
    full[f] =
      t === 'money' ? `-${i}.5` : t === 'int' ? i : t === 'number' ? i / 4 : t === 'bool' ? i % 2 === 1 : `s${i}`;
  });
  return [
    full,
    { ...full, forPay: 12.34, retailAmount: ' 7 ', penalty: '', kiz: null, bonusTypeName: undefined, extra: 'dropped' },
    {},
  ];
}

describe('the hand-written page check agrees with the zod schema', () => {
  it('on good rows: the same values', () => {
    const z = detailedPageSchema.parse(rows());
    const fast = checkDetailedPage(rows());
    expect(fast).toEqual({ success: true, data: z });
    expect(z[1]).toMatchObject({ forPay: '12.34', retailAmount: '7', penalty: '0' });
    expect(z[1]!.kiz).toBeUndefined();
    expect(z[1]).not.toHaveProperty('extra');
    expect(fast.success && fast.data[1]).not.toHaveProperty('kiz');
  });

  it.each([
    ['money that is not a number', { forPay: '12,5' }, '0.forPay'],
    ['an int that is a fraction', { nmId: 1.5 }, '0.nmId'],
    ['a string that is a number', { vendorCode: 5 }, '0.vendorCode'],
    ['a bool that is text', { srvDbs: 'true' }, '0.srvDbs'],
    ['a number that is text', { spp: '3' }, '0.spp'],
    ['an id past 2^53', JSON.parse('{"reportId": 9007199254740993}') as object, '0.reportId'],
  ])('on %s: both refuse', (_name, row, path) => {
    expect(detailedPageSchema.safeParse([row]).success).toBe(false);
    expect(checkDetailedPage([row])).toMatchObject({ success: false, path });
  });

  it('refuses what is not an array of objects', () => {
    expect(checkDetailedPage({})).toMatchObject({ success: false });
    expect(checkDetailedPage([1])).toMatchObject({ success: false, path: '0' });
    expect(detailedPageSchema.safeParse([1]).success).toBe(false);
  });
});
