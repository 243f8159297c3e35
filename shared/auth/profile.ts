/**
 * The caller's own account: who they are, their report settings, their limit history, and the admin's
 * top-up of a user's limits. Stores come as ports (`deps`); shared/auth/profile-deps.ts wires the real
 * ones for the routes (functions/auth).
 */
import { taxProfileSchema } from '../contract/inputs';
import type { TaxPeriod } from '../contract/shapes';
import { notFound, validation } from '../errors';
import { assertTaxPeriods } from '../reports/worker/report-settings';
import type { HistoryPage, HistoryTotals, TopUpInput, TopUpResult } from '../store/limits.repo';
import { toPublicUser, type PublicUser, type UserRecord, type UserSettingsPatch } from '../store/users.repo';

/** GET /api/auth/me: the caller as the API shows a user. */
export function presentMe(user: UserRecord): { user: PublicUser } {
  return { user: toPublicUser(user) };
}

export interface SettingsPort {
  updateUserSettings(userId: string, patch: UserSettingsPatch): Promise<UserRecord>;
}

export interface SettingsPatch {
  tax?: Partial<UserRecord['tax']>;
  tax_periods?: TaxPeriod[];
  allocation?: UserSettingsPatch['allocation'];
}

/**
 * The caller's default tax profile and allocation method. `tax` (the plain profile): fields not sent keep
 * the value in force today; the merged profile is validated whole and applies from the beginning
 * (replacing any dated periods). `tax_periods`: the whole dated profile (a VAT rate not in force on its
 * period's first day → 422 `vat_rate_not_in_force`).
 */
export async function updateMe(
  deps: { users: SettingsPort },
  user: UserRecord,
  patch: SettingsPatch,
): Promise<{ user: PublicUser }> {
  let periods = patch.tax_periods;
  if (patch.tax) {
    const merged = taxProfileSchema.safeParse({ ...user.tax, ...patch.tax });
    if (!merged.success)
      throw validation(
        merged.error.issues.map((i) => ({ ...i, path: ['tax', ...i.path] })),
        'body',
      );
    periods = [{ valid_from: null, ...merged.data }];
  }
  if (periods) assertTaxPeriods(periods);
  const updated = await deps.users.updateUserSettings(user.id, { tax_periods: periods, allocation: patch.allocation });
  return presentMe(updated);
}

export interface LimitHistoryDeps {
  limits: {
    listLimitHistory(userId: string, cursor?: string | null): Promise<HistoryPage>;
    sumLimitHistory(userId: string): Promise<HistoryTotals>;
  };
  reports: { getReportTitles(userId: string, reportIds: readonly string[]): Promise<Map<string, string>> };
}

/**
 * The caller's limit history, newest first. Each record with a report_id also carries report_title (the
 * report's title now) and report_deleted (true when the report is gone), read in one batch for the page.
 * The first page (no cursor) also carries `totals` of the whole history.
 */
export async function limitHistory(deps: LimitHistoryDeps, userId: string, cursor: string | undefined) {
  const [page, totals] = await Promise.all([
    deps.limits.listLimitHistory(userId, cursor),
    cursor ? Promise.resolve(undefined) : deps.limits.sumLimitHistory(userId),
  ]);
  const ids = page.items.map((e) => e.report_id).filter((id): id is string => id !== null);
  const titles = ids.length > 0 ? await deps.reports.getReportTitles(userId, ids) : new Map<string, string>();
  return {
    ...page,
    ...(totals ? { totals } : {}),
    items: page.items.map((e) => ({
      ...e,
      report_title: e.report_id ? (titles.get(e.report_id) ?? null) : null,
      report_deleted: e.report_id ? !titles.has(e.report_id) : false,
    })),
  };
}

export interface TopUpDeps {
  users: {
    getUserByEmail(email: string): Promise<UserRecord | null>;
    getUserById(id: string): Promise<UserRecord | null>;
  };
  limits: { topUp(input: TopUpInput): Promise<TopUpResult> };
}

/** The admin's top-up of a user (by email or id; unknown → 404), once per idempotency key. */
export async function topUpUser(
  deps: TopUpDeps,
  input: { email?: string; user_id?: string; rows: number; idempotencyKey?: string },
): Promise<TopUpResult> {
  const user =
    input.email !== undefined
      ? await deps.users.getUserByEmail(input.email)
      : await deps.users.getUserById(input.user_id as string);
  if (!user) throw notFound('User not found');
  return deps.limits.topUp({ userId: user.id, rows: input.rows, idempotencyKey: input.idempotencyKey });
}
