/**
 * The S3 objects of reports: presigned uploads (`uploads/<user>/<upload>/<name>`) and stored sources
 * (`sources/<user>/<report>/<name>`). Keys always embed the owner's id; callers build them from the
 * caller's id only. Each function's role grants only the object actions it uses under those prefixes
 * (serverless.yml) and none lists the bucket, so a missing object answers 403 on AWS and 404 locally:
 * both read as "missing" here.
 */
import { PassThrough, type Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { bucketName, s3, s3Public } from './client';
import { contentDisposition } from './content-disposition';
import { SourceReadError, type RangeSource } from '../engine/read/range-source';

export const sourceObjectKey = (userId: string, reportId: string, filename: string): string =>
  `sources/${userId}/${reportId}/${filename}`;

function isMissing(e: unknown): boolean {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  const status = err.$metadata?.httpStatusCode;
  return (
    err.name === 'NoSuchKey' ||
    err.name === 'NotFound' ||
    err.name === 'AccessDenied' ||
    status === 404 ||
    status === 403
  );
}

/** A presigned PUT; the declared size is signed, so storage refuses a bigger (or smaller) body. */
export async function presignPut(key: string, size: number, expiresIn: number): Promise<string> {
  return getSignedUrl(s3Public(), new PutObjectCommand({ Bucket: bucketName(), Key: key, ContentLength: size }), {
    expiresIn,
    signableHeaders: new Set(['content-length']),
  });
}

/** Size and ETag of an object (the ETag changes whenever its bytes do), or null when it is not there. */
export async function objectHead(key: string): Promise<{ size: number; etag: string | null } | null> {
  try {
    const r = await s3().send(new HeadObjectCommand({ Bucket: bucketName(), Key: key }));
    return { size: Number(r.ContentLength ?? 0), etag: r.ETag ?? null };
  } catch (e) {
    if (isMissing(e)) return null;
    throw e;
  }
}

/** Size of an object, or null when it is not there. */
export async function objectSize(key: string): Promise<number | null> {
  return (await objectHead(key))?.size ?? null;
}

export async function putObject(key: string, body: Buffer): Promise<void> {
  await s3().send(new PutObjectCommand({ Bucket: bucketName(), Key: key, Body: body, ContentLength: body.length }));
}

/**
 * Server-side copy (no bytes through the Lambda). With `ifMatch`, S3 copies only while the source still
 * has that ETag (the bytes that were counted), else refuses with 412.
 */
export async function copyObject(from: string, to: string, ifMatch?: string | null): Promise<void> {
  await s3().send(
    new CopyObjectCommand({
      Bucket: bucketName(),
      Key: to,
      CopySource: `${bucketName()}/${encodeURIComponent(from).replace(/%2F/g, '/')}`,
      ...(ifMatch ? { CopySourceIfMatch: ifMatch } : {}),
    }),
  );
}

export async function deleteObject(key: string): Promise<void> {
  await s3().send(new DeleteObjectCommand({ Bucket: bucketName(), Key: key }));
}

/** A presigned GET that makes the browser save the object as `filename` with `contentType`. */
export async function presignGet(
  key: string,
  expiresIn: number,
  download: { filename: string; contentType: string },
): Promise<string> {
  return getSignedUrl(
    s3Public(),
    new GetObjectCommand({
      Bucket: bucketName(),
      Key: key,
      ResponseContentDisposition: contentDisposition(download.filename),
      ResponseContentType: download.contentType,
    }),
    { expiresIn },
  );
}

/**
 * The whole object in memory, or null when it is not there (callers cap the size first). With `ifMatch`,
 * only while the object still has that ETag (S3 refuses with 412 otherwise).
 */
export async function readObject(key: string, ifMatch?: string | null): Promise<Buffer | null> {
  try {
    const r = await s3().send(
      new GetObjectCommand({ Bucket: bucketName(), Key: key, ...(ifMatch ? { IfMatch: ifMatch } : {}) }),
    );
    return Buffer.from(await (r.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
  } catch (e) {
    if (isMissing(e)) return null;
    throw e;
  }
}

/**
 * An object for the report engine to read by byte ranges where it lies (no temporary copy: the
 * download overlaps the reading). Every range is a GET conditional on the ETag seen first, so bytes of
 * two versions are never mixed; a failure of the store is a SourceReadError (retried, never taken for
 * a corrupt file). Null when the object is missing.
 */
export async function objectRanges(
  key: string,
  known?: { size: number; etag: string | null },
): Promise<(RangeSource & { etag: string | null }) | null> {
  const head = known ?? (await objectHead(key));
  if (!head) return null;
  const { size, etag } = head;
  return {
    size,
    etag,
    readRange(start: number, end: number): Readable {
      const out = new PassThrough({ highWaterMark: 1024 * 1024 });
      if (end <= start) {
        out.end();
        return out;
      }
      s3()
        .send(
          new GetObjectCommand({
            Bucket: bucketName(),
            Key: key,
            Range: `bytes=${start}-${end - 1}`,
            ...(etag ? { IfMatch: etag } : {}),
          }),
        )
        .then((r) => {
          const body = r.Body as Readable;
          if (out.destroyed) {
            // The reader stopped before the bytes came (a refused file): no download to keep open.
            body.destroy();
            return;
          }
          body.on('error', (e) => out.destroy(new SourceReadError('reading the stored file failed', { cause: e })));
          body.pipe(out);
          // A consumer that stops early (destroy) must not leave the download running.
          out.on('close', () => body.destroy());
        })
        .catch((e: unknown) => out.destroy(new SourceReadError('reading the stored file failed', { cause: e })));
      return out;
    },
  };
}
