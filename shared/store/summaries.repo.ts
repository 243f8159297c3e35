/**
 * Report summaries for analytics (keys.ts: pk `USER#<userId>`, sk `SUMMARY#<reportId>#<chunk>`). A
 * summary is derived data: written after a report's items and totals are final (upload, rebuild,
 * manual value), tagged with the report's `version`, and never newer data overwritten by older (a
 * conditional Put per chunk). Analytics reads the summaries of a user by a few parallel Queries
 * (listSummaries); a summary whose version differs from its report's, or with a chunk missing, is
 * rebuilt from the items on read.
 *
 * Chunk 0 (the head) carries the report-level totals, the content fingerprint and the chunk count; every
 * chunk carries a gzip'd column-wise slice of the articles (`data`). Chunks beyond the head's count,
 * left by an earlier, bigger summary, are ignored and deleted with the report.
 */
import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  decodeArticles,
  encodeChunks,
  type ArticleFigures,
  type SummaryContent,
  type WeekFigures,
} from '../engine/analytics/summary';
import { ddb, queryAll, tableName } from './client';
import { isConditionFailed } from './dynamo-errors';
import { listAllProducts } from './products.repo';
import { parseStored, storedReport } from './records';
import type { CostPricePeriod } from '../engine/periods';
import { REPORT_PREFIX, SUMMARY_PREFIX, reportKey, summaryKey } from './keys';

export interface StoredSummary {
  report_id: string;
  version: number;
  totals: WeekFigures;
  content_hash: string;
  /** False when a chunk is missing or from another version (a write was interrupted). */
  complete: boolean;
  /** Decodes the articles (only for the reports a request needs). */
  articles(): ArticleFigures[];
}

/**
 * Writes the summary of `reportId` at `version`. Each chunk is a Put on the condition that the stored
 * one is not newer; the head goes last. Returns false when a newer summary is already there.
 */
export async function putSummary(
  userId: string,
  reportId: string,
  version: number,
  content: SummaryContent,
): Promise<boolean> {
  const chunks = encodeChunks(content.articles);
  const order = [...chunks.keys()].slice(1).concat(0);
  for (const i of order) {
    const item: Record<string, unknown> = {
      ...summaryKey(userId, reportId, i),
      type: 'report_summary',
      report_id: reportId,
      version,
      chunk: i,
      data: chunks[i],
    };
    if (i === 0)
      Object.assign(item, { chunks: chunks.length, totals: content.totals, content_hash: content.content_hash });
    try {
      await ddb().send(
        new PutCommand({
          TableName: tableName(),
          Item: item,
          ConditionExpression: 'attribute_not_exists(pk) OR #version <= :v',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':v': version },
        }),
      );
    } catch (e) {
      if (isConditionFailed(e)) return false;
      throw e;
    }
  }
  return true;
}

/** Queries in flight when a user's summaries are read by ranges of report ids. */
const SUMMARY_QUERIES = 6;

/**
 * Every summary of the user, by report id. Without `reportIds`: one Query of the user's partition.
 * With the user's report ids (from listReportHeads): the ids, sorted, are cut into a few contiguous
 * ranges read by Queries in parallel — a year of 5,000-article summaries is ~3 MB, several 1 MB pages
 * that one Query would fetch one after the other.
 */
