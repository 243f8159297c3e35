import { CreateBucketCommand, HeadBucketCommand, PutBucketCorsCommand, type S3Client } from '@aws-sdk/client-s3';

/**
 * The CORS rule that lets the web page PUT a file straight to a presigned URL and read it back.
 * serverless.base.yml declares the same rule on the AWS bucket.
 */
function bucketCors(corsOrigins: string[]) {
  return {
    CORSRules: [
      {
        AllowedOrigins: corsOrigins,
        AllowedMethods: ['PUT', 'GET', 'HEAD'],
        AllowedHeaders: ['*'],
        ExposeHeaders: ['ETag'],
        MaxAgeSeconds: 3000,
      },
    ],
  };
}

async function exists(client: S3Client, name: string): Promise<boolean> {
  try {
    await client.send(new HeadBucketCommand({ Bucket: name }));
    return true;
  } catch (e) {
    const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
    if (err.name === 'NotFound' || err.name === 'NoSuchBucket' || err.$metadata?.httpStatusCode === 404) return false;
    throw e;
  }
}

/** Creates the bucket when missing and (re)applies the CORS rule for the given web origins. */
export async function ensureBucket(client: S3Client, name: string, corsOrigins: string[]): Promise<void> {
  if (!(await exists(client, name))) {
    try {
      await client.send(new CreateBucketCommand({ Bucket: name }));
    } catch (e) {
      const n = (e as { name?: string }).name;
      if (n !== 'BucketAlreadyOwnedByYou' && n !== 'BucketAlreadyExists') throw e;
    }
  }
  await client.send(new PutBucketCorsCommand({ Bucket: name, CORSConfiguration: bucketCors(corsOrigins) }));
}
