import { useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router-dom';
import { api } from '../api/client';
import { ApiError, messageFor } from '../api/errors';
import type { CombineJob, StaleSource } from '../api/contract';

export const COMBINE_POLL_MS = 1000;
/** Status calls answered 429, 5xx or not at all are tried again this many times, waiting longer each time. */
export const COMBINE_STATUS_RETRIES = 5;

/** The wait before retry `n` (1-based): 1 s, 2 s, 4 s, 8 s, 16 s. */
export const combineRetryDelay = (n: number): number => COMBINE_POLL_MS * 2 ** (n - 1);

/** A status call worth repeating: throttled, a server error, or no answer at all (the job is still there). */
export const retryableStatusError = (e: unknown): boolean =>
  e instanceof ApiError && (e.status === 0 || e.status === 429 || e.status >= 500);

/** The navigation state the new combined report opens with: its sources that were stale. */
export interface CombinedFromState {
  combinedFromStale: StaleSource[];
}

export interface CombineJobState {
  /** From the click until the job is done or failed (the progress bar shows meanwhile). */
  combining: boolean;
  /** The job as the API last answered; null before its first answer. */
  job: CombineJob | null;
  start: (reportIds: string[], title: string) => Promise<void>;
}

/**
 * Combining reports: starts the job, polls its status every second, opens the new report when it is
 * done. A status call that meets a throttle (429), a server error or no answer is retried with backoff
 * (COMBINE_STATUS_RETRIES times) before the error shows. Errors go to `setError` (the page shows one error for all its actions; null clears it at the
 * start); `onDone` runs before the new report opens.
 */
export function useCombineJob({
  setError,
  onDone,
}: {
  setError: (error: unknown) => void;
  onDone?: () => void;
}): CombineJobState {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [combining, setCombining] = useState(false);
  const [job, setJob] = useState<CombineJob | null>(null);
  // Failed status calls in a row (0 while they succeed): the next poll waits combineRetryDelay(failures).
  const [failures, setFailures] = useState(0);
  // Callbacks through refs: a new function each render must not restart the poll's timer.
  const callbacks = useRef({ setError, onDone });
  callbacks.current = { setError, onDone };
  // The chosen reports the API said were stale when the combine started (shown on the new report).
  const staleRef = useRef<StaleSource[]>([]);

  const start = async (reportIds: string[], title: string) => {
    setCombining(true);
    setError(null);
    setJob(null);
    setFailures(0);
    try {
      const started = await api.combine(reportIds, title.trim() || undefined);
      staleRef.current = started.stale_sources ?? [];
      setJob(started);
    } catch (e) {
      setError(e);
      setCombining(false);
    }
  };

  // Poll the combine job until it is done or failed; a done job opens the new report.
  const jobRef = useRef<CombineJob | null>(null);
  jobRef.current = job;
  useEffect(() => {
    if (!job) return;
    if (job.status === 'done' && job.report_id) {
      const reportId = job.report_id;
      void queryClient.invalidateQueries({ queryKey: ['reports'] });
      setCombining(false);
      setJob(null);
      callbacks.current.onDone?.();
      const state: CombinedFromState = { combinedFromStale: staleRef.current };
      void navigate(`/reports/${encodeURIComponent(reportId)}`, { state });
      return;
    }
    if (job.status === 'failed' || job.status === 'done') {
      setCombining(false);
      const err = job.error;
      const code = typeof err === 'object' && err?.code ? err.code : 'internal_error';
      callbacks.current.setError(new ApiError(500, code, `Не удалось объединить отчёты. ${messageFor(500, code)}`));
      setJob(null);
      return;
    }
    const timer = window.setTimeout(
      () => {
        void (async () => {
          const current = jobRef.current;
          if (!current) return;
          try {
            const next = await api.combineStatus(current.job_id);
            setFailures(0);
            setJob(next);
          } catch (e) {
            if (retryableStatusError(e) && failures < COMBINE_STATUS_RETRIES) {
              setFailures(failures + 1);
              return;
            }
            callbacks.current.setError(e);
            setCombining(false);
            setFailures(0);
            setJob(null);
          }
        })();
      },
      failures === 0 ? COMBINE_POLL_MS : combineRetryDelay(failures),
    );
    return () => window.clearTimeout(timer);
  }, [job, failures, navigate, queryClient]);

  return { combining, job, start };
}

/** "Читаем отчёт 2 из 4", "Сводим артикулы", "Записываем сводный отчёт": the combine job's step. */
export function combineStepText(job: CombineJob): string {
  const { done, total, step } = job.progress;
  const sources = Math.max(0, total - 2);
  if (step === 'reading') return `Читаем отчёт ${Math.min(done + 1, sources)} из ${sources}`;
  if (step === 'merging') return 'Сводим артикулы';
  if (step === 'writing') return 'Записываем сводный отчёт';
  if (step === 'done') return 'Готово';
  return `${done} из ${total}`;
}
