import { describe, expect, it } from 'vitest';
import { EXPORT_FIELD_ORDER } from '../../../shared/export/columns';
import { COLUMN_GROUPS, FIELDS } from './fields';

describe('the items table columns', () => {
  it('are the export’s columns in the same order, every field once', () => {
    const table = COLUMN_GROUPS.flatMap((g) => g.fields);
    expect(table).toEqual([...EXPORT_FIELD_ORDER]);
    expect([...table].sort()).toEqual(FIELDS.map((f) => f.name).sort());
  });
});
