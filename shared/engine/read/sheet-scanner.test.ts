/**
 * The sheet scanner's fast row path against its tag-by-tag reading: the same rows, values, counts and
 * refusals for every cell form and every way the inflated bytes can be cut into chunks.
 */
import { describe, expect, it } from 'vitest';
import { ReportError } from '../errors';
import { METRIC_KEYS, type RowSink } from '../row-sink';
import { DEFAULT_READ_LIMITS, type ReadLimits } from './limits';
import type { SharedStrings } from './shared-strings';
import { SheetScanner } from './sheet-scanner';
import { columnName, escapeXml } from '../../../scripts/fixtures/xlsx-writer';
import { BASIC_HEADER } from '../../../test/support/read/basic-header';
import { mulberry32 as random } from '../../../scripts/fixtures/random';

/** The reference: every tag through `tag`, no fast path. */
class TagByTagScanner extends SheetScanner {
  protected override fast(_buf: Buffer, p: number): number {
    this.fastMore = false;
    return p;
  }
}

/** BASIC_HEADER (A–K) and two columns the metrics do not read (L, M). */
const HEADER = [...BASIC_HEADER, 'Баркод', 'Srid'];

const STRINGS = ['Продажа', 'Возврат', '  ', '', 'Логистика', 'A&B <x>', 'Ёлка №1', 'art-1', '12.5'];

function sharedStrings(): SharedStrings {
  const blank = new Uint8Array(STRINGS.map((s) => (s.trim() === '' ? 1 : 0)));
  return { count: STRINGS.length, blank, get: (i: number) => STRINGS[i] };
}

const TEXTS = [
  '1557.71',
  '-4.5',
  '1E-3',
  '0',
  '2022-10-27',
  'Продажа',
  'Бумага для оргтехники, очень длинное название товара',
  'A&amp;B &lt;x&gt; &#x2116;1',
  'line_x000D_break',
  'abc_def',
  '   ',
  ' 7 ',
  'ёЁ',
  '4e529239f3af84259051696276a6add9',
];

/** One cell in one of the forms spreadsheet writers use (and a few they do not). */
function cellXml(rnd: () => number, ref: string, sp: string): string {
  const text = TEXTS[Math.floor(rnd() * TEXTS.length)];
  const r = ref === '' ? '' : ` r="${ref}"`;
  switch (Math.floor(rnd() * 15)) {
    case 0:
      return `<c${r}><v>${text}</v></c>`;
    case 1:
      return `<c${r} t="str"><v>${text}</v></c>`;
    case 2:
      return `<c${r} t="inlineStr"><is><t>${text}</t></is></c>`;
    case 3:
      return `<c${r} s="3" t="inlineStr">${sp}<is>${sp}<t xml:space="preserve">${text}</t>${sp}</is>${sp}</c>`;
    case 4:
      return `<c${r} t="s"><v>${Math.floor(rnd() * STRINGS.length)}</v></c>`;
    case 5:
      return `<c${r} s="1"/>`;
    case 6:
      return `<c${r}><f>SUM(A1:A2)</f><v>${text}</v></c>`;
    case 7:
      return `<c${r} t="str"><f t="shared" si="0"/><v>${text}</v></c>`;
    case 8:
      return `<c${r} t="str"><v></v></c>`;
    case 9:
      return `<c${r} t='str'>${sp}<v>${text}</v>${sp}</c>`;
    case 10:
      // rich text: read tag by tag
      return `<c${r} t="inlineStr"><is><r><t>${text}</t></r><r><rPr><b/></rPr><t>+</t></r></is></c>`;
    case 11:
      return `<c${r}><v/></c>`;
    case 12:
      return `<c${r} t="inlineStr"><is><t></t></is></c>`;
    case 13:
      return `<c${r}></c>`;
    default:
      return `<c${r} t="b"><v>1</v></c>`;
  }
}

/** A sheet of `rows` random data rows under HEADER. */
function randomSheet(seed: number, rows: number): string {
  const rnd = random(seed);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?><worksheet><sheetData>'];
  out.push(
    '<row r="1">',
    ...HEADER.map((h, i) => `<c r="${columnName(i)}1" t="str"><v>${escapeXml(h)}</v></c>`),
    '</row>',
  );
  for (let r = 2; r < rows + 2; r++) {
    const sp = rnd() < 0.1 ? '\n  ' : '';
    const kind = rnd();
    if (kind < 0.04) {
      out.push(`<row r="${r}"/>`);
      continue;
    }
    if (kind < 0.08) {
      out.push(`<row r="${r}">${sp}</row>`);
      continue;
    }
    out.push(`<row r="${r}" spans="1:13">`);
    let prev = -1;
    for (let c = 0; c < HEADER.length; c++) {
      if (rnd() < 0.3) continue;
      const omitRef = c === prev + 1 && rnd() < 0.2;
      out.push(sp, cellXml(rnd, omitRef ? '' : `${columnName(c)}${r}`, sp));
      prev = c;
    }
    out.push(sp, '</row>');
  }
  out.push('</sheetData><pageMargins left="0.7"/></worksheet>');
  return out.join('');
}

