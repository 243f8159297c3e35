import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ownCostBookOfItem } from './own-costs.repo';
import { StoredRecordError } from './records';

const item = (data: unknown, extra: Record<string, unknown> = {}) => ({
  pk: 'USER#U1',
  sk: 'OWNCOSTS',
  type: 'own_costs',
  v: 1,
  rev: 3,
  line_count: 1,
  data,
  updated_at: '2026-04-01T00:00:00.000Z',
  ...extra,
});

describe('the stored own-costs record', () => {
  it('reads the gzip’d lines with the revision', () => {
    const lines = [{ article: null, name: 'Упаковка', amounts: [{ valid_from: null, amount: 1_250 }] }];
    expect(ownCostBookOfItem(item(gzipSync(JSON.stringify({ lines }))))).toEqual({
      lines,
      rev: 3,
      updated_at: '2026-04-01T00:00:00.000Z',
    });
  });

  it('a record of another version, a body that is not gzip’d lines, or a bad line is an error naming the key', () => {
    const lines = [{ article: null, name: 'x', amounts: [{ valid_from: null, amount: 1 }] }];
    expect(() => ownCostBookOfItem(item(gzipSync(JSON.stringify({ lines })), { v: 2 }))).toThrow(StoredRecordError);
    expect(() => ownCostBookOfItem(item(Buffer.from('not gzip')))).toThrow(/USER#U1 \/ OWNCOSTS/);
    const negative = [{ article: 'A', name: 'x', amounts: [{ valid_from: null, amount: -1 }] }];
    expect(() => ownCostBookOfItem(item(gzipSync(JSON.stringify({ lines: negative }))))).toThrow(StoredRecordError);
  });
});
