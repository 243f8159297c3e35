import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { ensureBucket } from '../../shared/files/bucket';
import { ensureTable } from '../../shared/store/table';
import { startDynamoDb } from './dynamodb';
import { freePort } from './ports';
import { startS3 } from './s3';
import { startSes } from './ses';
import { step, type StepListener } from './steps';

export interface EmulatorPorts {
  dynamodb: number;
  s3: number;
  ses: number;
}

export interface EmulatorOptions {
  /** Keep DynamoDB and S3 data under this folder (dynamodb/, s3/); default: DynamoDB in memory, S3 in a temp folder removed on stop. */
  dataDir?: string;
  /** Fixed ports; any not given is a free one. */
  ports?: Partial<EmulatorPorts>;
  /** Settings to use instead of the defaults (JWT_SECRET, APP_URL, TABLE_NAME, ...). */
  env?: Record<string, string>;
  /** Web origins the bucket's CORS rule admits (default: APP_URL's origin). */
  corsOrigins?: string[];
  log?: (line: string) => void;
  /** Told when each emulator starts and is ready (`npm start` prints it with times). */
  progress?: StepListener;
}

export interface Emulators {
  /** The environment every handler (shared/config.ts) and the API process need. */
  env: Record<string, string>;
  ports: EmulatorPorts;
  stop(): Promise<void>;
}

/**
 * The environment handlers need to use emulators on these ports (known before they run, so the
 * API server can start alongside them). `overrides` replace the defaults, never the endpoints.
 */
export function emulatorEnv(ports: EmulatorPorts, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    STAGE: 'local',
    AWS_REGION: 'eu-central-1',
    // s3rver accepts only these; DynamoDB Local (sharedDb) and the SES emulator take anything.
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    // Node 20 here, Lambda runs 22: the SDK's "will require node >=22" notice is noise locally.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    TABLE_NAME: 'report-profitability-local',
    BUCKET_NAME: 'report-profitability-local',
    JWT_SECRET: randomBytes(32).toString('base64url'),
    MAIL_FROM: 'no-reply@report-profitability.local',
    APP_URL: 'http://localhost:5173',
    INITIAL_LIMITS: '10000',
    // The local key that seals sellers' WB tokens (on AWS: the KMS key; shared/marketplaces/wb/sync/step-deps.ts).
    WB_TOKEN_KEY: randomBytes(32).toString('base64'),
    ...overrides,
    DYNAMODB_ENDPOINT: `http://127.0.0.1:${ports.dynamodb}`,
    S3_ENDPOINT: `http://127.0.0.1:${ports.s3}`,
    S3_PUBLIC_ENDPOINT: `http://127.0.0.1:${ports.s3}`,
    SES_ENDPOINT: `http://127.0.0.1:${ports.ses}`,
  };
}

/**
 * DynamoDB Local, s3rver and the SES emulator on free (or given) ports, with the table and the
 * bucket created. stop() ends all three, the JVM included.
 */
export async function startEmulators(opts: EmulatorOptions = {}): Promise<Emulators> {
  const ports: EmulatorPorts = {
    dynamodb: opts.ports?.dynamodb ?? (await freePort()),
    s3: opts.ports?.s3 ?? (await freePort()),
    ses: opts.ports?.ses ?? (await freePort()),
  };
  const tempS3 = opts.dataDir ? undefined : mkdtempSync(path.join(os.tmpdir(), 'rp-s3-'));
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    stops.length = 0;
    if (tempS3) rmSync(tempS3, { recursive: true, force: true });
  };
  try {
    await Promise.all([
      step(opts.progress, `DynamoDB Local (Java) on :${ports.dynamodb}`, () =>
        startDynamoDb({
          port: ports.dynamodb,
          dataDir: opts.dataDir ? path.join(opts.dataDir, 'dynamodb') : undefined,
          log: opts.log,
        }),
      ).then((s) => {
        stops.push(s.stop);
        return s;
      }),
      step(opts.progress, `s3rver on :${ports.s3}`, () =>
        startS3({ port: ports.s3, directory: tempS3 ?? path.join(opts.dataDir as string, 's3') }),
      ).then((s) => {
        stops.push(s.stop);
        return s;
      }),
      step(opts.progress, `SES emulator on :${ports.ses}`, () => startSes({ port: ports.ses })).then((s) => {
        stops.push(s.stop);
        return s;
      }),
    ]);
    const env = emulatorEnv(ports, opts.env);
    const credentials = { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! };
    const dynamoClient = new DynamoDBClient({ region: env.AWS_REGION, endpoint: env.DYNAMODB_ENDPOINT, credentials });
    const s3Client = new S3Client({
      region: env.AWS_REGION,
      endpoint: env.S3_ENDPOINT,
      forcePathStyle: true,
      credentials,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    try {
      const origins = opts.corsOrigins ?? [new URL(env.APP_URL!).origin];
      await step(opts.progress, 'DynamoDB table and S3 bucket', () =>
        Promise.all([ensureTable(dynamoClient, env.TABLE_NAME!), ensureBucket(s3Client, env.BUCKET_NAME!, origins)]),
      );
    } finally {
      dynamoClient.destroy();
      s3Client.destroy();
    }
    return { env, ports, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * Runs `work` with the emulators up (DynamoDB Local, s3rver, the SES emulator on free ports) and their
 * settings in process.env, then stops them whatever happened: the shell of the in-process benchmarks.
 */
export async function withEmulators<T>(work: () => Promise<T>): Promise<T> {
  const emulators = await startEmulators();
  try {
    Object.assign(process.env, emulators.env);
    return await work();
  } finally {
    await emulators.stop();
  }
}