interface Outcome {
  rows: number;
  data: string[];
  error?: string;
}

function rowsSink(data: string[]): RowSink {
  return {
    begin(present) {
      data.push(`begin ${[...present].sort().join(',')}`);
    },
    row(cells) {
      data.push(JSON.stringify(cells.map((v, i) => (v === undefined ? null : `${METRIC_KEYS[i]}=${v}`))));
    },
  };
}

function run(
  Scanner: typeof SheetScanner,
  xml: Buffer,
  chunks: number[],
  options: { count?: boolean; limits?: Partial<ReadLimits> } = {},
): Outcome {
  const data: string[] = [];
  const scanner = new Scanner(sharedStrings(), options.count ? null : rowsSink(data), {
    ...DEFAULT_READ_LIMITS,
    ...options.limits,
  });
  try {
    let at = 0;
    let i = 0;
    while (at < xml.length && !scanner.done) {
      const size = chunks[i++ % chunks.length]!;
      scanner.feed(xml.subarray(at, at + size));
      at += size;
    }
    scanner.end();
    if (!scanner.done && scanner.pendingTag) return { rows: scanner.rows, data, error: 'pending tag' };
  } catch (err) {
    if (!(err instanceof ReportError)) throw err;
    return { rows: -1, data: [], error: err.code };
  }
  return { rows: scanner.rows, data };
}

const WHOLE = [1 << 30];
const CHUNKINGS = [[1], [2], [3], [7], [13], [64], [5, 1, 300, 2, 17], [4096]];

