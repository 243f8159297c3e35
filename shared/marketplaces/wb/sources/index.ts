/**
 * The registry of WB's per-article cost sources (docs/WB-API.md «Adding a cost source»): each entry is
 * the pure part of its kind (cost-kinds.ts: kind, field, title) and how to make its source
 * (costs.ts `CostSource`: scope bit, pacing, client, single-call steps) from the WB settings the
 * composition root reads (shared/marketplaces/wb/sync/step-deps.ts `wbCostSettings`).
 *
 * The sync fetches exactly these (step-deps.ts `costStepDeps`); a registered kind is attributed by the
 * engine and keyed in the contract through cost-kinds.ts; the emulator serves each source's API
 * (scripts/local/wb: promotion.ts for ads, analytics.ts for every report of analytics-reports.ts,
 * acquiring.ts for the acquiring report).
 */
import { ACCEPTANCE_REPORT, PAID_STORAGE_REPORT } from './analytics-reports';
import { analyticsSource } from './analytics-source';
import { advertSource } from './advert-source';
import { acquiringSource } from './acquiring/acquiring-source';
import { costKind, type CostField, type CostKind, type CostKindInfo } from './cost-kinds';
import type { CostSource } from './costs';
import type { FetchLike } from '../finance/finance-client';

/** The WB settings the cost sources read (shared/config.ts; the composition root passes them in). */
export interface WbCostSettings {
  /** WB_ADVERT_API_URL. */
  advertApiUrl: string;
  /** WB_ADVERT_CALL_INTERVAL_SECONDS, ms. */
  advertCallIntervalMs: number;
  /** WB_ANALYTICS_API_URL. */
  analyticsApiUrl: string;
  /** WB_CALL_INTERVAL_SECONDS (WB's minute), ms: the report limits scale with it. */
  callIntervalMs: number;
  /** WB_FINANCE_API_URL: the acquiring report is the Finance API's. */
  financeApiUrl: string;
}

/** One registered cost source: its kind's pure part, and its source made from the settings. */
export interface CostSourceEntry extends CostKindInfo {
  kind: CostKind;
  field: CostField;
  /** `settings` is read at each use (the composition root's getter), `fetch` injected by tests. */
  source(settings: () => WbCostSettings, fetch?: FetchLike): CostSource;
}

/** Every cost source the WB sync fetches, in this order for each report. */
export const COST_SOURCES: readonly CostSourceEntry[] = [
  {
    ...costKind('ads'),
    source: (s, fetch) =>
      advertSource({
        baseUrl: () => s().advertApiUrl,
        intervalMs: () => s().advertCallIntervalMs,
        fetch,
      }) as CostSource,
  },
  {
    ...costKind('storage'),
    source: (s, fetch) =>
      analyticsSource('storage', PAID_STORAGE_REPORT, {
        baseUrl: () => s().analyticsApiUrl,
        callIntervalMs: () => s().callIntervalMs,
        fetch,
      }) as CostSource,
  },
  {
    ...costKind('acceptance'),
    source: (s, fetch) =>
      analyticsSource('acceptance', ACCEPTANCE_REPORT, {
        baseUrl: () => s().analyticsApiUrl,
        callIntervalMs: () => s().callIntervalMs,
        fetch,
      }) as CostSource,
  },
  {
    ...costKind('acquiring_billed'),
    source: (s, fetch) =>
      acquiringSource({
        baseUrl: () => s().financeApiUrl,
        intervalMs: () => s().callIntervalMs,
        fetch,
      }) as CostSource,
  },
];

/** The registered sources, made with the settings. */
export function costSources(settings: () => WbCostSettings, fetch?: FetchLike): CostSource[] {
  return COST_SOURCES.map((e) => e.source(settings, fetch));
}
