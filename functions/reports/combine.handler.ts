import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { notFound } from '../../shared/errors';
import { fromRoute, http, reply, ROUTES, type HttpRequest, type HttpResult } from '../../shared/http';
import { getConfig } from '../../shared/config';
import { systemClock } from '../../shared/deps';
import { createJobRegistry } from '../../shared/jobs/registry';
import {
  combineStatus,
  presentJob,
  startCombine,
  startRecombine,
  type CombineDeps,
} from '../../shared/reports/combine/combine';
import { createReport, replaceItems } from '../../shared/store/report-numbers.repo';
import { newReportId } from '../../shared/store/report-record';
import { getReport, getReportItems } from '../../shared/store/reports.repo';
import { jobStore } from '../../shared/store/jobs.repo';
import { staleSources } from '../../shared/reports/combine/list-stale';
import { readDeps } from '../../shared/reports/read-deps';

/**
 * The real dependencies; the job registry is this process's memory (one per loaded handler), its
 * jobs' states stored in the table for the other environments of the function.
 */
const deps: CombineDeps = {
  reports: { getReport, getReportItems, createReport, replaceItems, newReportId },
  jobs: createJobRegistry({ clock: systemClock, store: jobStore }),
  clock: systemClock,
  waits: { startMs: () => getConfig().COMBINE_WAIT_MS, statusMs: () => getConfig().COMBINE_STATUS_WAIT_MS },
};

const combineRoute = fromRoute(ROUTES.combine);

/**
 * POST /api/reports/combine {report_ids: 2..100 distinct, title?} → 202 {job_id, status, progress,
 * report_id?}. Any id that is not the caller's report → 404 before a job starts. Waits up to
 * COMBINE_WAIT_MS for the job.
 */
export async function combine(req: HttpRequest<typeof combineRoute>) {
  return reply(
    ROUTES.combine,
    202,
    presentJob(
      await startCombine(deps, req.user.id, req.body.report_ids, req.body.title, req.budgetMs, (records) =>
        staleSources(readDeps, req.user, records),
      ),
    ),
  );
}

const statusRoute = fromRoute(ROUTES.combineStatus);

/**
 * GET /api/reports/combine-status/{job_id} → {job_id, status, progress {done, total, step}, report_id?,
 * error?}: answers as soon as the job is done, else after COMBINE_STATUS_WAIT_MS (long-poll).
 */
export async function status(req: HttpRequest<typeof statusRoute>) {
  const job = await combineStatus(deps, req.user.id, req.path.job_id);
  if (!job) {
    throw notFound(
      'Combine job not found: it is unknown, was lost with the backend process that ran it, or finished more than an hour ago. Start the combine again.',
      'job_not_found',
    );
  }
  return reply(ROUTES.combineStatus, 200, presentJob(job));
}

const recombineRoute = fromRoute(ROUTES.recombine);

/**
 * POST /api/reports/{id}/recombine → 202 {job_id, status, progress, report_id?} (report_id is this
 * report's); 404 not the caller's, 422 `not_combined`, 409 `source_missing` (details.report_ids).
 */
export async function recombine(req: HttpRequest<typeof recombineRoute>) {
  return reply(ROUTES.recombine, 202, presentJob(await startRecombine(deps, req.user.id, req.path.id, req.budgetMs)));
}

const combineHandler = http(combineRoute, combine);
const statusHandler = http(statusRoute, status);
const recombineHandler = http(recombineRoute, recombine);

/**
 * One Lambda function serves the combine routes, at any concurrency (a job runs in the environment
 * that started it; its state is stored for the others), dispatched on the method and path: GET reads a job, POST …/{id}/recombine and POST …/combine start one.
 */
export async function handler(event: APIGatewayProxyEventV2, context?: Partial<Context>): Promise<HttpResult> {
  const method = (event.requestContext?.http?.method ?? event.routeKey?.split(' ')[0] ?? '').toUpperCase();
  if (method === 'GET') return statusHandler(event, context);
  const path = event.routeKey ?? event.requestContext?.http?.path ?? event.rawPath ?? '';
  const rawPath = event.rawPath ?? event.requestContext?.http?.path ?? '';
  if (/\/recombine$/.test(path) || /\/recombine$/.test(rawPath)) return recombineHandler(event, context);
  return combineHandler(event, context);
}
