/**
 * The real dependencies of the reading use cases, wired once per cold start: the report, list and update
 * routes (queries.ts ReadDeps), a report's analytics summary, and the period analytics with their export
 * (analytics.ts AnalyticsDeps). DynamoDB stores only: the delete route adds S3 in its own handler, so
 * these functions do not load the S3 client. Unit tests pass fakes of the same types.
 */
import { systemClock } from '../deps';
import { getItemsOfGen } from '../store/items.repo';
import { getReportCostPrices, listAllProducts } from '../store/products.repo';
import { getReport, getReportAnyStatus, getReportItems, listReports, updateReportMeta } from '../store/reports.repo';
import { getSeller, listSellers } from '../store/sellers.repo';
import { readPeriodCosts } from '../store/wb-costs.repo';
import { getOwnCosts } from '../store/own-costs.repo';
import { deleteSummary, listCostPrices, listReportHeads, listSummaries, putSummary } from '../store/summaries.repo';
import type { AnalyticsDeps, SummaryDeps } from './analytics/analytics';
import type { UnitEconomicsDeps } from './analytics/unit-economics';
import type { ReadDeps } from './queries';

/** GET /api/reports, GET /api/reports/{id}, PATCH /api/reports/{id}. */
export const readDeps: ReadDeps = {
  reports: { getReport, getReportAnyStatus, getReportItems, listReports, updateReportMeta },
  sellers: { getSeller, listSellers },
  products: { getReportCostPrices, listAllProducts },
  wbCosts: { readPeriodCosts },
  ownCosts: { getOwnCosts },
  summaries: { listSummaries, listCostPrices },
};

/** Writing and removing a report's analytics summary. */
export const summaryDeps: SummaryDeps = { summaries: { putSummary, deleteSummary } };

/** GET /api/analytics and its export. */
export const analyticsDeps: AnalyticsDeps = {
  summaries: { putSummary, listSummaries, listCostPrices, listReportHeads },
  items: { getItemsOfGen },
  sellers: { getSeller, listSellers },
  clock: systemClock,
};

/** GET /api/articles/{article}/unit-economics and its what-if. */
export const unitEconomicsDeps: UnitEconomicsDeps = {
  reports: { listReportHeads },
  items: { getItemsOfGen },
  sellers: { getSeller },
};
