import { describe, expect, it } from 'vitest';
import { FIELD_ORDER } from '../../../shared/engine/fields';
import { COLUMN_GROUPS, FIELDS, MAIN_FIELDS } from './fields';

describe('the items table columns', () => {
  it('read like a P&L: profit, margin, payout first, then the engine’s order (the export’s), every field once', () => {
    const table = COLUMN_GROUPS.flatMap((g) => g.fields);
    expect(table.slice(0, 3)).toEqual(['profit', 'margin', 'payout']);
    expect(COLUMN_GROUPS[0]!.title).toBe('Результат');
    const rest = COLUMN_GROUPS.slice(1).flatMap((g) => g.fields);
    expect(rest).toEqual(FIELD_ORDER.filter((f) => !['profit', 'margin', 'roi', 'payout'].includes(f)));
    expect([...table].sort()).toEqual(FIELDS.map((f) => f.name).sort());
  });

  it('the «Главное» preset names known fields, realization and profit first', () => {
    expect(MAIN_FIELDS.slice(0, 2)).toEqual(['realization', 'profit']);
    const known = new Set(FIELDS.map((f) => f.name));
    for (const f of MAIN_FIELDS) expect(known.has(f)).toBe(true);
  });
});
