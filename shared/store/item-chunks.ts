/**
 * The stored format of a report's computed items (items.repo.ts): a few gzip-compressed chunks of
 * compact JSON instead of one record per item, so a 5,000-article report is written and read with a
 * handful of requests. Pure (no AWS): encode, decode, split.
 *
 * A chunk holds consecutive items (by index) as rows `[article, category, nm_id, brand, computed,
 * manual, effective]`: `computed` and `effective` are arrays in the order of `fields` (stored in the
 * chunk, so a later change of fields.ts still reads old chunks by name), `manual` is an object or 0,
 * `effective` is 0 when it equals `computed`. Manual values set later live beside the chunks as small
 * correction records (items.repo.ts) and are laid over the decoded items.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { FIELDS } from '../engine/fields';
import type { ComputedItem, ItemValues, ManualValues } from '../engine/types';

/** Format version written into every chunk. */
export const CHUNK_FORMAT = 1;
/** Compressed bytes a chunk may take (DynamoDB's item limit is 400 KB, keys and attributes included). */
export const MAX_CHUNK_BYTES = 340 * 1024;
/** Uncompressed JSON bytes gathered before a chunk is compressed (split again when it compresses badly). */
export const TARGET_RAW_BYTES = 2 * 1024 * 1024;

type Values = Array<number | null>;
type Row = [string, string, string, string, Values, ManualValues | 0, Values | 0];

interface ChunkBody {
  v: number;
  fields: string[];
  rows: Row[];
}

export interface EncodedChunk {
  /** Index (1-based, within the generation) of the chunk's first item. */
  first: number;
  count: number;
  data: Buffer;
}

const FIELD_NAMES: string[] = FIELDS.map((f) => f.name);

function valuesOf(values: ItemValues): Values {
  const out: Values = new Array<number | null>(FIELD_NAMES.length);
  for (let i = 0; i < FIELD_NAMES.length; i++) {
    const v = (values as Record<string, number | null | undefined>)[FIELD_NAMES[i]!];
    out[i] = v === undefined ? null : v;
  }
  return out;
}

function sameValues(a: Values, b: Values): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function rowOf(item: ComputedItem): Row {
  const computed = valuesOf(item.computed);
  const effective = valuesOf(item.effective);
  const manual = item.manual_values && Object.keys(item.manual_values).length > 0 ? item.manual_values : 0;
  return [
    item.article,
    item.category,
    item.nm_id,
    item.brand,
    computed,
    manual,
    sameValues(computed, effective) ? 0 : effective,
  ];
}

function compress(rows: string[]): Buffer {
  const text = `{"v":${CHUNK_FORMAT},"fields":${JSON.stringify(FIELD_NAMES)},"rows":[${rows.join(',')}]}`;
  return gzipSync(text, { level: 6 });
}

/**
 * Splits `items` into chunks of at most MAX_CHUNK_BYTES compressed each, in order. Item i (0-based)
 * gets index i + 1. A single item that cannot fit alone (only a hostile file could make one) throws.
 */
export function encodeChunks(items: ReadonlyArray<ComputedItem>): EncodedChunk[] {
  const rows = items.map((it) => JSON.stringify(rowOf(it)));
  const out: EncodedChunk[] = [];
  const emit = (from: number, to: number): void => {
    const data = compress(rows.slice(from, to));
    if (data.length <= MAX_CHUNK_BYTES) {
      out.push({ first: from + 1, count: to - from, data });
      return;
    }
    if (to - from === 1) throw new Error(`Item ${from + 1} does not fit a chunk (${data.length} bytes compressed)`);
    const mid = from + Math.ceil((to - from) / 2);
    emit(from, mid);
    emit(mid, to);
  };
  let start = 0;
  let raw = 0;
  for (let i = 0; i < rows.length; i++) {
    if (raw > 0 && raw + rows[i]!.length > TARGET_RAW_BYTES) {
      emit(start, i);
      start = i;
      raw = 0;
    }
    raw += rows[i]!.length + 1;
  }
  if (start < rows.length) emit(start, rows.length);
  return out;
}

function objectOf(fields: string[], values: Values): ItemValues {
  const out: Record<string, number | null> = {};
  for (let i = 0; i < fields.length; i++) out[fields[i]!] = values[i] ?? null;
  return out as ItemValues;
}

/** The items of one chunk, in order (computed items with their manual values as written). */
export function decodeChunk(data: Uint8Array): ComputedItem[] {
  const body = JSON.parse(gunzipSync(data).toString('utf8')) as ChunkBody;
  if (body.v !== CHUNK_FORMAT) throw new Error(`Unknown item chunk format ${String(body.v)}`);
  return body.rows.map(([article, category, nm_id, brand, computed, manual, effective]) => {
    const c = objectOf(body.fields, computed);
    return {
      article,
      category,
      nm_id,
      brand,
      computed: c,
      manual_values: manual === 0 ? {} : manual,
      effective: effective === 0 ? { ...c } : objectOf(body.fields, effective),
    };
  });
}
