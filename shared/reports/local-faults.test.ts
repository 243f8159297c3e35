import { describe, expect, it } from 'vitest';
import { parseFaults } from './local-faults';

describe('WORKER_FAULT rules', () => {
  it('reads one or several rules, times defaulting to always, and ignores malformed ones', () => {
    expect(parseFaults('')).toEqual([]);
    expect(parseFaults('fail_after_items=5')).toEqual([{ failAfterItems: 5, times: Infinity, match: '' }]);
    expect(parseFaults('fail_after_items=3,times=1,match=once-;fail_after_items=0,match=always-;junk')).toEqual([
      { failAfterItems: 3, times: 1, match: 'once-' },
      { failAfterItems: 0, times: Infinity, match: 'always-' },
    ]);
    expect(parseFaults('fail_after_items=-1;fail_after_items=x')).toEqual([]);
  });
});
