/**
 * Report identity records (keys.ts: pk `USER#<userId>`, sk `RIDENT#<identity>#<reportId>`): one per
 * uploaded report, written in the upload's charge transaction together with the report record and
 * deleted with the report (or with an undone upload). Finding whether the user already has a report
 * of an identity is one Query of the user's own partition, so it cannot see anyone else's.
 */
import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, putNew, tableName, type DocTransactItem } from './client';
import { identityPrefix, reportIdentityKey } from './keys';

/** The Put of a report's identity record, for the upload's charge transaction. */
export function identityPutTransactItem(
  userId: string,
  identity: string,
  reportId: string,
  createdAt: string,
): DocTransactItem {
  return putNew({
    ...reportIdentityKey(userId, identity, reportId),
    type: 'report_identity',
    identity,
    report_id: reportId,
    created_at: createdAt,
  });
}

/** Writes a report's identity record outside the charge (the content fingerprint, known once read). */
export async function putIdentity(
  userId: string,
  identity: string,
  reportId: string,
  createdAt: string,
): Promise<void> {
  await ddb().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...reportIdentityKey(userId, identity, reportId),
        type: 'report_identity',
        identity,
        report_id: reportId,
        created_at: createdAt,
      },
    }),
  );
}

/**
 * Ids of the user's reports with this identity, oldest first (at most `limit`). A record may outlive
 * its report for a moment (deleted after it): callers read the report before trusting an id.
 */
export async function findReportsByIdentity(userId: string, identity: string, limit = 5): Promise<string[]> {
  const key = reportIdentityKey(userId, identity, '');
  const r = await ddb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': key.pk, ':prefix': identityPrefix(identity) },
      ProjectionExpression: 'report_id',
      ConsistentRead: true,
      Limit: limit,
    }),
  );
  return (r.Items ?? []).map((i) => String(i.report_id));
}

export async function deleteIdentity(userId: string, identity: string, reportId: string): Promise<void> {
  await ddb().send(new DeleteCommand({ TableName: tableName(), Key: reportIdentityKey(userId, identity, reportId) }));
}
