/**
 * Records and settings for the fast unit tier of the use cases (shared/<area>/<use case>.test.ts): the
 * use case under test is real, its stores, files, mail and worker invoker are replaced with vi.mock, so
 * these tests need no emulator and run in milliseconds. The integration suite (test/integration) runs
 * the same use cases against DynamoDB Local and s3rver.
 */
import { expect } from 'vitest';
import { AppError } from '../../shared/errors';
import type { ReportRecord } from '../../shared/store/report-record';
import type { UserRecord } from '../../shared/store/users.repo';

/** The settings getConfig needs (config.ts), plus `extra`; parsed again on the next getConfig(). */
export function setUnitEnv(extra: Record<string, string> = {}): void {
  Object.assign(process.env, {
    STAGE: 'unit',
    JWT_SECRET: 'unit-test-secret-unit-test-secret',
    TABLE_NAME: 't',
    BUCKET_NAME: 'bucket',
    MAIL_FROM: 'noreply@example.com',
    APP_URL: 'http://localhost:5173',
    UPLOAD_WAIT_MS: '0',
    WORKER_MAX_ATTEMPTS: '3',
    ...extra,
  });
}

export function unitUser(over: Partial<UserRecord> = {}): UserRecord {
  return {
    id: 'u1',
    email: 'seller@example.com',
    role: 'seller',
    confirmed: true,
    password_hash: 'hash-of-secret',
    limits: 1_000,
    initial_limits: 1_000,
    tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
    tax_periods: [{ valid_from: null, tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 }],
    allocation: 'realization',
    created_at: '2024-01-01T00:00:00Z',
    ...over,
  };
}

export function unitReport(over: Partial<ReportRecord> = {}): ReportRecord {
  return {
    id: 'r1',
    user_id: 'u1',
    title: 'Отчёт',
    report_number: null,
    seller_id: null,
    period_from: '2024-01-01',
    period_to: '2024-01-07',
    rows: 10,
    format: 'xlsx',
    is_combined: false,
    source_path: 'sources/u1/r1/report.xlsx',
    source_name: 'report.xlsx',
    source_size: 100,
    created_at: '2024-01-08T00:00:00Z',
    tax_profile: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
    totals: {} as ReportRecord['totals'],
    commission_by_category: [],
    warnings: [],
    item_count: 0,
    status: 'ready',
    version: 1,
    items_gen: 1,
    ...over,
  };
}

/** The AppError a use case refused with (the test fails when it resolved or threw something else). */
export async function refusal(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}
