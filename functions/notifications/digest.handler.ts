import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { getConfig } from '../../shared/config';
import { invocationKeys, log, withRequestLog } from '../../shared/log';
import { countMetric, publishMetrics } from '../../shared/metrics';
import { runDigest, type DigestRunResult } from '../../shared/notifications/digest';
import { digestDeps } from '../../shared/notifications/digest-deps';
import { loadSecrets } from '../../shared/secrets';

// Cold start: a missing setting fails the environment's init, naming itself.
getConfig();

/**
 * The weekly digest (no HTTP route): Monday 07:00 UTC by an EventBridge schedule
 * (shared/notifications/digest.ts). Records one digest event per account with something new; the
 * delivery tick mails them. Run again, it records nothing new (the key names the week).
 */
export async function handler(_event: unknown, context?: Partial<Context>): Promise<DigestRunResult> {
  const keys = invocationKeys(context?.awsRequestId || randomUUID(), context);
  return withRequestLog(keys, async () => {
    try {
      await loadSecrets(['jwt']);
      const r = await runDigest(digestDeps);
      if (r.recorded > 0) countMetric('DigestsRecorded', r.recorded);
      log('info', 'digest run done', { ...r });
      return r;
    } finally {
      publishMetrics();
    }
  });
}
