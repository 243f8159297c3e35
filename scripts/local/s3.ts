import { mkdirSync } from 'node:fs';
import path from 'node:path';
import S3rver from 's3rver';
import type { LocalService } from './dynamodb';

/**
 * s3rver in this process, files under `directory`. Clients must sign with the credentials
 * S3RVER/S3RVER and, with the AWS SDK v3, use path-style URLs and checksums WHEN_REQUIRED
 * (shared/files/client.ts does both).
 */
export async function startS3(opts: { port: number; directory: string; silent?: boolean }): Promise<LocalService> {
  const directory = path.resolve(opts.directory);
  mkdirSync(directory, { recursive: true });
  const server = new S3rver({ address: '127.0.0.1', port: opts.port, directory, silent: opts.silent ?? true });
  await server.run();
  return {
    endpoint: `http://127.0.0.1:${opts.port}`,
    stop: async () => {
      server.httpServer?.closeAllConnections();
      await server.close();
    },
  };
}
