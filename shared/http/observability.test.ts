import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { signToken } from '../auth/tokens';
import { log, logger } from '../log';
import { countMetric } from '../metrics';
import type { UserRecord } from '../store/users.repo';
import { http } from './authed';
import { json } from './responses';
import { apiEvent } from '../../test/support/test-event';

// The store is the one collaborator mocked here: these tests are about what the HTTP stack adds to the
// log lines and metrics of the code it runs.
vi.mock('../store/users.repo', () => ({
  getUserById: async (id: string): Promise<UserRecord | null> =>
    id === 'seller7'
      ? {
          id,
          email: 'seller7@example.com',
          role: 'seller',
          confirmed: true,
          limits: 10,
          initial_limits: 10,
          tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
          tax_periods: [{ valid_from: null, tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 }],
          allocation: 'realization',
          created_at: '2024-01-01T00:00:00Z',
        }
      : null,
}));

Object.assign(process.env, {
  JWT_SECRET: 'unit-test-secret-unit-test-secret',
  TABLE_NAME: 't',
  BUCKET_NAME: 'bucket',
  MAIL_FROM: 'noreply@example.com',
  APP_URL: 'http://localhost:5173',
  METRICS_NAMESPACE: 'UnitTestNamespace',
  // The suites run with metrics off (vitest.config.ts); this test reads them.
  POWERTOOLS_METRICS_DISABLED: 'false',
});

/** The JSON lines Powertools writes to stdout while `fn` runs. */
async function stdoutLines(fn: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const lines: Record<string, unknown>[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    for (const line of String(chunk).split('\n')) {
      if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
    }
    return true;
  });
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return lines;
}

/** Stands in for a use case: it knows nothing of requests, it just logs. */
async function someUseCase(reportId: string): Promise<void> {
  await Promise.resolve();
  log('info', 'use case step', { report_id: reportId });
}

beforeEach(() => logger.setLogLevel('INFO'));
afterEach(() => logger.setLogLevel('ERROR'));

describe('log lines inside a request', () => {
  it('a use case line carries the request id, cold start and, after auth, the user id', async () => {
    const route = http({ auth: 'user' }, async () => {
      await someUseCase('R1');
      return json(200, { ok: true });
    });
    const event = apiEvent({ token: signToken({ user_id: 'seller7' }, 'access') });
    const lines = await stdoutLines(() => route(event, { functionName: 'svc-local-reportsGet' }));
    const step = lines.find((l) => l.message === 'use case step');
    expect(step).toMatchObject({
      level: 'INFO',
      report_id: 'R1',
      request_id: event.requestContext.requestId,
      user_id: 'seller7',
      function_name: 'svc-local-reportsGet',
    });
    expect(typeof step?.cold_start).toBe('boolean');
    const access = lines.find((l) => l.message === 'request');
    expect(access).toMatchObject({
      method: 'GET',
      path: '/api/test',
      status: 200,
      request_id: event.requestContext.requestId,
      user_id: 'seller7',
    });
    expect(typeof access?.duration_ms).toBe('number');
  });

  it('two concurrent requests keep their own ids; a line outside a request has none', async () => {
    const route = http({ auth: 'none' }, async (req) => {
      await new Promise((r) => setTimeout(r, 5));
      await someUseCase(req.requestId);
      return json(200, {});
    });
    const a = apiEvent();
    const b = apiEvent();
    const lines = await stdoutLines(async () => {
      await Promise.all([route(a), route(b)]);
      log('info', 'outside');
    });
    for (const e of [a, b]) {
      const step = lines.find((l) => l.message === 'use case step' && l.report_id === e.requestContext.requestId);
      expect(step?.request_id).toBe(e.requestContext.requestId);
      expect(step?.user_id).toBeUndefined();
    }
    expect(lines.find((l) => l.message === 'outside')?.request_id).toBeUndefined();
  });
});

describe('metrics', () => {
  it('an upload counted during a request is flushed as one EMF line at its end, in the configured namespace', async () => {
    const route = http({ auth: 'none' }, async () => {
      countMetric('Uploads');
      countMetric('RowsProcessed', 1234);
      return json(201, {});
    });
    const lines = await stdoutLines(() => route(apiEvent({ method: 'POST' })));
    const emf = lines.filter((l) => '_aws' in l);
    expect(emf).toHaveLength(1);
    expect(emf[0]).toMatchObject({ Uploads: 1, RowsProcessed: 1234 });
    const directive = (emf[0]!._aws as { CloudWatchMetrics: { Namespace: string; Metrics: { Name: string }[] }[] })
      .CloudWatchMetrics[0]!;
    expect(directive.Namespace).toBe('UnitTestNamespace');
    expect(directive.Metrics.map((m) => m.Name).sort()).toEqual(['RowsProcessed', 'Uploads']);

    // Flushed: the next request without metrics writes no EMF line.
    const next = await stdoutLines(() => http({ auth: 'none' }, async () => json(200, {}))(apiEvent()));
    expect(next.filter((l) => '_aws' in l)).toHaveLength(0);
  });
});

describe('expected outages', () => {
  it('WB unavailable (503 wb_unavailable) is a warning with WB’s status, no “unhandled error” and no stack', async () => {
    const { appError } = await import('../errors');
    const route = http({ auth: 'none' }, async () => {
      throw appError('wb_unavailable', 'WB did not answer the check (server_error)', { wb_status: 502 });
    });
    const lines: Record<string, unknown>[] = [];
    const capture = (chunk: string | Uint8Array) => {
      for (const line of String(chunk).split('\n')) {
        if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      return true;
    };
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    let status: number | undefined;
    try {
      status = (await route(apiEvent({}), { functionName: 'svc-local-wbConnections' })).statusCode;
    } finally {
      err.mockRestore();
      out.mockRestore();
    }
    expect(status).toBe(503);
    const warn = lines.find((l) => l.message === 'WB unavailable');
    expect(warn).toMatchObject({ level: 'WARN', status: 503, details: { wb_status: 502 } });
    expect(lines.some((l) => l.message === 'unhandled error' || l.level === 'ERROR')).toBe(false);
    expect(JSON.stringify(lines)).not.toContain('stack');
  });
});
