/**
 * Presigned uploads (docs/API.md, upload-url): which file name an upload id of a user stands for.
 * pk `USER#<userId>`, sk `UPLOAD#<uploadId>`, kept for a day (`ttl`). The S3 key embeds the user id
 * too, so an upload id of another user resolves to nothing (→ 404). Why a record at all: the Lambda
 * role may not list the bucket, so the key cannot be found from the id alone.
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';
import { conditionHeld } from './dynamo-errors';
import { newId, ttlIn } from './keys';
import type { RowCount } from '../engine/types';

export interface UploadRecord {
  upload_id: string;
  user_id: string;
  /** The file name as the client gave it (no directory part). */
  filename: string;
  /** The S3 key the presigned PUT writes: `uploads/<user_id>/<upload_id>/<filename>`. */
  key: string;
  size: number;
  created_at: string;
  /** What count-rows found in the uploaded bytes, tied to their ETag (see saveUploadCount). */
  counted?: UploadCount;
  /**
   * count-rows' full read of this upload (shared/reports/upload/read-handover.ts) ran past the request's
   * budget once: from then on it is only counted, so the page's repeat answers (see markCountOnly).
   */
  count_only?: boolean;
}

/**
 * The row count and identity of an upload's bytes, as count-rows computed them. The upload route
 * charges this count instead of reading the file again, but only while the object's ETag is still
 * `etag` (a new PUT to the same key changes it); the worker checks the rows it reads against the charge.
 */
export interface UploadCount extends RowCount {
  etag: string;
  /** The report identity (shared/reports/upload/report-identity.ts) of these bytes. */
  identity: string;
  /**
   * The content fingerprint of the bytes (engine/fingerprint.ts): a small file's, or a big one's that
   * count-rows read whole for its worker (`read_key`); absent when only counted.
   */
  content?: string;
  /** WB's ids of the file's first rows (engine/fingerprint.ts `row_ids`), beside `content`. */
  row_ids?: string[];
  /** Where the read of a big file was kept for its worker (shared/reports/upload/read-handover.ts). */
  read_key?: string;
}

const UPLOAD_TTL_SECONDS = 24 * 3600;

const uploadKey = (userId: string, uploadId: string) => ({ pk: `USER#${userId}`, sk: `UPLOAD#${uploadId}` });

export function isUploadId(id: unknown): id is string {
  return typeof id === 'string' && /^[0-9A-Za-z]{1,64}$/.test(id);
}

export const uploadObjectKey = (userId: string, uploadId: string, filename: string): string =>
  `uploads/${userId}/${uploadId}/${filename}`;

export async function createUpload(userId: string, filename: string, size: number): Promise<UploadRecord> {
  const id = newId();
  const rec: UploadRecord = {
    upload_id: id,
    user_id: userId,
    filename,
    key: uploadObjectKey(userId, id, filename),
    size,
    created_at: new Date().toISOString(),
  };
  await ddb().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...uploadKey(userId, id), type: 'upload', ...rec, ttl: ttlIn(UPLOAD_TTL_SECONDS) },
    }),
  );
  return rec;
}

/** The caller's upload by id; null for a malformed id, an unknown one or another user's. */
export async function getUpload(userId: string, uploadId: string): Promise<UploadRecord | null> {
  if (!isUploadId(uploadId)) return null;
  const r = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: uploadKey(userId, uploadId), ConsistentRead: true }),
  );
  if (!r.Item) return null;
  // DynamoDB's TTL sweep runs late; an expired upload is gone for the API already.
  if (typeof r.Item.ttl === 'number' && r.Item.ttl * 1000 < Date.now()) return null;
  const { pk: _p, sk: _s, type: _t, ttl: _ttl, ...rest } = r.Item;
  return rest as UploadRecord;
}

/** Remembers count-rows' answer for these bytes of the upload (no-op when the upload is gone). */
export async function saveUploadCount(userId: string, uploadId: string, count: UploadCount): Promise<void> {
  await conditionHeld(
    ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: uploadKey(userId, uploadId),
        UpdateExpression: 'SET counted = :c',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':c': count },
      }),
    ),
  );
}

/** count-rows only counts this upload from now on (its full read was too slow; no-op when the upload is gone). */
export async function markCountOnly(userId: string, uploadId: string): Promise<void> {
  await conditionHeld(
    ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: uploadKey(userId, uploadId),
        UpdateExpression: 'SET count_only = :t',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':t': true },
      }),
    ),
  );
}
