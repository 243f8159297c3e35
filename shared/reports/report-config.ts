/**
 * The report use cases' settings (ports.ts ReportConfig) as the compositions give them: read from the
 * config (shared/config.ts) at each call, so a process's settings are the config of the moment. The
 * one place of the report use cases' wiring that reads the config.
 */
import { getConfig } from '../config';
import type { ReportConfig } from './ports';

export function reportConfig(): ReportConfig {
  const c = getConfig();
  return {
    maxUploadBytes: c.MAX_UPLOAD_BYTES,
    uploadWaitMs: c.UPLOAD_WAIT_MS,
    uploadWaitRows: c.UPLOAD_WAIT_ROWS,
    workerLeaseMs: c.WORKER_LEASE_MS,
    workerMaxAttempts: c.WORKER_MAX_ATTEMPTS,
  };
}
