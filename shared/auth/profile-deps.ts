/**
 * The real stores of the account routes of shared/auth/profile.ts (settings, limit history, top-up),
 * wired once per cold start. Unit tests pass fakes of the same ports.
 */
import { listLimitHistory, sumLimitHistory, topUp } from '../store/limits.repo';
import { getReportTitles } from '../store/reports.repo';
import { getUserByEmail, getUserById, updateUserSettings } from '../store/users.repo';
import type { LimitHistoryDeps, SettingsPort, TopUpDeps } from './profile';

export const settingsDeps: { users: SettingsPort } = { users: { updateUserSettings } };
export const limitHistoryDeps: LimitHistoryDeps = {
  limits: { listLimitHistory, sumLimitHistory },
  reports: { getReportTitles },
};
export const topUpDeps: TopUpDeps = { users: { getUserByEmail, getUserById }, limits: { topUp } };