describe('SheetScanner fast rows', () => {
  it('reads every cell form like the tag-by-tag reading, whatever the chunks', () => {
    for (const seed of [1, 2, 3]) {
      const xml = Buffer.from(randomSheet(seed, 60));
      const reference = run(TagByTagScanner, xml, WHOLE);
      expect(reference.error).toBeUndefined();
      expect(reference.rows).toBeGreaterThan(40);
      expect(run(SheetScanner, xml, WHOLE)).toEqual(reference);
      for (const chunks of CHUNKINGS) {
        expect(run(SheetScanner, xml, chunks)).toEqual(reference);
        expect(run(TagByTagScanner, xml, chunks)).toEqual(reference);
      }
      const counted = run(TagByTagScanner, xml, WHOLE, { count: true });
      expect(counted.rows).toBe(reference.rows);
      for (const chunks of [WHOLE, ...CHUNKINGS])
        expect(run(SheetScanner, xml, chunks, { count: true })).toEqual(counted);
    }
  });

  it('decodes ASCII and UTF-8 text cut at every byte the same as whole', () => {
    const texts = [
      'Продажа',
      'Ёлка №1 — ёЁ',
      'plain-ascii-1557.71',
      'mixed: abc Я xyz',
      'A&amp;B &#x2116;',
      'x_x000D_y',
    ];
    const cells = texts.map((t, i) => `<c r="${columnName(i + 1)}2" t="str"><v>${t}</v></c>`).join('');
    const xml = Buffer.from(
      `<worksheet><sheetData><row r="1">${HEADER.map((h, i) => `<c r="${columnName(i)}1" t="str"><v>${h}</v></c>`).join('')}</row>` +
        `<row r="2">${cells}</row></sheetData></worksheet>`,
    );
    const whole = run(SheetScanner, xml, WHOLE);
    expect(whole.data[1]).toContain('subject_name=Продажа');
    expect(whole.data[1]).toContain('nm_id=Ёлка №1 — ёЁ');
    expect(whole.data[1]).toContain('sa_name=plain-ascii-1557.71');
    expect(whole.data[1]).toContain('supplier_oper_name=A&B №');
    expect(whole.data[1]).toContain('sale_dt=x\\ry');
    expect(run(TagByTagScanner, xml, WHOLE)).toEqual(whole);
    const row2 = xml.indexOf('<row r="2">');
    for (let cut = row2; cut < xml.length; cut++) {
      expect(run(SheetScanner, xml, [cut, 1 << 30])).toEqual(whole);
    }
  });

  it('gives each cell its own text when thousands of distinct non-ASCII texts of one length share the decoded-text cache', () => {
    // 3000 distinct articles of equal byte length, each repeated later, plus texts one byte apart:
    // more texts than cache slots, so slots are shared and replaced.
    const article = (i: number) => `Артикул-${String(i).padStart(5, '0')}`;
    const rows: string[] = [];
    for (let i = 0; i < 6000; i++) {
      const n = i < 3000 ? i : (i * 7) % 3000;
      rows.push(
        `<row r="${i + 2}"><c r="B${i + 2}" t="str"><v>Ёлка ${n % 10}</v></c><c r="D${i + 2}" t="inlineStr"><is><t>${article(n)}</t></is></c></row>`,
      );
    }
    const header = `<row r="1">${HEADER.map((h, i) => `<c r="${columnName(i)}1" t="str"><v>${h}</v></c>`).join('')}</row>`;
    const xml = Buffer.from(`<worksheet><sheetData>${header}${rows.join('')}</sheetData></worksheet>`);
    const fast = run(SheetScanner, xml, [65536]);
    expect(fast.rows).toBe(6000);
    expect(fast).toEqual(run(TagByTagScanner, xml, WHOLE));
    // data[0] is the begin line; data[3002] is row i = 3001, article (3001 · 7) mod 3000 = 7
    expect(fast.data[3002]).toContain(`sa_name=${article(7)}`);
    expect(fast.data[3002]).toContain('subject_name=Ёлка 7');
  });

  it('refuses what the tag-by-tag reading refuses, with the same code', () => {
    const header = `<row r="1">${HEADER.map((h, i) => `<c r="${columnName(i)}1" t="str"><v>${h}</v></c>`).join('')}</row>`;
    const sheet = (rows: string) => Buffer.from(`<worksheet><sheetData>${header}${rows}</sheetData></worksheet>`);
    // Header titles are up to 46 characters; the cap applies to them too.
    const CAP: Partial<ReadLimits> = { maxCellLength: 50 };
    const LONG = 'x'.repeat(51);
    const AMPS = '&amp;'.repeat(50); // 250 bytes, 50 characters: within the cap
    const cases: Array<[string, Buffer, Partial<ReadLimits>]> = [
      ['too long in a read column', sheet(`<row r="2"><c r="B2" t="str"><v>${LONG}</v></c></row>`), CAP],
      [
        'too long in an unread column of a counting row',
        sheet(`<row r="2"><c r="B2"><v>1</v></c><c r="L2" t="str"><v>${LONG}</v></c></row>`),
        CAP,
      ],
      [
        'too long before the row counts',
        sheet(`<row r="2"><c r="A2" t="str"><v>${LONG}</v></c><c r="B2"><v>1</v></c></row>`),
        CAP,
      ],
      [
        'entities within the cap',
        sheet(`<row r="2"><c r="A2" t="str"><v>${AMPS}</v></c><c r="B2" t="str"><v>${AMPS}</v></c></row>`),
        CAP,
      ],
      ['a missing shared string', sheet(`<row r="2"><c r="B2" t="s"><v>99</v></c></row>`), {}],
      [
        'a missing shared string in an unread cell of a counting row',
        sheet(`<row r="2"><c r="B2"><v>1</v></c><c r="L2" t="s"><v>99</v></c></row>`),
        {},
      ],
      ['a cell beyond XFD', sheet(`<row r="2"><c r="B2"><v>1</v></c><c r="XFE2"><v>1</v></c></row>`), {}],
      [
        'too many rows',
        sheet(`<row r="2"><c r="B2"><v>1</v></c></row><row r="3"><c r="B3"><v>1</v></c></row>`),
        { maxRows: 1 },
      ],
      [
        'a sheet cut in a tag',
        Buffer.from(`<worksheet><sheetData>${header}<row r="2"><c r="B2"><v>1</v></c><c r="C2`),
        {},
      ],
      [
        'a sheet cut in a text',
        Buffer.from(`<worksheet><sheetData>${header}<row r="2"><c r="B2"><v>1</v></c><c r="C2"><v>2`),
        {},
      ],
      ['a sheet cut after a cell', Buffer.from(`<worksheet><sheetData>${header}<row r="2"><c r="B2"><v>1</v></c>`), {}],
    ];
    for (const [name, xml, limits] of cases) {
      const reference = run(TagByTagScanner, xml, WHOLE, { limits });
      for (const chunks of [WHOLE, [1], [7], [64]]) {
        expect({ name, ...run(SheetScanner, xml, chunks, { limits }) }).toEqual({ name, ...reference });
      }
      const counted = run(TagByTagScanner, xml, WHOLE, { limits, count: true });
      expect({ name, ...run(SheetScanner, xml, WHOLE, { limits, count: true }) }).toEqual({ name, ...counted });
    }
    const codes = cases.map(([, xml, limits]) => run(SheetScanner, xml, WHOLE, { limits }).error ?? 'read');
    expect(codes).toEqual([
      'cell_too_long',
      'cell_too_long',
      'cell_too_long',
      'read',
      'corrupt_file',
      'read', // an unread cell of a row already counted is jumped over, its index unchecked
      'corrupt_file',
      'too_many_rows',
      'pending tag',
      'read',
      'read',
    ]);
  });
});
