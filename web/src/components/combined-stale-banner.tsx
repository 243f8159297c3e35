import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { ApiError, messageFor } from '../api/errors';
import type { CombineJob, Report } from '../api/contract';
import { ErrorMessage } from './error-message';

const POLL_MS = 700;

const CHANGE: Record<string, string> = {
  rebuilt: 'пересобран',
  corrected: 'исправлен вручную',
  deleted: 'удалён',
};

/**
 * The banner of a combined report whose sources changed after it was combined: which source changed
 * how, and one action «Пересобрать» (POST /recombine, then the job is polled like combine's). A
 * deleted source makes recombining impossible: the banner says so instead of offering it.
 */
export function CombinedStaleBanner({ report }: { report: Report }) {
  const queryClient = useQueryClient();
  const [job, setJob] = useState<CombineJob | null>(null);
  const [error, setError] = useState<unknown>(null);
  const busy = job !== null;
  const changes = report.stale_sources ?? [];
  const deleted = changes.some((c) => c.change === 'deleted');

  useEffect(() => {
    if (!job) return;
    if (job.status === 'done') {
      setJob(null);
      void queryClient.invalidateQueries({ queryKey: ['report', report.id] });
      void queryClient.invalidateQueries({ queryKey: ['reports'] });
      return;
    }
    if (job.status === 'failed') {
      const code = typeof job.error === 'object' && job.error?.code ? job.error.code : 'internal_error';
      setError(new ApiError(500, code, `Не удалось пересобрать сводный отчёт. ${messageFor(500, code)}`));
      setJob(null);
      return;
    }
    const timer = window.setTimeout(() => {
      void (async () => {
        try {
          setJob(await api.combineStatus(job.job_id));
        } catch (e) {
          setError(e);
          setJob(null);
        }
      })();
    }, POLL_MS);
    return () => window.clearTimeout(timer);
  }, [job, queryClient, report.id]);

  if (!report.stale) return null;

  const recombine = async () => {
    setError(null);
    try {
      setJob(await api.recombine(report.id));
    } catch (e) {
      setError(e);
    }
  };

  return (
    <div className="alert alert-warning" role="status" data-testid="combined-stale-banner">
      <div>
        <strong>Сводный отчёт устарел.</strong> {report.stale_reason ?? 'Исходные отчёты изменились после сборки.'}
      </div>
      {changes.length > 0 ? (
        <ul data-testid="combined-stale-sources">
          {changes.map((c) => (
            <li key={c.id}>
              {c.title ? `«${c.title}»` : `Отчёт ${c.id}`} — {CHANGE[c.change] ?? c.change}
            </li>
          ))}
        </ul>
      ) : null}
      {deleted ? (
        <div data-testid="combined-stale-deleted">
          Один из исходных отчётов удалён, поэтому пересобрать этот отчёт нельзя: объедините оставшиеся отчёты заново.
        </div>
      ) : (
        <div className="button-row">
          <button
            type="button"
            className="btn btn-primary btn-small"
            onClick={() => void recombine()}
            disabled={busy}
            data-testid="recombine-button"
          >
            {busy ? 'Пересобираем…' : 'Пересобрать'}
          </button>
        </div>
      )}
      <ErrorMessage error={error} testId="recombine-error" />
    </div>
  );
}
