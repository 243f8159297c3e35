import { notFound } from '../../shared/errors';
import { routes } from '../../shared/http';
import { combineStatus, presentJob, startCombine, startRecombine } from '../../shared/reports/combine/combine';
import { combineDeps as deps } from '../../shared/reports/combine/combine-deps';
import { staleSources } from '../../shared/reports/combine/list-stale';
import { readDeps } from '../../shared/reports/read-deps';

/**
 * One Lambda function serves the combine routes, at any concurrency (a job runs in the environment
 * that started it; its state is stored for the others), dispatched from the contract.
 */
export const handler = routes({
  /**
   * POST /api/reports/combine {report_ids: 2..100 distinct, title?} → 202 {job_id, status, progress,
   * report_id?}. Any id that is not the caller's report → 404 before a job starts. Waits up to
   * COMBINE_WAIT_MS for the job.
   */
  combine: async (req) => ({
    status: 202,
    body: presentJob(
      await startCombine(deps, req.user.id, req.body.report_ids, req.body.title, req.budgetMs, (records) =>
        staleSources(readDeps, req.user, records),
      ),
    ),
  }),
  /**
   * GET /api/reports/combine-status/{job_id} → {job_id, status, progress {done, total, step}, report_id?,
   * error?}: answers as soon as the job is done, else after COMBINE_STATUS_WAIT_MS (long-poll).
   */
  combineStatus: async (req) => {
    const job = await combineStatus(deps, req.user.id, req.path.job_id);
    if (!job) {
      throw notFound(
        'Combine job not found: it is unknown, was lost with the backend process that ran it, or finished more than an hour ago. Start the combine again.',
        'job_not_found',
      );
    }
    return { status: 200, body: presentJob(job) };
  },
  /**
   * POST /api/reports/{id}/recombine → 202 {job_id, status, progress, report_id?} (report_id is this
   * report's); 404 not the caller's, 422 `not_combined`, 409 `source_missing` (details.report_ids).
   */
  recombine: async (req) => ({
    status: 202,
    body: presentJob(await startRecombine(deps, req.user.id, req.path.id, req.budgetMs)),
  }),
});
