/**
 * A report's identity (issue 9, duplicates): `(seller number, report number)` when the file name has
 * both, else `(period, SHA-256 of the source file)`. Two uploads with the same identity are the same
 * report, whatever the container (zip, xlsx, xls) when the name carries the numbers.
 *
 * The identity is a string stored on the report (`identity`) and in a lookup record per report
 * (store/identities.repo.ts), so "does the user already have it" is one read of the user's partition.
 * The file kind's key is the hash alone: the period is read from the very bytes the hash covers, so
 * the hash decides it, and count-rows (which does not parse dates) can look it up too. The period is
 * kept beside it on the report (`identity_period`) for people reading the record.
 *
 * Pure: hashing takes a buffer or a readable stream; nothing here talks to AWS or HTTP.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { ReportSource } from '../../engine';

export interface IdentityMeta {
  seller_number: string | null;
  report_number: string | null;
}

/** `num:<seller>:<report>` from the file name, else `file:<sha256 hex>`. */
export function reportIdentity(meta: IdentityMeta, sha256: string): string {
  if (meta.seller_number && meta.report_number) return `num:${meta.seller_number}:${meta.report_number}`;
  return `file:${sha256}`;
}

/** The identity record key of a content fingerprint (engine/fingerprint.ts; duplicates.ts). */
export const contentIdentity = (fingerprint: string): string => `fp:${fingerprint}`;

/**
 * The identity record key of one of WB's row ids (the file's «№», the API's rrdId; engine/fingerprint.ts
 * `row_ids`): a report that holds the row is found by it, whatever its file, format or extra rows.
 */
export const rowIdentity = (rowId: string): string => `rrd:${rowId}`;

/** SHA-256 (hex) of a report source: bytes in memory, or a file on disk read as a stream. */
export async function sha256Of(source: ReportSource): Promise<string> {
  const hash = createHash('sha256');
  if ('buffer' in source) return hash.update(source.buffer).digest('hex');
  await new Promise<void>((resolve, reject) => {
    ('ranges' in source ? source.ranges.readRange(0, source.ranges.size) : createReadStream(source.path))
      .on('data', (chunk: Buffer) => hash.update(chunk))
      .on('end', () => resolve())
      .on('error', reject);
  });
  return hash.digest('hex');
}

/** "2026-05-18" → "18.05.2026". */
function ru(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  return m ? `${m[3]}.${m[2]}.${m[1]}` : iso;
}

/**
 * The title of a report whose file name has no report number: «Отчёт за 18.05–24.05.2026» (the year
 * once when both dates share it), «Отчёт за 28.12.2025–03.01.2026» across years, «Отчёт за 18.05.2026»
 * for one day; null without a period.
 */
export function periodTitle(from: string | null, to: string | null): string | null {
  if (!from && !to) return null;
  if (!from || !to || from === to) return `Отчёт за ${ru((from ?? to) as string)}`;
  const a = ru(from);
  const b = ru(to);
  if (from.slice(0, 4) === to.slice(0, 4)) return `Отчёт за ${a.slice(0, 5)}–${b}`;
  return `Отчёт за ${a}–${b}`;
}

/** What overlap checking needs of a report (a ReportRecord fits). */
export interface OverlapSubject {
  id: string;
  identity?: string | null;
  is_combined: boolean;
  source_report_ids?: string[];
  /**
   * A combined report: the reports (`id:<id>`), identities (`ident:<identity>`), content fingerprints
   * (`fp:<fingerprint>`) and sale days (`day:<day>:<rows>:<hash>`) it covers, nested ones included.
   */
  covers?: string[];
  /** engine/fingerprint.ts: the rows, whatever the file, and the same per sale day. */
  content_fingerprint?: string | null;
  content_days?: Readonly<Record<string, string>> | null;
}

/** What a report stands for: itself and its identity, or for a combined report everything it covers. */
export function coverOf(r: OverlapSubject): string[] {
  if (r.is_combined) {
    if (r.covers && r.covers.length > 0) return [...r.covers, `id:${r.id}`];
    return [`id:${r.id}`, ...(r.source_report_ids ?? []).map((id) => `id:${id}`)];
  }
  return [
    `id:${r.id}`,
    ...(r.identity ? [`ident:${r.identity}`] : []),
    ...(r.content_fingerprint ? [`fp:${r.content_fingerprint}`] : []),
    ...Object.entries(r.content_days ?? {})
      .filter(([day]) => day !== '*' && day !== '-')
      .map(([day, sum]) => `day:${day}:${sum}`),
  ];
}

/** The `covers` of a new combined report of these sources (its own id is added by coverOf). */
export function coversOfSources(sources: ReadonlyArray<OverlapSubject>): string[] {
  return [...new Set(sources.flatMap(coverOf))];
}

export type OverlapReason = 'same_report' | 'shared_rows' | 'combined_with_source' | 'shared_source';

export interface Overlap {
  report_ids: [string, string];
  reason: OverlapReason;
}

/**
 * The first pair of a selection that would count the same rows twice: two copies of one report (same
 * identity or the same content fingerprint), two reports sharing the rows of a sale day without being
 * equal (a daily report inside a weekly one), a combined report together with one of its sources, or two
 * combined reports sharing a source or a day's rows. Null when the selection is clean.
 */
export function findOverlap(selection: ReadonlyArray<OverlapSubject>): Overlap | null {
  const covers = selection.map((r) => new Set(coverOf(r)));
  for (let i = 0; i < selection.length; i++) {
    for (let j = i + 1; j < selection.length; j++) {
      const a = selection[i]!;
      const b = selection[j]!;
      if (![...covers[i]!].some((x) => covers[j]!.has(x))) continue;
      const same = (x: string) => !x.startsWith('day:') && covers[j]!.has(x);
      const reason: OverlapReason =
        !a.is_combined && !b.is_combined
          ? [...covers[i]!].some(same)
            ? 'same_report'
            : 'shared_rows'
          : covers[i]!.has(`id:${b.id}`) || covers[j]!.has(`id:${a.id}`)
            ? 'combined_with_source'
            : 'shared_source';
      return { report_ids: [a.id, b.id], reason };
    }
  }
  return null;
}
