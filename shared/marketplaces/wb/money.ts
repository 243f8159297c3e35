/**
 * WB's money strings ↔ integer kopecks, exactly (no float arithmetic on amounts).
 * WB sends amounts as decimal strings of roubles ("1557.71", "-12.5", "0"); the spec calls them strings,
 * and a few public clients have seen plain JSON numbers in older answers, which are read through their
 * shortest decimal text (what JSON carried), so both give the same kopecks.
 */

const MONEY_TEXT = /^[+-]?\d+(?:\.\d+)?$/;

/** True for the decimal text WB uses for money. */
export function isMoneyText(text: string): boolean {
  return MONEY_TEXT.test(text.trim());
}

/**
 * Decimal roubles → kopecks, rounded half away from zero beyond the second decimal (WB's amounts have two).
 * Throws on text that is not a decimal number.
 */
export function moneyToKopecks(value: string | number): number {
  const text = (typeof value === 'number' ? numberText(value) : value).trim();
  if (!MONEY_TEXT.test(text)) throw new Error(`not a money amount: ${JSON.stringify(value)}`);
  const negative = text.startsWith('-');
  const unsigned = text.replace(/^[+-]/, '');
  const [whole, frac = ''] = unsigned.split('.') as [string, string?];
  const cents = (frac + '00').slice(0, 2);
  const roundUp = frac.length > 2 && frac.charCodeAt(2) >= 53; // '5'
  const kopecks = Number(whole) * 100 + Number(cents) + (roundUp ? 1 : 0);
  if (!Number.isSafeInteger(kopecks)) throw new Error(`money amount out of range: ${text}`);
  return negative && kopecks !== 0 ? -kopecks : kopecks;
}

/** Kopecks → WB's money text with two decimals ("1557.71", "-0.05", "0.00"). */
export function kopecksToMoney(kopecks: number): string {
  if (!Number.isSafeInteger(kopecks)) throw new Error(`not whole kopecks: ${kopecks}`);
  const sign = kopecks < 0 ? '-' : '';
  const abs = Math.abs(kopecks);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** A JSON number's decimal text without exponent ("1e-7" → "0.0000001"). */
export function numberText(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`not a finite number: ${n}`);
  const s = String(n);
  if (!/e/i.test(s)) return s;
  return n.toFixed(20).replace(/\.?0+$/, '');
}
