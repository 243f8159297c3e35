import { ReportError } from '../errors';
import type { FileFormat } from '../types';

/** Bytes enough to tell every format we accept or name. */
export const HEAD_BYTES = 512;

const OLE2 = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** Parts only an OOXML package has at its root; used when the central directory is not at hand. */
const OOXML_FIRST_ENTRIES = ['[Content_Types].xml', '_rels/', 'docProps/', 'xl/'];

function startsWith(head: Buffer, bytes: readonly number[], at = 0): boolean {
  if (head.length < at + bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (head[at + i] !== bytes[i]) return false;
  return true;
}

export function isZipMagic(head: Buffer): boolean {
  // PK\x03\x04 (a local file header) or PK\x05\x06 (an empty archive: only the end record).
  return startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06]);
}

export function isOle2Magic(head: Buffer): boolean {
  return startsWith(head, OLE2);
}

/**
 * Which of our formats a file is, from its first bytes.
 * A zip is an .xlsx when it holds xl/workbook.xml. Pass the archive's entry names (central directory,
 * authoritative) when known; without them the name of the first local file header decides.
 */
export function detectFormat(head: Buffer, entryNames?: readonly string[]): FileFormat {
  if (isOle2Magic(head)) return 'xls';
  if (isZipMagic(head)) {
    if (entryNames) {
      return entryNames.some((n) => n.replace(/^\/+/, '').toLowerCase() === 'xl/workbook.xml') ? 'xlsx' : 'zip';
    }
    if (head.length >= 30 && head[2] === 0x03) {
      const nameLength = head.readUInt16LE(26);
      const name = head.toString('utf8', 30, Math.min(head.length, 30 + nameLength));
      if (OOXML_FIRST_ENTRIES.some((p) => name.startsWith(p))) return 'xlsx';
    }
    return 'zip';
  }
  throw unsupportedFormat(head);
}

export function unsupportedFormat(head: Buffer): ReportError {
  const found = describeHead(head);
  return new ReportError('not_a_spreadsheet', `Not a zip, xlsx or xls file: this looks like ${found}.`, { found });
}

/** A human name for what an unsupported file looks like ("PDF", "HTML", "CSV/text", …). */
export function describeHead(head: Buffer): string {
  if (head.length === 0) return 'an empty file';
  if (startsWith(head, [0x25, 0x50, 0x44, 0x46])) return 'a PDF document';
  if (startsWith(head, [0x52, 0x61, 0x72, 0x21])) return 'a RAR archive';
  if (startsWith(head, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return 'a 7-Zip archive';
  if (startsWith(head, [0x1f, 0x8b])) return 'a gzip archive';
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47])) return 'a PNG image';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'a JPEG image';
  if (startsWith(head, [0x50, 0x4b])) return 'a damaged zip archive';
  const text = asText(head);
  if (text !== null) {
    const lead = text
      .replace(/^\uFEFF/, '')
      .trimStart()
      .slice(0, 256)
      .toLowerCase();
    if (lead.startsWith('<!doctype html') || lead.startsWith('<html') || /^<\?xml[^>]*>\s*<!doctype html/.test(lead)) {
      return 'an HTML page';
    }
    if (lead.startsWith('<?xml') || lead.startsWith('<')) return 'an XML document';
    if (lead.startsWith('{') || lead.startsWith('[')) return 'JSON text';
    return 'CSV/text';
  }
  const hex = head
    .subarray(0, 8)
    .toString('hex')
    .replace(/(..)(?!$)/g, '$1 ');
  return `an unknown format (first bytes ${hex})`;
}

/** The head decoded as text when it has no control bytes other than tab/CR/LF (UTF-8 or UTF-16 BOM). */
function asText(head: Buffer): string | null {
  if (startsWith(head, [0xff, 0xfe])) return head.toString('utf16le', 2);
  if (startsWith(head, [0xfe, 0xff])) {
    const even = Buffer.from(head.subarray(2, 2 + ((head.length - 2) & ~1)));
    return even.swap16().toString('utf16le');
  }
  for (let i = 0; i < head.length; i++) {
    const b = head[i]!;
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return null;
  }
  return head.toString('utf8');
}
