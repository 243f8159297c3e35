import sesServer from 'aws-ses-v2-local';
import type { LocalService } from './dynamodb';

/**
 * The SES v2 emulator (aws-ses-v2-local) in this process. Sent mail is kept in memory (lost on
 * restart) and listed by `GET /store`; the emulator's store is one per process, so two emulators
 * started by one process share their mail.
 */
export async function startSes(opts: { port: number }): Promise<LocalService> {
  const server = await sesServer({ host: '127.0.0.1', port: opts.port });
  return {
    endpoint: `http://127.0.0.1:${opts.port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
