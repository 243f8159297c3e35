/**
 * The real dependencies of the combine routes (combine.ts): the job registry is this process's memory
 * (one per loaded function), its jobs' states stored in the table for the other environments of the
 * function.
 */
import { getConfig } from '../../config';
import { systemClock } from '../../deps';
import { createJobRegistry } from '../../jobs/registry';
import { jobStore } from '../../store/jobs.repo';
import { createReport, replaceItems } from '../../store/report-numbers.repo';
import { newReportId } from '../../store/report-record';
import { getReport, getReportItems } from '../../store/reports.repo';
import type { CombineDeps } from './combine';

export const combineDeps: CombineDeps = {
  reports: { getReport, getReportItems, createReport, replaceItems, newReportId },
  jobs: createJobRegistry({ clock: systemClock, store: jobStore }),
  clock: systemClock,
  waits: { startMs: () => getConfig().COMBINE_WAIT_MS, statusMs: () => getConfig().COMBINE_STATUS_WAIT_MS },
};
