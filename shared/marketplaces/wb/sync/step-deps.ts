/**
 * The composition of the WB connection and sync use cases: the real stores, files, Finance API client,
 * token key and clock, as const objects the
 * handlers pass (docs/ARCHITECTURE.md, wiring). The report side of an import hands the
 * report to the worker through this process's invoker (shared/jobs/worker-invoke.ts); a re-derivation
 * starts a rebuild with the rebuild routes' composition (shared/reports/rebuild/rebuild-deps.ts).
 */
import { getConfig } from '../../../config';
import { systemClock } from '../../../deps';
import { putObject, readObject, sourceObjectKey } from '../../../files/objects';
import { log } from '../../../log';
import { wbTokenExpiryMail } from '../../../mail/messages';
import { lambdaWorkerInvoker } from '../../../jobs/worker-invoke';
import { rebuildDeps } from '../../../reports/rebuild/rebuild-deps';
import { findContentDuplicate } from '../../../reports/upload/duplicates';
import { fingerprintWbSource } from '../../../reports/worker/read-source';
import { importWbReport, type WbImportDeps } from '../../../reports/worker/wb-import';
import { findReportsByIdentity, identityPutTransactItem } from '../../../store/report-identities.repo';
import { chargeLimits } from '../../../store/limits.repo';
import { processingReportPut } from '../../../store/report-lifecycle.repo';
import { newReportId } from '../../../store/report-record';
import { getReportAnyStatus, settleCostsPending } from '../../../store/reports.repo';
import { getUserById } from '../../../store/users.repo';
import { recordEvent, recordEventOrThrow } from '../../../notifications/record';
import { syncProblemMessage } from '../../../notifications/messages';
import { payoutArrivalEvents, recordDeps } from '../../../notifications/record-deps';
import * as connections from '../../../store/wb-connections.repo';
import { DEFAULT_RATE_POLICY } from '../rate';
import { DEFAULT_SYNC_SETTINGS, type SyncSettings } from '../finance/sync-plan';
import type { StepDeps } from './step';
import type { CostStepDeps, ReportToCost } from './costs-step';
import { costSources, type WbCostSettings } from '../sources';
import { putCostBatch } from '../../../store/wb-costs.repo';
import { listReports } from '../../../store/reports.repo';
import { startRebuild } from '../../../reports/rebuild/rebuild';
import { AppError } from '../../../errors';
import { callIntervalMs, deletePages, finance, tokenKeyWrapper } from './connection-deps';
import { createBalanceClient } from '../balance/client';
import { putBalance } from '../../../store/wb-balance.repo';
import type { BalanceStepDeps } from '../balance/balance-step';
import { BALANCE_EVERY_MS } from '../balance/balance-plan';

/** WB's balance on the Finance host (the same WB_FINANCE_API_URL), read hourly with the report calls' budget. */
export const balanceStepDeps: BalanceStepDeps = {
  client: (token) =>
    createBalanceClient({
      baseUrl: getConfig().WB_FINANCE_API_URL,
      token,
      requestTimeoutMs: Math.round(getConfig().WB_CALL_DEADLINE_SECONDS * 1000),
    }),
  putReading: putBalance,
  afterReading: payoutArrivalEvents,
  everyMs: () => BALANCE_EVERY_MS,
};

/** A round starts once a day (WB publishes the weekly reports on Mondays; a late one is found next day). */
export const SYNC_EVERY_MS = 24 * 3_600_000;
/** How long a step may hold its connection: the tick's timeout (serverless functions.ts wbSyncTick). */
export const STEP_LEASE_MS = 5 * 60_000;

export function syncSettings(): SyncSettings & { leaseMs: number } {
  const intervalMs = callIntervalMs();
  return {
    ...DEFAULT_SYNC_SETTINGS,
    policy: {
      ...DEFAULT_RATE_POLICY,
      intervalMs,
      maxFailures: getConfig().WB_FAILURES_BEFORE_ERROR,
      retryAfterMaxMs: Math.round(getConfig().WB_RETRY_AFTER_MAX_SECONDS * 1000),
    },
    pollEveryMs: SYNC_EVERY_MS,
    leaseMs: STEP_LEASE_MS,
  };
}

