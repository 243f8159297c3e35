import type { FileMeta } from '../types';

/** Extensions stripped from the end of a name (repeatedly: "….xlsx.zip"). */
const EXTENSION = /\.(zip|xlsx|xlsm|xls)$/i;

/**
 * What may follow the seller number before the extension: browser and OS copy suffixes
 * (" - 1", " (1)", "- копия", " copy 2"), never another "_part" or a word.
 */
const COPY_SUFFIX = /^[\s\-–—()\d]*(?:(?:копия|copy)[\s\-–—()\d]*)?$/i;

/**
 * Report and seller numbers from a file name (docs/WB-REPORT.md, "File-name metadata").
 * Numbers stay strings: daily report numbers have 15 digits.
 */
export function parseFileMeta(name: string): FileMeta {
  const base = name.split(/[/\\]/).pop() ?? '';
  let stem = base.normalize('NFC');
  while (EXTENSION.test(stem)) stem = stem.replace(EXTENSION, '');

  const report = /№\s?(\d+)/.exec(stem);
  let seller: string | null = null;
  for (let i = stem.lastIndexOf('_'); i >= 0; i = i === 0 ? -1 : stem.lastIndexOf('_', i - 1)) {
    const digits = /^\d+/.exec(stem.slice(i + 1));
    if (!digits) continue;
    // The last "_" followed by digits wins; anything after the digits must be a copy suffix.
    if (COPY_SUFFIX.test(stem.slice(i + 1 + digits[0].length))) seller = digits[0];
    break;
  }
  return { report_number: report ? (report[1] ?? null) : null, seller_number: seller };
}
