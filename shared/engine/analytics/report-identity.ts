/**
 * A report's identity for analytics (each identity counts once, the newest). The one place that
 * decides it: the content fingerprint of its rows when the record has one (engine/fingerprint.ts: the
 * same week as .xlsx, .xls or zip, under any name, is one); else when the report record carries its own
 * `identity` (duplicate detection, docs/API.md), that one; else (seller, report number) when the file name gave both; else (period, fingerprint of
 * the report's computed values), which is the same for the same week read from zip, xlsx or xls.
 */
export interface IdentitySource {
  id: string;
  identity?: unknown;
  seller_id: string | null;
  report_number: string | null;
  period_from: string | null;
  period_to: string | null;
  content_fingerprint?: string | null;
}

export function reportIdentity(r: IdentitySource, contentHash: string | null): string {
  if (r.content_fingerprint) return `rows:${r.content_fingerprint}`;
  if (typeof r.identity === 'string' && r.identity !== '') return `id:${r.identity}`;
  if (r.identity && typeof r.identity === 'object') return `id:${JSON.stringify(r.identity)}`;
  if (r.seller_id && r.report_number) return `num:${r.seller_id}:${r.report_number}`;
  return `period:${r.period_from ?? ''}:${r.period_to ?? ''}:${contentHash ?? r.id}`;
}
