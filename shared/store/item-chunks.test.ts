import { describe, expect, it, vi } from 'vitest';
import { generateReport } from '../../scripts/fixtures/generate';
import { applyManualValue, buildItems, readReport } from '../engine';
import { DEFAULT_TAX_PROFILE, type ComputedItem } from '../engine/types';
import { decodeChunk, encodeChunks, MAX_CHUNK_BYTES } from './item-chunks';
import { assembleItems, deleteItems, GEN_SPAN, getItem, getItemsOfGen, writeItems } from './items.repo';
import { itemsPartition } from './keys';

/** Every command the repository sends, with its input (isolation: which partitions it touches). */
const sent = vi.hoisted(() => [] as Array<{ name: string; input: Record<string, unknown> }>);
vi.mock('./client', () => ({
  tableName: () => 't',
  ddb: () => ({
    send: async (cmd: { constructor: { name: string }; input: Record<string, unknown> }) => {
      sent.push({ name: cmd.constructor.name, input: cmd.input });
      return {};
    },
  }),
  // client.ts queryAll: one empty page, recorded as the Query it sends.
  queryAll: async (input: Record<string, unknown>) => {
    sent.push({ name: 'QueryCommand', input });
    return [];
  },
}));

async function itemsOf(rows: number, articles: number): Promise<ComputedItem[]> {
  const g = generateReport({ rows, articles, layout: '2026', format: 'xlsx', seed: 11 });
  const parsed = await readReport({ buffer: g.file, filename: g.filename });
  return buildItems(parsed, { tax: DEFAULT_TAX_PROFILE, costPrices: { [parsed.articles[0]?.article ?? '']: 12345 } })
    .items;
}

/** Chunk records as items.repo.ts writes them (sk = CHUNK#<first seq>). */
function chunkRows(items: ComputedItem[], gen: number) {
  return encodeChunks(items).map((c) => ({
    sk: `CHUNK#${String(gen * GEN_SPAN + c.first).padStart(15, '0')}`,
    first: c.first,
    count: c.count,
    data: new Uint8Array(c.data),
  }));
}

describe('item chunks', () => {
  it('round trip: every item comes back equal, in order, from chunks within the size limit', async () => {
    const items = await itemsOf(6000, 1500);
    expect(items.length).toBeGreaterThan(1000);
    const chunks = encodeChunks(items);
    expect(chunks.reduce((n, c) => n + c.count, 0)).toBe(items.length);
    for (const c of chunks) expect(c.data.length).toBeLessThanOrEqual(MAX_CHUNK_BYTES);
    const back = chunks.flatMap((c) => decodeChunk(c.data));
    expect(back).toEqual(items);
  });

  it('splits into more chunks when items compress badly, never over the limit', () => {
    // Long random names (a hostile file): ~1 KB of incompressible text per item.
    const base = {
      category: 'c',
      nm_id: '1',
      brand: 'b',
      computed: { realization: 100 },
      manual_values: {},
      effective: { realization: 100 },
    } as unknown as ComputedItem;
    let seed = 12345;
    const rnd = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 4294967296;
    };
    const noise = () => Array.from({ length: 700 }, () => String.fromCharCode(0x400 + Math.floor(rnd() * 64))).join('');
    const items = Array.from({ length: 2000 }, () => ({ ...base, article: noise() }));
    const chunks = encodeChunks(items);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.data.length).toBeLessThanOrEqual(MAX_CHUNK_BYTES);
    expect(chunks.flatMap((c) => decodeChunk(c.data)).map((i) => i.article)).toEqual(items.map((i) => i.article));
  });

  it('manual values written with the items survive (a rebuild re-applies corrections)', async () => {
    const items = await itemsOf(400, 40);
    const corrected = applyManualValue(items[3]!, 'logistics', 777_00, DEFAULT_TAX_PROFILE);
    const withManual = items.map((it, i) => (i === 3 ? corrected : it));
    const back = encodeChunks(withManual).flatMap((c) => decodeChunk(c.data));
    expect(back[3]!.manual_values).toEqual({ logistics: 777_00 });
    expect(back[3]!.effective).toEqual(corrected.effective);
    expect(back[3]!.computed).toEqual(items[3]!.computed);
    expect(back[4]).toEqual(items[4]);
  });
});

