import { useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router-dom';
import { api } from '../api/client';
import { ApiError, messageFor } from '../api/errors';
import type { CombineJob } from '../api/contract';

export const COMBINE_POLL_MS = 1000;

export interface CombineJobState {
  /** From the click until the job is done or failed (the progress bar shows meanwhile). */
  combining: boolean;
  /** The job as the API last answered; null before its first answer. */
  job: CombineJob | null;
  start: (reportIds: string[], title: string) => Promise<void>;
}

/**
 * Combining reports: starts the job, polls its status every second, opens the new report when it is
 * done. Errors go to `setError` (the page shows one error for all its actions; null clears it at the
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
  // Callbacks through refs: a new function each render must not restart the poll's timer.
  const callbacks = useRef({ setError, onDone });
  callbacks.current = { setError, onDone };

  const start = async (reportIds: string[], title: string) => {
    setCombining(true);
    setError(null);
    setJob(null);
    try {
      setJob(await api.combine(reportIds, title.trim() || undefined));
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
      void navigate(`/reports/${encodeURIComponent(reportId)}`);
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
    const timer = window.setTimeout(() => {
      void (async () => {
        const current = jobRef.current;
        if (!current) return;
        try {
          setJob(await api.combineStatus(current.job_id));
        } catch (e) {
          callbacks.current.setError(e);
          setCombining(false);
          setJob(null);
        }
      })();
    }, COMBINE_POLL_MS);
    return () => window.clearTimeout(timer);
  }, [job, navigate, queryClient]);

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
