/**
 * The parts of an .xlsx package the readers need: which entry is the first sheet and which holds the
 * shared strings (workbook order, through the relationships), the small parts read whole, and a
 * sheet streamed through a byte scanner.
 */
import type { Entry } from 'yauzl';
import { decodeEntities } from './xml-text';
import type { XmlByteScanner } from './xml-scanner';
import { asCorrupt, type ZipArchive, type ZipStreamOptions } from './zip';

const SMALL_PART_BYTES = 32 * 1024 * 1024;

export interface SheetParts {
  sheet: Entry;
  sharedStrings: Entry | null;
}

function attr(attrs: string, name: string): string | null {
  const m = new RegExp(`(?:^|\\s)(?:[\\w.-]+:)?${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(attrs);
  return m ? decodeEntities((m[1] ?? m[2])!) : null;
}

/** Resolves a relationship target relative to xl/ (or absolute from the package root). */
function resolveTarget(target: string): string {
  const segments = target.startsWith('/') ? [] : ['xl'];
  for (const part of target.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') segments.pop();
    else segments.push(part);
  }
  return segments.join('/');
}

async function readSmallPart(zip: ZipArchive, entry: Entry): Promise<string> {
  const buf = await zip.read(entry, SMALL_PART_BYTES, () =>
    asCorrupt(new Error(`${entry.fileName} is implausibly large`), 'The spreadsheet'),
  );
  return buf.toString('utf8');
}

/** The first sheet (workbook order, via its relationship) and the shared strings part, if any. */
export async function locateParts(zip: ZipArchive): Promise<SheetParts> {
  let sheet: Entry | undefined;
  let sharedStrings: Entry | undefined;
  const workbook = zip.find('xl/workbook.xml');
  const rels = zip.find('xl/_rels/workbook.xml.rels');
  if (workbook && rels) {
    const wb = await readSmallPart(zip, workbook);
    const relText = await readSmallPart(zip, rels);
    const first = /<(?:[\w.-]+:)?sheet\b([^>]*)>/.exec(wb);
    const relId = first ? attr(first[1]!, 'id') : null;
    for (const m of relText.matchAll(/<(?:[\w.-]+:)?Relationship\b([^>]*)>/g)) {
      const id = attr(m[1]!, 'Id');
      const type = attr(m[1]!, 'Type') ?? '';
      const target = attr(m[1]!, 'Target');
      if (target === null) continue;
      if (relId !== null && id === relId) sheet = zip.find(resolveTarget(target));
      else if (type.endsWith('/sharedStrings')) sharedStrings = zip.find(resolveTarget(target));
    }
  }
  sheet ??=
    zip.find('xl/worksheets/sheet1.xml') ??
    zip.entries.find((e) => /^\/?xl\/worksheets\/[^/]+\.xml$/i.test(e.fileName));
  sharedStrings ??= zip.find('xl/sharedStrings.xml');
  if (!sheet) throw asCorrupt(new Error('the workbook has no worksheet'), 'The spreadsheet');
  return { sheet, sharedStrings: sharedStrings ?? null };
}

/** Streams the sheet through the scanner until the scanner is done; a sheet cut short is corrupt. */
export async function scanSheet(
  zip: ZipArchive,
  sheet: Entry,
  scanner: XmlByteScanner,
  options: ZipStreamOptions = {},
): Promise<void> {
  for await (const chunk of zip.stream(sheet, options)) {
    scanner.feed(chunk);
    if (scanner.done) break;
  }
  scanner.end();
  if (!scanner.done && scanner.pendingTag) {
    throw asCorrupt(new Error('the sheet ends in the middle'), 'The spreadsheet');
  }
}
