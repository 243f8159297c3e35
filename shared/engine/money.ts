/**
 * Number and date text of a report cell → the engine's units, without float sums (docs/METRICS.md, Units and rounding).
 * Money cells go straight from decimal text to integer kopecks: the digits are read as an integer mantissa and
 * a power of ten, so "1557.71" is 155771 exactly and never 155770.99999999997.
 */

/**
 * A double carries about 15–17 significant digits; text with more (e.g. "0.30000000000000004", written by a
 * program that printed a float) is first rounded to 15 of them, which removes the float artefact and keeps
 * every real WB amount (2 decimals) exact.
 */
const MAX_DIGITS = 15;
const POW10: number[] = [];
for (let i = 0, p = 1; i <= 22; i++, p *= 10) POW10.push(p);

const C_0 = 48;
const C_9 = 57;
const C_DOT = 46;
const C_COMMA = 44;
const C_MINUS = 45;
const C_PLUS = 43;
const C_E = 69;
const C_e = 101;
const C_PERCENT = 37;

function isSpace(c: number): boolean {
  // ASCII space and tab, NBSP, narrow NBSP and thin space (thousands separators in Russian-locale text).
  return c === 32 || c === 9 || c === 160 || c === 0x202f || c === 0x2009 || c === 10 || c === 13;
}

/**
 * Decimal text → round(value · 10^scale), rounded half away from zero. NaN when the text is not a number;
 * 0 for undefined or blank text. Accepts a leading sign, a comma as the decimal mark (or as a thousands
 * separator when a dot is also present), spaces between digit groups, an exponent ("1E-3", "1.2345E+3")
 * and a trailing "%" (percent columns written as text).
 */
export function scanScaled(text: string | undefined, scale: number): number {
  if (text === undefined) return 0;
  const n = text.length;
  if (n === 1 && scale >= 0 && scale <= 22) {
    // A single digit ("0" fills most money columns of most rows): what the general reading gives.
    const d = text.charCodeAt(0) - C_0;
    if (d >= 0 && d <= 9) return d * POW10[scale]!;
  }
  let i = 0;
  while (i < n && isSpace(text.charCodeAt(i))) i++;
  if (i === n) return 0;
  let negative = false;
  let c = text.charCodeAt(i);
  if (c === C_MINUS || c === 0x2212) {
    negative = true;
    i++;
  } else if (c === C_PLUS) {
    i++;
  }
  // A comma is the decimal mark unless the text also has a dot ("1,234.50"); looked up at the first comma
  // only, since most numbers have none.
  let commaIsDecimal = -1; // -1: not yet known, 1: decimal mark, 0: thousands separator
  let mantissa = 0;
  let digits = 0; // significant digits taken into the mantissa
  let roundDigit = -1; // first significant digit past MAX_DIGITS
  let exp10 = 0; // value = mantissa · 10^exp10
  let sawDigit = false;
  let sawPoint = false;
  for (; i < n; i++) {
    c = text.charCodeAt(i);
    if (c >= C_0 && c <= C_9) {
      sawDigit = true;
      const d = c - C_0;
      if (digits < MAX_DIGITS) {
        if (d !== 0 || digits > 0) {
          mantissa = mantissa * 10 + d;
          digits++;
        }
        if (sawPoint) exp10--;
      } else {
        if (roundDigit < 0) roundDigit = d;
        if (!sawPoint) exp10++;
      }
    } else if (c === C_DOT) {
      if (sawPoint) return NaN;
      sawPoint = true;
    } else if (c === C_COMMA) {
      if (commaIsDecimal < 0) commaIsDecimal = text.indexOf('.') < 0 ? 1 : 0;
      if (commaIsDecimal === 1) {
        if (sawPoint) return NaN;
        sawPoint = true;
      }
      // else a thousands separator
    } else if (isSpace(c)) {
      // thousands separator
    } else {
      break;
    }
  }
  if (!sawDigit) return NaN;
  if (i < n && (c === C_E || c === C_e)) {
    i++;
    let expNegative = false;
    c = text.charCodeAt(i);
    if (c === C_MINUS || c === C_PLUS) {
      expNegative = c === C_MINUS;
      i++;
    }
    let e = 0;
    let expDigits = 0;
    for (; i < n; i++) {
      c = text.charCodeAt(i);
      if (c < C_0 || c > C_9) break;
      if (e < 10000) e = e * 10 + (c - C_0);
      expDigits++;
    }
    if (expDigits === 0) return NaN;
    exp10 += expNegative ? -e : e;
  }
  while (i < n && isSpace(text.charCodeAt(i))) i++;
  if (i < n && text.charCodeAt(i) === C_PERCENT) i++;
  while (i < n && isSpace(text.charCodeAt(i))) i++;
  if (i < n) return NaN;

  if (roundDigit >= 5) {
    mantissa += 1; // round to MAX_DIGITS significant digits (half away from zero: sign applied below)
  }
  if (mantissa === 0) return 0;
  const shift = exp10 + scale;
  let result: number;
  if (shift >= 0) {
    result = shift <= 22 ? mantissa * POW10[shift]! : mantissa * Math.pow(10, shift);
  } else if (-shift > 16) {
    result = 0; // mantissa < 10^16, so the value is below half a unit
  } else {
    const p = POW10[-shift]!;
    const r = mantissa % p; // exact for integers below 2^53
    result = (mantissa - r) / p;
    if (r * 2 >= p) result += 1;
  }
  return negative && result !== 0 ? -result : result;
}

