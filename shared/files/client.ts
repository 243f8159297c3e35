import { S3Client } from '@aws-sdk/client-s3';
import { getConfig } from '../config';

let client: S3Client | undefined;
let publicClient: S3Client | undefined;

function make(endpoint: string | undefined): S3Client {
  const c = getConfig();
  return new S3Client({
    region: c.AWS_REGION,
    endpoint,
    forcePathStyle: endpoint !== undefined,
    // s3rver stores streamed uploads corrupted when the SDK adds its default checksums (docs/ARCHITECTURE.md).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Bounded: a store that stops answering fails the call (the SDK, then the worker's attempt, retries)
    // instead of hanging until the function's timeout. socketTimeout (S3_REQUEST_TIMEOUT_MS) is the
    // socket's idle time, so a long streamed range read is not cut while bytes flow; requestTimeout
    // bounds the wait for the answer's headers and, with throwOnRequestTimeout, fails the call (without
    // it the SDK only logs a warning). objects.test.ts pins it with a server that never answers.
    // The standard retry strategy: exponential backoff with full jitter between attempts, and a retry
    // quota that stops retrying when most calls fail (the SDK's default, named here as the rule).
    retryMode: 'standard',
    maxAttempts: 4,
    requestHandler: {
      connectionTimeout: 3_000,
      socketTimeout: c.S3_REQUEST_TIMEOUT_MS,
      requestTimeout: c.S3_REQUEST_TIMEOUT_MS,
      throwOnRequestTimeout: true,
    },
  });
}

/** One S3 client per process (s3rver's endpoint locally). */
export function s3(): S3Client {
  client ??= make(getConfig().S3_ENDPOINT);
  return client;
}

/** The client that signs URLs a browser will call: S3_PUBLIC_ENDPOINT when set, else the same endpoint. */
export function s3Public(): S3Client {
  const c = getConfig();
  if (!c.S3_PUBLIC_ENDPOINT || c.S3_PUBLIC_ENDPOINT === c.S3_ENDPOINT) return s3();
  publicClient ??= make(c.S3_PUBLIC_ENDPOINT);
  return publicClient;
}

export function bucketName(): string {
  return getConfig().BUCKET_NAME;
}