export async function listSummaries(
  userId: string,
  reportIds?: readonly string[],
): Promise<Map<string, StoredSummary>> {
  const pk = summaryKey(userId, 'x', 0).pk;
  let rows: Array<Record<string, unknown>>;
  if (reportIds === undefined) {
    rows = await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': SUMMARY_PREFIX },
    });
  } else {
    const ids = [...new Set(reportIds)].sort();
    const per = Math.max(1, Math.ceil(ids.length / SUMMARY_QUERIES));
    const ranges: Array<[string, string]> = [];
    for (let i = 0; i < ids.length; i += per) ranges.push([ids[i]!, ids[Math.min(ids.length, i + per) - 1]!]);
    const parts = await Promise.all(
      ranges.map(([first, last]) =>
        queryAll({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
          // Chunk numbers are digits, so '~' (after every digit) closes the last report's chunks.
          ExpressionAttributeValues: {
            ':pk': pk,
            ':lo': `${SUMMARY_PREFIX}${first}#`,
            ':hi': `${SUMMARY_PREFIX}${last}#~`,
          },
        }),
      ),
    );
    rows = parts.flat();
  }
  const byReport = new Map<string, Array<Record<string, unknown>>>();
  for (const row of rows) {
    const id = String(row.report_id);
    byReport.set(id, [...(byReport.get(id) ?? []), row]);
  }
  const out = new Map<string, StoredSummary>();
  for (const [id, list] of byReport) {
    const head = list.find((r) => Number(r.chunk) === 0);
    if (!head) continue;
    const version = Number(head.version);
    const count = Number(head.chunks);
    const parts: Uint8Array[] = [];
    for (let i = 0; i < count; i++) {
      const c = list.find((r) => Number(r.chunk) === i && Number(r.version) === version);
      if (c) parts.push(c.data as Uint8Array);
    }
    out.set(id, {
      report_id: id,
      version,
      totals: head.totals as WeekFigures,
      content_hash: String(head.content_hash ?? ''),
      complete: parts.length === count,
      articles: () => parts.flatMap((p) => decodeArticles(p)),
    });
  }
  return out;
}

/** The dated cost prices of every product in the user's catalog, by article (one Query per catalog shard). */
export async function listCostPrices(userId: string): Promise<Map<string, CostPricePeriod[]>> {
  return new Map((await listAllProducts(userId)).map((p) => [p.article, p.cost_prices]));
}

/** Deletes every chunk of a report's summary (with the report). */
export async function deleteSummary(userId: string, reportId: string): Promise<void> {
  const first = summaryKey(userId, reportId, 0);
  const keys = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': first.pk, ':prefix': first.sk.slice(0, first.sk.lastIndexOf('#') + 1) },
    ProjectionExpression: 'pk, sk',
    ConsistentRead: true,
  });
  for (let i = 0; i < keys.length; i += 25) {
    let pending = keys.slice(i, i + 25).map((k) => ({ DeleteRequest: { Key: { pk: k.pk, sk: k.sk } } }));
    for (let attempt = 0; pending.length > 0 && attempt < 8; attempt++) {
      const r = await ddb().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (r.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
    }
  }
}

/** What analytics reads of a report record (a projection: never the totals or category lists). */
export interface ReportHead {
  id: string;
  title: string;
  status: string;
  is_combined: boolean;
  seller_id: string | null;
  report_number: string | null;
  period_from: string | null;
  period_to: string | null;
  created_at: string;
  version: number;
  items_gen: number;
  identity?: unknown;
  content_fingerprint?: string | null;
  content_days?: Record<string, string> | null;
  stale?: unknown;
  tax_profile?: unknown;
  allocation?: { method?: string } | null;
}

/** The head's part of the stored report's schema (records.ts). */
const storedReportHead = storedReport.pick({
  id: true,
  title: true,
  status: true,
  is_combined: true,
  seller_id: true,
  report_number: true,
  period_from: true,
  period_to: true,
  created_at: true,
  version: true,
  items_gen: true,
  identity: true,
  tax_profile: true,
  allocation: true,
});

const HEAD_ATTRIBUTES = [
  'pk',
  'sk',
  'v',
  'id',
  'title',
  'status',
  'is_combined',
  'seller_id',
  'report_number',
  'period_from',
  'period_to',
  'created_at',
  'version',
  'items_gen',
  'identity',
  'content_fingerprint',
  'content_days',
  'stale',
  'tax_profile',
  'allocation',
] as const;

/** Every report record of the user, any status, projected to what analytics needs. */
export async function listReportHeads(userId: string): Promise<ReportHead[]> {
  const rows = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': reportKey(userId, 'x').pk, ':prefix': REPORT_PREFIX },
    ProjectionExpression: HEAD_ATTRIBUTES.map((a) => `#${a}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(HEAD_ATTRIBUTES.map((a) => [`#${a}`, a])),
    ConsistentRead: true,
  });
  return rows.map((r) => {
    const h = parseStored('report', storedReportHead, r);
    return {
      ...h,
      content_fingerprint: typeof r.content_fingerprint === 'string' ? r.content_fingerprint : null,
      content_days:
        r.content_days && typeof r.content_days === 'object' ? (r.content_days as Record<string, string>) : null,
      stale: r.stale,
      allocation: h.allocation ?? null,
    };
  });
}
