/** The decoded-text cache of the sheet scanner: a hit must never hand out another text's string. */
import { describe, expect, it } from 'vitest';
import { TextCache } from './xml-bytes';

describe('TextCache', () => {
  it('hits only on the very same bytes, whatever shares a slot', () => {
    const texts = [
      'Ёлка-1',
      'Ёлка-2',
      'Ёлка-1',
      'Ёлка-12',
      'ёлка-1',
      'A&amp;Ё',
      'Ёлка-1',
      'Ё'.repeat(40),
      'Ё'.repeat(39) + 'Ж',
      'Ё'.repeat(40),
    ];
    const bytes = texts.map((t) => Buffer.from(`<v>${t}</v>`));
    for (const slots of [1, 2, 1024]) {
      const cache = new TextCache(slots);
      for (let round = 0; round < 3; round++) {
        bytes.forEach((b, i) => {
          const text = cache.decode(b, 3, b.length - 4);
          expect(text).toBe(texts[i] === 'A&amp;Ё' ? 'A&Ё' : texts[i]);
        });
      }
    }
  });
});