export const wbImportDeps: WbImportDeps = {
  clock: systemClock,
  ids: { newId: newReportId },
  users: { getUserById },
  identities: { findReportsByIdentity },
  reports: { getReportAnyStatus },
  files: { readObject, putObject, sourceObjectKey },
  chargeLimits: (input) => chargeLimits(input),
  puts: { processingReportPut, identityPutTransactItem },
  contentOf: (source) => fingerprintWbSource({ buffer: source }),
  deletePages,
  findContentDuplicate: (userId, fingerprint, rowIds) =>
    findContentDuplicate(
      { identities: { findReportsByIdentity }, reports: { getReportAnyStatus } },
      userId,
      fingerprint,
      undefined,
      rowIds,
    ),
  invoker: lambdaWorkerInvoker,
  leaseMs: () => getConfig().WORKER_LEASE_MS,
  log: (level, message, data) => log(level, message, data),
};

/** The WB settings of the cost sources (shared/marketplaces/wb/sources/index.ts `COST_SOURCES`). */
export function wbCostSettings(): WbCostSettings {
  const c = getConfig();
  return {
    advertApiUrl: c.WB_ADVERT_API_URL,
    advertCallIntervalMs: Math.round(c.WB_ADVERT_CALL_INTERVAL_SECONDS * 1000),
    analyticsApiUrl: c.WB_ANALYTICS_API_URL,
    callIntervalMs: callIntervalMs(),
    financeApiUrl: c.WB_FINANCE_API_URL,
  };
}

export const costStepDeps: CostStepDeps = {
  sources: costSources(wbCostSettings),
  putCosts: putCostBatch,
  reportsToCost: async (userId, sellerId) => {
    const out: ReportToCost[] = [];
    let cursor: string | null = null;
    do {
      const page = await listReports(userId, { sellerId, cursor, limit: 200, ready: true });
      for (const r of page.items)
        if (!r.is_combined && r.source_path)
          out.push({ id: r.id, period_from: r.period_from, period_to: r.period_to, totals: r.totals });
      cursor = page.next_cursor;
    } while (cursor);
    return out;
  },
  rederive: async (userId, reportId) => {
    const user = await getUserById(userId);
    if (!user) return 'gone';
    try {
      await startRebuild(rebuildDeps, user, reportId, 0);
      return 'started';
    } catch (e) {
      if (e instanceof AppError && e.code === 'report_busy') return 'busy';
      if (e instanceof AppError && e.status < 500) return 'gone';
      throw e;
    }
  },
  settle: settleCostsPending,
  // A look for reports without costs every ten call intervals (10 minutes with WB's minute).
  settings: () => ({ scanEveryMs: 10 * callIntervalMs(), maxFailures: 6, leaseMs: STEP_LEASE_MS }),
};

export const stepDeps: StepDeps = {
  connections,
  keyWrapper: tokenKeyWrapper,
  finance,
  putPage: putObject,
  deletePages,
  hasIdentity: async (userId, identity) => {
    for (const id of await findReportsByIdentity(userId, identity)) {
      if (await getReportAnyStatus(userId, id)) return true;
    }
    return false;
  },
  importReport: (c, p, sums, costsPending) => importWbReport(wbImportDeps, c, p, sums, costsPending),
  // The notice is the token_expiring notification (docs/NOTIFICATIONS.md): recorded once per token, mailed
  // by the notifications tick (and on Telegram when linked).
  expiryMail: async (c) => {
    const user = await getUserById(c.user_id);
    if (!user) return;
    const m = wbTokenExpiryMail(
      user.email,
      { sellerName: c.seller_name, wbSellerId: c.wb_seller_id, tokenHint: c.token_hint, expiresAt: c.expires_at },
      getConfig().APP_URL,
    );
    // At the step's moment (the mark it wrote), on the step's clock.
    const at = new Date(c.expiry_mail_sent_at ?? Date.now());
    await recordEventOrThrow(
      { ...recordDeps, clock: { now: () => at } },
      {
        userId: c.user_id,
        kind: 'token_expiring',
        key: `token_expiring:${c.id}:${c.expires_at}`,
        subject: m.subject,
        text: m.text,
        html: m.html,
        link: `${getConfig().APP_URL.replace(/\/+$/, '')}/settings`,
      },
    );
  },
  // The sync_problem notification: recorded once per problem (the connection's revision that began it),
  // at the step's moment; never throws.
  problem: async (c, code, message, atMs) => {
    const account = c.seller_name ? `«${c.seller_name}»` : `ID продавца WB ${c.wb_seller_id}`;
    await recordEvent(
      { ...recordDeps, clock: { now: () => new Date(atMs) } },
      {
        userId: c.user_id,
        kind: 'sync_problem',
        key: `sync_problem:${c.id}:${code}:${c.rev}`,
        ...syncProblemMessage(getConfig().APP_URL, account, message),
      },
    );
  },
  clock: systemClock,
  ids: { newId: newReportId },
  settings: syncSettings,
  costs: costStepDeps,
  balance: balanceStepDeps,
};
