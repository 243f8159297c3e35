/**
 * Numbers a report cell may hold. A money amount beyond ±10^11 roubles (1E+20, 1E+309 = Infinity), a
 * count beyond ±10^9, a percent beyond ±10^4, or "NaN"/"Infinity" written as text in a number column is
 * not a Wildberries report: the file is refused with `value_out_of_range`, naming the cell (its sums would
 * no longer be exact integers of kopecks, and DynamoDB refuses such numbers). The bounds are those of a
 * manual value (build.ts). Other text in a number column ("-", "н/д") is counted as 0 and reported by
 * aggregate.ts.
 */
import { ReportError } from '../errors';
import { scanScaled } from '../money';
import { KEY_INDEX, type MetricKey } from '../row-sink';
import type { ColumnMap } from './headers';

/** Money columns (roubles), counts and percents of the report, as aggregate.ts reads them. */
const MONEY_KEYS: readonly MetricKey[] = [
  'retail_amount',
  'retail_price_withdisc_rub',
  'ppvz_reward',
  'acquiring_fee',
  'ppvz_vw',
  'ppvz_vw_nds',
  'ppvz_for_pay',
  'delivery_rub',
  'penalty',
  'additional_payment',
  'rebill_logistic_cost',
  'storage_fee',
  'deduction',
  'acceptance',
  'cashback_discount',
  'cashback_commission_change',
  'cashback_amount',
];
const COUNT_KEYS: readonly MetricKey[] = ['quantity', 'delivery_amount', 'return_amount'];
const PERCENT_KEYS: readonly MetricKey[] = ['commission_percent'];

/** Largest magnitude of a cell, in the units scanScaled gives at the column's scale. */
const MAX_CELL_ROUBLES = 1e11;
const MAX_CELL_COUNT = 1e9;
const MAX_CELL_PERCENT = 1e4;

const NAN_LIKE = /^[+\-−]?(nan|inf|infinity|∞)$/i;

interface Checked {
  index: number;
  column: number;
  title: string;
  scale: number;
  max: number;
  short: number;
}

/** "A", "Z", "AA", … for a 0-based column. */
export function columnLetter(col: number): string {
  let s = '';
  for (let n = col + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/**
 * Whether `text` is a number beyond `max` (scaled units) or NaN/Infinity spelled out; other text that is
 * no number is left to the aggregate's warning. Text of at most `short` characters among digits, signs,
 * separators, spaces and "%" holds at most `short` digits, so it is within the bound without parsing
 * (`short`: the digits of the bound less one, e.g. 11 for 10^11 roubles).
 */
export function outOfRange(text: string, scale: number, max: number, short: number): boolean {
  check: if (text.length <= short) {
    for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) > 57) break check;
    return false;
  }
  const v = scanScaled(text, scale);
  if (v !== v) return NAN_LIKE.test(text.trim());
  return !(v <= max && v >= -max);
}

/**
 * The number columns of a file's header, checked row by row before the row reaches the sink. `title`
 * gives a column's header text (the file's own spelling) for the message.
 */
export class ValueCheck {
  private readonly checked: Checked[] = [];

  constructor(columns: ColumnMap, title: (column: number) => string) {
    const add = (keys: readonly MetricKey[], scale: number, bound: number) => {
      const short = Math.round(Math.log10(bound));
      for (const key of keys) {
        const index = KEY_INDEX[key];
        const column = columns.toMetric.indexOf(index);
        if (column >= 0)
          this.checked.push({ index, column, title: title(column), scale, max: bound * 10 ** scale, short });
      }
    };
    add(MONEY_KEYS, 2, MAX_CELL_ROUBLES);
    add(COUNT_KEYS, 0, MAX_CELL_COUNT);
    add(PERCENT_KEYS, 6, MAX_CELL_PERCENT);
  }

  /** Throws value_out_of_range for the first cell of the row out of its range; `row`: its 1-based number. */
  check(cells: ReadonlyArray<string | undefined>, row: () => number): void {
    const checked = this.checked;
    for (let i = 0; i < checked.length; i++) {
      const c = checked[i]!;
      const text = cells[c.index];
      if (text !== undefined && outOfRange(text, c.scale, c.max, c.short)) throw outOfRangeError(c, text, row());
    }
  }
}

function outOfRangeError(c: Checked, text: string, row: number): ReportError {
  const cell = `${columnLetter(c.column)}${row}`;
  return new ReportError('value_out_of_range', `Ячейка ${cell} (${c.title}): число вне допустимого диапазона`, {
    cell,
    column: c.title,
    value: text.length > 50 ? `${text.slice(0, 50)}…` : text,
    max: c.scale === 2 ? c.max / 100 : c.scale === 6 ? c.max / 1e6 : c.max,
  });
}
