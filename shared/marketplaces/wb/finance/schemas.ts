/**
 * zod schemas of the Finance API's answers as WB sends them (fields.ts says each field's type).
 * - The list's report: money sums become integer kopecks (`ReportSummary`), what the reconciliation compares.
 * - The detailed row: values stay as WB's text (money still a decimal string) so that row-map.ts hands the
 *   engine the same cell text a portal file would; money text is checked here, read by the engine.
 * Fields the spec marks optional may be absent or null; unknown fields are dropped.
 */
import { z } from 'zod';
import {
  DETAILED_ROW_FIELDS,
  REPORT_LIST_FIELDS,
  type DetailedRowField,
  type ReportListField,
  type WbFieldType,
} from './finance-fields';
import { isMoneyText, moneyToKopecks, numberText } from '../money';

const moneyText = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const text = typeof v === 'number' ? numberText(v) : v.trim();
  if (text === '') return '0';
  if (!isMoneyText(text)) {
    ctx.addIssue({ code: 'custom', message: `not a money amount: ${JSON.stringify(v)}` });
    return z.NEVER;
  }
  return text;
});

const SCHEMA_OF: Record<WbFieldType, z.ZodType> = {
  money: moneyText,
  int: z.number().int(),
  number: z.number(),
  string: z.string(),
  bool: z.boolean(),
};

type RowValue<T extends WbFieldType> = T extends 'money' | 'string'
  ? string
  : T extends 'int' | 'number'
    ? number
    : boolean;

/** A detailed row: every field may be missing (null/absent → undefined). Money as decimal text. */
export type WbDetailedRow = {
  [K in DetailedRowField]?: RowValue<(typeof DETAILED_ROW_FIELDS)[K][0]>;
};

const optional = (s: z.ZodType) => s.nullish().transform((v) => (v === null ? undefined : v));

export const detailedRowSchema = z.object(
  Object.fromEntries(
    Object.entries(DETAILED_ROW_FIELDS).map(([name, [type]]): [string, z.ZodType] => [name, optional(SCHEMA_OF[type])]),
  ),
) as unknown as z.ZodType<WbDetailedRow>;

export const detailedPageSchema = z.array(detailedRowSchema);

const FIELD_TYPES = Object.entries(DETAILED_ROW_FIELDS).map(([name, [type]]) => [name, type] as const);

export type PageCheck = { success: true; data: WbDetailedRow[] } | { success: false; path: string; message: string };

/**
 * detailedPageSchema's check and transform, written out by hand: a page holds up to 100 000 rows of 93
 * fields (~200 MB of JSON), where zod takes ~30 s and this takes well under a second more than JSON.parse.
 * `detailedPageSchema` stays the reference; a test holds both to the same answers.
 */
export function checkDetailedPage(json: unknown): PageCheck {
  if (!Array.isArray(json)) return { success: false, path: '', message: 'expected an array' };
  const out: WbDetailedRow[] = new Array<WbDetailedRow>(json.length);
  for (let i = 0; i < json.length; i++) {
    const row = checkDetailedRow(json[i], i);
    if ('success' in row) return row;
    out[i] = row;
  }
  return { success: true, data: out };
}

type RowCheck = WbDetailedRow | { success: false; path: string; message: string };

/**
 * One row of a page (its index for the error's path): the checked row, or why not. With `build` false the
 * row is only checked, and given back as it came (money not yet decimal text, nulls and unknown fields
 * kept): what the Finance client needs while it stores a page as WB sent it (page-body.ts).
 */
export function checkDetailedRow(raw: unknown, i: number, build = true): RowCheck {
  return checkFields(FIELD_TYPES, raw, i, build);
}

/**
 * The same check and transform of only `fields`, the others dropped: what a reader that needs a few fields
 * of rows checked when they were stored uses (a report's build reads 30 of the 93).
 */
export function detailedRowChecker(fields: readonly DetailedRowField[]): (raw: unknown, i: number) => RowCheck {
  const types = fields.map((name) => [name, DETAILED_ROW_FIELDS[name][0]] as const);
  return (raw, i) => checkFields(types, raw, i, true);
}

function checkFields(
  fieldTypes: ReadonlyArray<readonly [string, WbFieldType]>,
  raw: unknown,
  i: number,
  build: boolean,
): RowCheck {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { success: false, path: String(i), message: 'expected an object' };
  }
  const src = raw as Record<string, unknown>;
  const row: Record<string, unknown> = {};
  for (const [name, type] of fieldTypes) {
    const v = src[name];
    if (v === undefined || v === null) continue;
    let ok: boolean;
    let value: unknown = v;
    switch (type) {
      case 'money':
        if (typeof v === 'number') {
          ok = Number.isFinite(v);
          if (ok) value = numberText(v);
        } else if (typeof v === 'string') {
          const t = v.trim();
          value = t === '' ? '0' : t;
          ok = t === '' || isMoneyText(t);
        } else ok = false;
        break;
      case 'int':
        // Ids past 2^53 (WB's daily report ids) lose digits in JSON.parse: refused, not corrupted.
        ok = typeof v === 'number' && Number.isSafeInteger(v);
        break;
      case 'number':
        ok = typeof v === 'number' && Number.isFinite(v);
        break;
      case 'string':
        ok = typeof v === 'string';
        break;
      case 'bool':
        ok = typeof v === 'boolean';
        break;
    }
    if (!ok)
      return { success: false, path: `${i}.${name}`, message: `not a ${type}: ${JSON.stringify(v).slice(0, 40)}` };
    if (build) row[name] = value;
  }
  return (build ? row : src) as WbDetailedRow;
}

/** A report of the list with its sums in kopecks (money fields absent in an answer count as 0). */
export type ReportSummary = {
  [K in ReportListField]: (typeof REPORT_LIST_FIELDS)[K] extends 'money'
    ? number
    : (typeof REPORT_LIST_FIELDS)[K] extends 'int'
      ? number
      : (typeof REPORT_LIST_FIELDS)[K] extends 'number'
        ? number | null
        : string;
};

const LIST_SCHEMA_OF: Record<WbFieldType, z.ZodType> = {
  money: moneyText.nullish().transform((v) => (v === null || v === undefined ? 0 : moneyToKopecks(v))),
  int: z.number().int(),
  number: z
    .number()
    .nullish()
    .transform((v) => v ?? null),
  string: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
  bool: z.boolean(),
};

export const reportSummarySchema = z.object(
  Object.fromEntries(
    Object.entries(REPORT_LIST_FIELDS).map(([name, type]): [string, z.ZodType] => [name, LIST_SCHEMA_OF[type]]),
  ),
) as unknown as z.ZodType<ReportSummary>;

export const reportListSchema = z.array(reportSummarySchema);
