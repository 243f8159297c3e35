/**
 * What the P&L reads of a user's reports (docs/METRICS.md, «P&L by month»): every report record,
 * projected to its identity, period, status and totals — one Query of the user's partition, no items,
 * no category lists or warnings. A report's totals are the sums of its items' effective values, kept on
 * the record by every build, rebuild and manual value, so a year of a big seller is ~52 small records.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';
import { REPORT_PREFIX, reportKey } from './keys';

export interface ReportTotalsHead {
  id: string;
  title: string;
  status: string;
  is_combined: boolean;
  seller_id: string | null;
  report_number: string | null;
  period_from: string | null;
  period_to: string | null;
  created_at: string;
  identity: string | null;
  content_fingerprint: string | null;
  content_days: Record<string, string> | null;
  totals: Record<string, number | null>;
  /** The tax profile and allocation the report was built with (a rebuild with other settings would change it). */
  tax_profile: { tax_system: string; usn_rate: number; vat_rate: number } | null;
  allocation_method: string | null;
  /** WB's per-article costs still to come for the report (report-record.ts `costs_pending`). */
  costs_pending?: string[];
  /** A report synced from WB: its WB id and WB's «Итого к оплате» (bankPaymentSum, kopecks) from WB's list. */
  wb_report_id?: string | null;
  wb_bank_payment?: number | null;
}

const ATTRIBUTES = [
  'id',
  'title',
  'status',
  'is_combined',
  'seller_id',
  'report_number',
  'period_from',
  'period_to',
  'created_at',
  'identity',
  'content_fingerprint',
  'content_days',
  'totals',
  'tax_profile',
  'allocation',
  'costs_pending',
  'wb_report_id',
  'wb_sums',
] as const;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

const bankPayment = (sums: unknown): number | null => {
  const v = sums && typeof sums === 'object' ? (sums as Record<string, unknown>).bankPaymentSum : undefined;
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : null;
};

/** Every report of the user with its totals (kopecks), any status. */
export async function listReportTotals(userId: string): Promise<ReportTotalsHead[]> {
  const out: ReportTotalsHead[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const r = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': reportKey(userId, 'x').pk, ':p': REPORT_PREFIX },
        ProjectionExpression: ATTRIBUTES.map((a) => `#${a}`).join(', '),
        ExpressionAttributeNames: Object.fromEntries(ATTRIBUTES.map((a) => [`#${a}`, a])),
        ExclusiveStartKey: start,
      }),
    );
    for (const it of r.Items ?? [])
      out.push({
        id: String(it.id),
        title: String(it.title ?? ''),
        status: String(it.status ?? 'ready'),
        is_combined: it.is_combined === true,
        seller_id: str(it.seller_id),
        report_number: str(it.report_number),
        period_from: str(it.period_from),
        period_to: str(it.period_to),
        created_at: String(it.created_at ?? ''),
        identity: str(it.identity),
        content_fingerprint: str(it.content_fingerprint),
        content_days:
          it.content_days && typeof it.content_days === 'object' ? (it.content_days as Record<string, string>) : null,
        totals: it.totals && typeof it.totals === 'object' ? (it.totals as Record<string, number | null>) : {},
        tax_profile:
          it.tax_profile && typeof it.tax_profile === 'object'
            ? (it.tax_profile as ReportTotalsHead['tax_profile'])
            : null,
        allocation_method: str((it.allocation as { method?: unknown } | undefined)?.method),
        costs_pending: Array.isArray(it.costs_pending) ? it.costs_pending.map(String) : [],
        wb_report_id: str(it.wb_report_id),
        wb_bank_payment: bankPayment(it.wb_sums),
      });
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}
