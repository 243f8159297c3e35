/**
 * The optional date column of a cost-price import (docs/API.md, POST /api/products/import): the day a
 * row's price starts to apply. Headers «Дата», «Действует с», «Дата начала», «valid_from», «date».
 * Values: 2026-03-01, 01.03.2026 (or 01.03.26), or an Excel date serial. An empty cell means "as a
 * plain PUT": the first price of a product from the beginning, a change from today.
 */
import { isIsoDate } from '../engine/periods';

/** Header score of the date column (0: not one); headers are normalized (lower case, letters and digits only). */
export function validFromScore(h: string): number {
  if (['действуетс', 'датаначала', 'validfrom', 'датаначаладействия'].includes(h)) return 3;
  if (h === 'дата' || h === 'date') return 2;
  if (h.startsWith('действуетс') || h.startsWith('датаначала')) return 1;
  return 0;
}

/** Cell text → YYYY-MM-DD, undefined for an empty cell, or an error text in Russian. */
export function parseValidFrom(text: string): string | undefined | { error: string } {
  const t = text.trim();
  if (t === '') return undefined;
  let iso: string | null = null;
  let m: RegExpExecArray | null;
  if ((m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$/.exec(t))) iso = `${m[1]}-${m[2]}-${m[3]}`;
  else if ((m = /^(\d{1,2})\.(\d{1,2})\.(\d{2}|\d{4})$/.exec(t)))
    iso = `${m[3]!.length === 2 ? `20${m[3]}` : m[3]}-${m[2]!.padStart(2, '0')}-${m[1]!.padStart(2, '0')}`;
  else if (/^\d{5}(\.\d+)?$/.test(t)) {
    // Excel's serial day number (1900 system): day 25569 is 1970-01-01.
    const days = Math.floor(Number(t));
    if (days > 20_000 && days < 80_000) iso = new Date((days - 25_569) * 86_400_000).toISOString().slice(0, 10);
  }
  if (iso === null || !isIsoDate(iso)) return { error: `Дата «${t.slice(0, 40)}» не распознана (нужно ДД.ММ.ГГГГ)` };
  return iso;
}
