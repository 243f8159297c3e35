/**
 * Is a combined report still what combining its sources gives (issue 9)? A combined report remembers
 * each source's `version` and `rebuilt_at` as it read them (reports.repo.ts CombinedSource). Any
 * change of a source's numbers bumps its version: a rebuild also sets a new `rebuilt_at`, a manual
 * correction does not; a deleted source is not found. Renaming or linking a seller bumps nothing.
 */
import { type CombinedSource, type ReportRecord } from '../../store/report-record';

/** What the staleness of a combined report reads: its sources. */
export interface CombinedStaleDeps {
  reports: { getReport(userId: string, reportId: string): Promise<ReportRecord | null> };
}

export type SourceChangeKind = 'rebuilt' | 'corrected' | 'deleted';

export interface SourceChange {
  id: string;
  title: string | null;
  change: SourceChangeKind;
}

export interface Staleness {
  stale: boolean;
  reason: string | null;
  changes: SourceChange[];
}

/** How each source changed since it was combined (unchanged ones are left out). Pure. */
export function sourceChanges(
  sources: ReadonlyArray<CombinedSource>,
  current: ReadonlyMap<string, Pick<ReportRecord, 'title' | 'version' | 'rebuilt_at'> | null>,
): SourceChange[] {
  const out: SourceChange[] = [];
  for (const s of sources) {
    const now = current.get(s.id) ?? null;
    if (!now) out.push({ id: s.id, title: null, change: 'deleted' });
    else if ((now.rebuilt_at ?? null) !== s.rebuilt_at) out.push({ id: s.id, title: now.title, change: 'rebuilt' });
    else if ((now.version ?? 1) !== s.version) out.push({ id: s.id, title: now.title, change: 'corrected' });
  }
  return out;
}

const VERB: Record<SourceChangeKind, string> = {
  rebuilt: 'пересобран',
  corrected: 'исправлен вручную',
  deleted: 'удалён',
};

/** «Исходный отчёт «…» пересобран; исходный отчёт удалён (id …).» — what changed, in the user's words. */
export function staleReason(changes: ReadonlyArray<SourceChange>): string | null {
  if (changes.length === 0) return null;
  const parts = changes.map((c) =>
    c.title ? `отчёт «${c.title}» ${VERB[c.change]}` : `отчёт ${c.id} ${VERB[c.change]}`,
  );
  return `После сборки изменились исходные отчёты: ${parts.join('; ')}.`;
}

/**
 * The staleness of a combined report: reads each remembered source (one GetItem each, in parallel).
 * An uploaded report, or a combined report made before sources were remembered, is never stale here.
 */
export async function combinedStaleness(
  deps: CombinedStaleDeps,
  userId: string,
  record: ReportRecord,
): Promise<Staleness> {
  if (!record.is_combined || !record.sources?.length) return { stale: false, reason: null, changes: [] };
  const found = await Promise.all(record.sources.map((s) => deps.reports.getReport(userId, s.id)));
  const current = new Map(record.sources.map((s, i) => [s.id, found[i] ?? null]));
  const changes = sourceChanges(record.sources, current);
  return { stale: changes.length > 0, reason: staleReason(changes), changes };
}
