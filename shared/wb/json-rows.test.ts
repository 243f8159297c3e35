import { describe, expect, it } from 'vitest';
import { readJsonArray } from './json-rows';

/** The text cut into chunks of `size` bytes (UTF-8 characters split across chunks included). */
async function* chunked(text: string, size: number): AsyncIterable<Uint8Array> {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function read(text: string, size = 7) {
  const out: unknown[] = [];
  const r = await readJsonArray(chunked(text, size), (v, i) => {
    expect(i).toBe(out.length);
    out.push(v);
  });
  return { r, out };
}

describe('readJsonArray', () => {
  const rows = [
    { rrdId: 1, sa_name: 'Платье «летнее» {размер} [42]', x: null, y: '\\"}]', n: -1.5e3 },
    { rrdId: 2, nested: { a: [1, { b: '}' }] }, emoji: '😀', esc: 'a\\\\' },
    { rrdId: 3 },
  ];

  it('gives every element as JSON.parse would, whatever the chunk boundaries', async () => {
    const text = ` \n[ ${rows.map((r) => JSON.stringify(r)).join(' ,\n')} ]\n`;
    for (const size of [1, 2, 3, 7, 64, 10_000]) {
      const { r, out } = await read(text, size);
      expect(r).toEqual({ kind: 'ok', count: 3 });
      expect(out).toEqual(rows);
    }
    expect(await read(JSON.stringify(rows), 5)).toEqual(await read(JSON.stringify(rows), 4096));
  });

  it('an empty body or array is empty; anything else but an array of objects is invalid', async () => {
    expect((await read('')).r).toEqual({ kind: 'empty' });
    expect((await read('  [ ] ')).r).toEqual({ kind: 'empty' });
    for (const bad of [
      '{"a":1}',
      '[1,2]',
      '[{"a":1},]',
      '[{"a":1}',
      '[{"a":"}]',
      '[{"a":1}] x',
      '[{"a":1} {"b":2}]',
      '[{"a":tru}]',
    ]) {
      expect((await read(bad)).r.kind, bad).toBe('invalid');
    }
  });
});