/** Money text (roubles) → integer kopecks, rounded half away from zero at the kopeck; 0 for empty or non-numeric text. */
export function parseKopecks(text: string | undefined): number {
  const v = scanScaled(text, 2);
  return v === v ? v : 0;
}

/** Count text → integer, rounded half away from zero; 0 for empty or non-numeric text. */
export function parseQty(text: string | undefined): number {
  const v = scanScaled(text, 0);
  return v === v ? v : 0;
}

/**
 * Percent text → number as written ("27.5" → 27.5, "0.15" → 0.15: whether a column is a fraction is decided
 * over the whole column, see aggregate.ts). Kept to 6 decimals; 0 for empty or non-numeric text.
 */
export function parsePercent(text: string | undefined): number {
  const v = scanScaled(text, 6);
  return v === v ? v / 1e6 : 0;
}

/**
 * Roubles (a number a seller typed, or read from a file) that are whole kopecks: at most 2 decimals. A
 * binary float's tail (0.1 + 0.2 = 0.30000000000000004) is not a third decimal; 1e-8 roubles is.
 */
export function isWholeKopecks(roubles: number): boolean {
  const cents = roubles * 100;
  return Math.abs(cents - Math.round(cents)) < 1e-6;
}

/**
 * Round half away from zero to an integer. Products and quotients of doubles land a hair below .5
 * (1.005 · 100 = 100.49999999999999), so a fractional part within 1e-9 of a half counts as a half.
 */
export function roundHalfAway(x: number): number {
  if (!Number.isFinite(x)) return x;
  const a = Math.abs(x);
  const f = Math.floor(a);
  const r = a - f >= 0.5 - 1e-9 ? f + 1 : f;
  return x < 0 && r !== 0 ? -r : r;
}

/** Percent to 2 decimals, half away from zero. */
export function round2(x: number): number {
  return roundHalfAway(x * 100) / 100;
}

/**
 * round(a · b / c) half away from zero, exact when a and b are integers whose product is a safe integer
 * and c is a non-zero integer (VAT, USN, percents of money); falls back to float arithmetic otherwise.
 */
export function mulDivRound(a: number, b: number, c: number): number {
  const num = a * b;
  if (Number.isSafeInteger(num) && Number.isSafeInteger(c) && c !== 0) {
    const negative = num < 0 !== c < 0;
    const an = Math.abs(num);
    const ac = Math.abs(c);
    const r = an % ac;
    let q = (an - r) / ac;
    if (r * 2 >= ac) q += 1;
    return negative && q !== 0 ? -q : q;
  }
  return roundHalfAway(num / c);
}

/** A rate in percent with up to 2 decimals (6, 4.5) as an integer of hundredths, so taxes stay exact. */
export function rateHundredths(ratePercent: number): number {
  return Math.round(ratePercent * 100);
}

// Excel's 1900 date system: serial 1 is 1900-01-01 and 60 is the fictitious 1900-02-29, so from serial 61 on
// a serial counts days since 1899-12-30.
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);
const DAY_MS = 86_400_000;

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

function validYmd(y: number, m: number, d: number): boolean {
  if (y < 1900 || y > 2999 || m < 1 || m > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= days;
}

function digitsAt(s: string, from: number, count: number): number {
  let v = 0;
  for (let i = from; i < from + count; i++) {
    const c = s.charCodeAt(i);
    if (c < C_0 || c > C_9) return -1;
    v = v * 10 + (c - C_0);
  }
  return v;
}

/**
 * Date cell text → "YYYY-MM-DD", or null when it is not a date. Accepts "2022-10-03", "2022-10-03T12:00:00",
 * "2022-10-03 12:00:00" (the time is dropped), "03.10.2022" and Excel serials "44837" / "44837.5".
 */
export function toIsoDate(text: string | undefined): string | null {
  if (text === undefined) return null;
  const s = text.trim();
  if (s.length >= 10 && s.charCodeAt(4) === C_MINUS && s.charCodeAt(7) === C_MINUS) {
    const y = digitsAt(s, 0, 4);
    const m = digitsAt(s, 5, 2);
    const d = digitsAt(s, 8, 2);
    if (s.length > 10) {
      const sep = s.charCodeAt(10);
      if (sep !== 84 /* T */ && sep !== 32) return null;
    }
    return validYmd(y, m, d) ? s.slice(0, 10) : null;
  }
  if (s.length >= 10 && s.charCodeAt(2) === C_DOT && s.charCodeAt(5) === C_DOT) {
    const d = digitsAt(s, 0, 2);
    const m = digitsAt(s, 3, 2);
    const y = digitsAt(s, 6, 4);
    if (s.length > 10 && s.charCodeAt(10) !== 32) return null;
    return validYmd(y, m, d) ? `${y}-${pad2(m)}-${pad2(d)}` : null;
  }
  if (/^\d+(\.\d+)?$/.test(s)) {
    const serial = Math.floor(Number(s));
    // Serials before 1900-03-01 are not report dates; 2958465 is 9999-12-31, Excel's last date.
    if (serial < 61 || serial > 2958465) return null;
    const date = new Date(EXCEL_EPOCH_MS + serial * DAY_MS);
    const y = date.getUTCFullYear();
    if (y > 2999) return null;
    return `${y}-${pad2(date.getUTCMonth() + 1)}-${pad2(date.getUTCDate())}`;
  }
  return null;
}
