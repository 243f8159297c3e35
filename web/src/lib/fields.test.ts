import { describe, expect, it } from 'vitest';
import { FIELD_ORDER } from '../../../shared/engine/fields';
import { COLUMN_GROUPS, FIELDS } from './fields';

describe('the items table columns', () => {
  // FIELD_ORDER is the export's column order too (shared/export/columns.ts EXPORT_FIELD_ORDER = FIELD_ORDER).
  it('are the export’s columns in the same order, every field once', () => {
    const table = COLUMN_GROUPS.flatMap((g) => g.fields);
    expect(table).toEqual([...FIELD_ORDER]);
    expect([...table].sort()).toEqual(FIELDS.map((f) => f.name).sort());
  });
});