describe('assembleItems', () => {
  it('lays correction records over their items and gives ids of the generation', async () => {
    const items = await itemsOf(400, 40);
    const gen = 3;
    const corrected = applyManualValue(items[5]!, 'ads', 100_00, DEFAULT_TAX_PROFILE);
    const correction = {
      sk: `ITEM#${gen * GEN_SPAN + 6}`,
      manual_values: corrected.manual_values,
      effective: corrected.effective,
      rev: 2,
    };
    const out = assembleItems('R1', gen, chunkRows(items, gen), [correction]);
    expect(out).toHaveLength(items.length);
    expect(out[0]!.item_id).toBe(`R1.${gen * GEN_SPAN + 1}`);
    expect(out[5]).toMatchObject({ item_id: `R1.${gen * GEN_SPAN + 6}`, rev: 2, manual_values: { ads: 100_00 } });
    expect(out[5]!.effective).toEqual(corrected.effective);
    expect(out[5]!.computed).toEqual(items[5]!.computed);
    expect(out[6]).toEqual({ ...items[6], item_id: `R1.${gen * GEN_SPAN + 7}`, rev: 0 });
  });

  it('ignores chunks and corrections of other generations', async () => {
    const items = await itemsOf(200, 10);
    const rows = [...chunkRows(items, 1), ...chunkRows(items.slice(0, 2), 2)];
    const stray = { sk: `ITEM#${2 * GEN_SPAN + 1}`, manual_values: { ads: 1 }, effective: {}, rev: 1 };
    const out = assembleItems('R1', 1, rows, [stray]);
    expect(out.map((i) => i.article)).toEqual(items.map((i) => i.article));
    expect(out.every((i) => i.rev === 0)).toBe(true);
  });

  it('refuses a whole item record of the format before chunks, naming its key', () => {
    const whole = {
      pk: 'ITEMS#u#R1',
      sk: `ITEM#${GEN_SPAN + 1}`,
      item_id: `R1.${GEN_SPAN + 1}`,
      article: 'A',
      computed: { ads: 5 },
      manual_values: {},
      effective: { ads: 5 },
      rev: 1,
    };
    expect(() => assembleItems('R1', 1, [], [whole])).toThrow(
      `Item record ITEMS#u#R1 / ITEM#${GEN_SPAN + 1} is of the format before chunks`,
    );
  });
});

describe('isolation', () => {
  it("writes, reads and deletes only under the caller's items partition", async () => {
    const items = await itemsOf(200, 10);
    sent.length = 0;
    await writeItems('userA', 'R1', 1, items);
    await getItemsOfGen('userA', 'R1', 1);
    await getItem('userA', 'R1.1000001');
    await deleteItems('userA', 'R1');
    await deleteItems('userA', 'R1', 2);
    const pks: string[] = [];
    for (const { input } of sent) {
      const req = input.RequestItems as Record<string, Array<{ PutRequest?: { Item: { pk: string } } }>> | undefined;
      if (req) for (const r of req.t!) pks.push(r.PutRequest!.Item.pk);
      const values = input.ExpressionAttributeValues as Record<string, string> | undefined;
      if (values) pks.push(values[':pk']!);
      const key = input.Key as { pk: string } | undefined;
      if (key) pks.push(key.pk);
    }
    expect(sent.map((s) => s.name)).toContain('BatchWriteCommand');
    expect(pks.length).toBeGreaterThanOrEqual(sent.length);
    expect(new Set(pks)).toEqual(new Set([itemsPartition('userA', 'R1')]));
    expect(pks.every((pk) => pk.includes('userA'))).toBe(true);
  });
});
