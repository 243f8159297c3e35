import { describe, expect, it } from 'vitest';
import { emailKey, itemId, itemKey, itemsPartition, newId } from './keys';

describe('keys', () => {
  it('ids sort by creation time as strings', () => {
    const a = newId(1_700_000_000_000);
    const b = newId(1_700_000_000_001);
    const c = newId(1_800_000_000_000);
    expect(a.length).toBe(26);
    expect([c, a, b].sort()).toEqual([a, b, c]);
  });

  it('ids made in the same millisecond still increase', () => {
    const ids = Array.from({ length: 1000 }, () => newId(1_900_000_000_000));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(1000);
  });

  it('email keys are case- and space-insensitive', () => {
    expect(emailKey('  Ivan@Example.COM ')).toEqual(emailKey('ivan@example.com'));
  });

  it('an item id leads back to its partition, within the given user only', () => {
    const id = itemId('01HREPORT', 7);
    expect(id).toBe('01HREPORT.000007');
    expect(itemKey('u1', id)).toEqual({ pk: itemsPartition('u1', '01HREPORT'), sk: 'ITEM#000007' });
    expect(itemKey('u2', id)?.pk).not.toBe(itemKey('u1', id)?.pk);
    expect(itemKey('u1', 'bad#id')).toBeNull();
  });
});
