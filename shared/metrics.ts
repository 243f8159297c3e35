/**
 * Business metrics through AWS Lambda Powertools Metrics: CloudWatch Embedded Metric Format, i.e. one
 * JSON line on stdout per invocation that CloudWatch turns into metrics (no API call, no IAM). Locally
 * the lines just go to the log. Metrics are stored while a request runs and flushed once at its end by
 * the HTTP stack (shared/http/handler.ts) and the worker's handler; the namespace is METRICS_NAMESPACE (config).
 *
 * Names (docs/OPERATIONS.md, Metrics): `Uploads` (Count, route), `RowsProcessed` (Count: report rows read
 * by the worker for an upload or rebuild), `UploadDuration` / `RebuildDuration` (Milliseconds).
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { getConfig } from './config';

let instance: Metrics | undefined;

function metrics(): Metrics {
  instance ??= new Metrics({
    namespace: getConfig().METRICS_NAMESPACE,
    serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'report-profitability',
  });
  return instance;
}

export function countMetric(name: string, value = 1): void {
  metrics().addMetric(name, MetricUnit.Count, value);
}

export function durationMetric(name: string, ms: number): void {
  metrics().addMetric(name, MetricUnit.Milliseconds, Math.max(0, Math.round(ms)));
}

/**
 * Writes the stored metrics as one EMF line and clears them (nothing is written when none were stored;
 * Powertools writes nothing with POWERTOOLS_METRICS_DISABLED=true, as the test suites run).
 */
export function publishMetrics(): void {
  if (!instance?.hasStoredMetrics()) return;
  instance.publishStoredMetrics();
}

/** Milliseconds per step of one piece of work, for its log line (`steps_ms`): where the time went. */
export class StepTimer {
  readonly steps: Record<string, number> = {};
  private last = performance.now();

  /** Ends the step running since the previous lap (or since the timer started) under `name`. */
  lap(name: string): void {
    const now = performance.now();
    this.steps[name] = (this.steps[name] ?? 0) + Math.round(now - this.last);
    this.last = now;
  }
}
