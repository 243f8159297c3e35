import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { z } from 'zod';
import { notFound } from '../../shared/errors';
import { http, json, type HttpOptions, type HttpRequest, type HttpResult } from '../../shared/http';
import {
  MAX_COMBINE,
  MIN_COMBINE,
  combineStatus,
  presentJob,
  startCombine,
  startRecombine,
} from '../../shared/reports/combine';

const combineRoute = {
  auth: 'user',
  body: z.object({
    report_ids: z
      .array(z.string().min(1).max(64))
      .min(MIN_COMBINE)
      .max(MAX_COMBINE)
      .refine((ids) => new Set(ids).size === ids.length, 'report_ids must be distinct'),
    title: z.string().trim().min(1).max(200).optional(),
  }),
} satisfies HttpOptions;

/**
 * POST /api/reports/combine {report_ids: 2..100 distinct, title?} → 202 {job_id, status, progress,
 * report_id?}. Any id that is not the caller's report → 404 before a job starts. Waits up to
 * COMBINE_WAIT_MS for the job.
 */
export async function combine(req: HttpRequest<typeof combineRoute>) {
  return json(202, presentJob(await startCombine(req.user.id, req.body.report_ids, req.body.title)));
}

const statusRoute = { auth: 'user', path: z.object({ job_id: z.string() }) } satisfies HttpOptions;

/**
 * GET /api/reports/combine-status/{job_id} → {job_id, status, progress {done, total, step}, report_id?,
 * error?}: answers as soon as the job is done, else after COMBINE_STATUS_WAIT_MS (long-poll).
 */
export async function status(req: HttpRequest<typeof statusRoute>) {
  const job = await combineStatus(req.user.id, req.path.job_id);
  if (!job) {
    throw notFound(
      'Combine job not found: jobs live in the memory of the one backend process that ran them, and are lost when it restarts and an hour after they finish. Start the combine again.',
      'job_not_found',
    );
  }
  return json(200, presentJob(job));
}

const recombineRoute = { auth: 'user', path: z.object({ id: z.string() }) } satisfies HttpOptions;

/**
 * POST /api/reports/{id}/recombine → 202 {job_id, status, progress, report_id?} (report_id is this
 * report's); 404 not the caller's, 422 `not_combined`, 409 `source_missing` (details.report_ids).
 */
export async function recombine(req: HttpRequest<typeof recombineRoute>) {
  return json(202, presentJob(await startRecombine(req.user.id, req.path.id)));
}

const combineHandler = http(combineRoute, combine);
const statusHandler = http(statusRoute, status);
const recombineHandler = http(recombineRoute, recombine);

/**
 * ONE Lambda serves the combine routes (the job registry is this process's memory), dispatched on
 * the method and path: GET reads a job, POST …/{id}/recombine and POST …/combine start one.
 */
export async function handler(event: APIGatewayProxyEventV2, context?: Partial<Context>): Promise<HttpResult> {
  const method = (event.requestContext?.http?.method ?? event.routeKey?.split(' ')[0] ?? '').toUpperCase();
  if (method === 'GET') return statusHandler(event, context);
  const path = event.routeKey ?? event.requestContext?.http?.path ?? event.rawPath ?? '';
  const rawPath = event.rawPath ?? event.requestContext?.http?.path ?? '';
  if (/\/recombine$/.test(path) || /\/recombine$/.test(rawPath)) return recombineHandler(event, context);
  return combineHandler(event, context);
}
