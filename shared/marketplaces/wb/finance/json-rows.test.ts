import { describe, expect, it } from 'vitest';
import { readJsonArray } from './json-rows';

/** The text cut into chunks of `size` bytes (UTF-8 characters split across chunks included). */
async function* chunked(text: string, size: number): AsyncIterable<Uint8Array> {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function read(text: string, size = 7, options = {}) {
  const out: unknown[] = [];
  const raw: Buffer[] = [];
  const r = await readJsonArray(
    chunked(text, size),
    (values, bytes, first) => {
      expect(first).toBe(out.length);
      out.push(...values);
      raw.push(Buffer.from(bytes));
    },
    options,
  );
  return { r, out, raw: raw.map((b) => b.toString('utf8')) };
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
    const a = await read(JSON.stringify(rows), 5);
    const b = await read(JSON.stringify(rows), 4096);
    expect(a.out).toEqual(b.out);
  });

  it('gives each batch its bytes as they came: joined with commas they are the array, as sent', async () => {
    const texts = rows.map((r) => JSON.stringify(r, null, 1));
    const text = `[${texts.join(',\n')}]`;
    for (const size of [1, 3, 16, 100, 10_000]) {
      const { raw } = await read(text, size);
      expect(JSON.parse(`[${raw.join(',')}]`)).toEqual(rows);
      // Batches end at an element's end and begin at the next one's start: the text between is only , and spaces.
      expect(raw.join(',').replace(/\s/g, '')).toBe(texts.join(',').replace(/\s/g, ''));
    }
  });

  it('a brace inside a string at a chunk end does not cut an element', async () => {
    const tricky = [{ a: 'x}' }, { b: '}}}}}}' }, { c: '{"d":1}' }, { e: 'конец}' }];
    const text = JSON.stringify(tricky);
    for (let size = 1; size < text.length + 2; size++) {
      const { r, out } = await read(text, size);
      expect(r, `chunk ${size}`).toEqual({ kind: 'ok', count: 4 });
      expect(out).toEqual(tricky);
    }
  });

  it('reads arrays one after another only when asked (stored pages joined)', async () => {
    const text = '[{"a":1},{"a":2}]\n[{"a":3},{"a":4},{"a":5},{"a":6},{"a":7}]\n[]\n';
    expect((await read(text, 5)).r.kind).toBe('invalid');
    for (let size = 1; size <= text.length; size++) {
      const { r, out } = await read(text, size, { sequence: true });
      expect(r, `chunk ${size}`).toEqual({ kind: 'ok', count: 7 });
      expect(out).toEqual([1, 2, 3, 4, 5, 6, 7].map((a) => ({ a })));
    }
  });

  it('an element that never closes is refused once it passes 4 MB, not held on', async () => {
    const r = await readJsonArray(
      (async function* () {
        yield Buffer.from('[{"a":"');
        for (let i = 0; i < 80; i++) yield Buffer.alloc(64 * 1024, 120);
      })(),
      () => undefined,
    );
    expect(r).toEqual({ kind: 'invalid', message: 'element 0 is not JSON' });
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
      '[{"a":1},,{"b":2}]',
      '[{"a":1},2,{"b":2}]',
      '[{"a":1}][{"a":2}]',
    ]) {
      expect((await read(bad)).r.kind, bad).toBe('invalid');
    }
  });
});
