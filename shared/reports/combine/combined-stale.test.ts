import { describe, expect, it } from 'vitest';
import { sourceChanges, staleReason } from './combined-stale';

describe('sourceChanges', () => {
  const sources = [
    { id: 'a', version: 1, rebuilt_at: null },
    { id: 'b', version: 3, rebuilt_at: '2026-05-01T00:00:00.000Z' },
    { id: 'c', version: 1, rebuilt_at: null },
    { id: 'd', version: 2, rebuilt_at: null },
  ];
  it('tells rebuilt, corrected and deleted sources apart and leaves unchanged ones out', () => {
    const current = new Map([
      ['a', { title: 'A', version: 2, rebuilt_at: '2026-05-02T00:00:00.000Z' }],
      ['b', { title: 'B', version: 4, rebuilt_at: '2026-05-01T00:00:00.000Z' }],
      ['c', null],
      ['d', { title: 'D', version: 2, rebuilt_at: undefined }],
    ]);
    const changes = sourceChanges(sources, current);
    expect(changes).toEqual([
      { id: 'a', title: 'A', change: 'rebuilt' },
      { id: 'b', title: 'B', change: 'corrected' },
      { id: 'c', title: null, change: 'deleted' },
    ]);
    expect(staleReason(changes)).toBe(
      'После сборки изменились исходные отчёты: отчёт «A» пересобран; отчёт «B» исправлен вручную; отчёт c удалён.',
    );
    expect(staleReason([])).toBeNull();
  });
});
