// Uploads that outlive the page they started on. The upload request is sent from here (not from the
// upload panel), so navigating away neither cancels it nor loses its answer; a report the server is
// still processing (202) is followed by polling GET /reports/{id} until it is ready or failed. When it
// ends, the seller is taken to the report only while on the reports pages (/reports, /reports/:id);
// anywhere else a toast says so, with a link. The tray shows every upload in progress on every page.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { api } from '../api/client';
import { messageFor } from '../api/errors';
import type { Report, ReportProgress, ReportSummary } from '../api/contract';
import { ProgressBar } from '../components/progress-bar';
import { formatInt } from './format';

const UPLOAD_POLL_MS = 1000;

export interface TrackedUpload {
  reportId: string;
  title: string;
  status: 'processing' | 'ready' | 'failed';
  progress?: ReportProgress;
  error?: { code: string; message: string };
}

export interface Toast {
  id: number;
  kind: 'success' | 'error';
  text: string;
  reportId?: string;
}

interface UploadsValue {
  uploads: TrackedUpload[];
  toasts: Toast[];
  /**
   * Sends the upload of `uploadId` and follows it. Resolves with the report once the server accepted it
   * (ready or processing); rejects with the request's error (nothing was charged, or it was refunded).
   */
  submit: (uploadId: string, fileName: string, allowDuplicate?: boolean) => Promise<ReportSummary>;
  /** Follows a report already processing (e.g. one seen in the list). */
  follow: (report: ReportSummary) => void;
  dismiss: (toastId: number) => void;
}

const UploadsContext = createContext<UploadsValue | null>(null);

export function useUploads(): UploadsValue {
  const v = useContext(UploadsContext);
  if (!v) throw new Error('useUploads outside UploadsProvider');
  return v;
}

/** Whether a path is one of the reports pages, where a finished upload opens its report. */
const onReportsPages = (pathname: string) => /^\/reports(\/|$)/.test(pathname);

/** "Читаем строки: 12 000 из 40 000" — what the worker is doing, in the seller's words. */
export function describeProgress(p: ReportProgress | undefined): { label: string; value?: number } {
  if (!p || p.step === 'queued') return { label: 'В очереди на обработку' };
  if (p.step === 'reading')
    return {
      label: `Читаем строки: ${formatInt(p.rows_read)}${p.rows_total ? ` из ${formatInt(p.rows_total)}` : ''}`,
      value: p.rows_total ? (p.rows_read / p.rows_total) * 0.6 : undefined,
    };
  if (p.step === 'pricing') return { label: 'Подставляем себестоимость и налоги', value: 0.65 };
  if (p.step === 'writing')
    return {
      label: `Сохраняем артикулы: ${formatInt(p.items_written)} из ${formatInt(p.items_total)}`,
      value: 0.7 + (p.items_total ? (p.items_written / p.items_total) * 0.28 : 0),
    };
  return { label: 'Завершаем', value: 0.99 };
}

export function UploadsProvider({ children }: { children: ReactNode }) {
  const [uploads, setUploads] = useState<TrackedUpload[]>([]);
  const [toasts, setToasts] = useState<Toast[]>([]);
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const pathRef = useRef(location.pathname);
  pathRef.current = location.pathname;
  const toastId = useRef(0);

  const toast = useCallback((t: Omit<Toast, 'id'>) => {
    const id = ++toastId.current;
    setToasts((prev) => [...prev, { ...t, id }]);
  }, []);

  const refreshAfter = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: ['reports'] });
    void queryClient.invalidateQueries({ queryKey: ['me'] });
    void queryClient.invalidateQueries({ queryKey: ['sellers'] });
    void queryClient.invalidateQueries({ queryKey: ['limit-history'] });
    // Analytics counted the report as «ещё обрабатывается» until now.
    void queryClient.invalidateQueries({ queryKey: ['analytics'] });
  }, [queryClient]);

  /** A followed report ended: open it (reports pages) or say so (elsewhere). */
  const finish = useCallback(
    (report: ReportSummary) => {
      setUploads((prev) => prev.filter((u) => u.reportId !== report.id));
      refreshAfter();
      const title = report.title || 'Отчёт';
      if (report.status === 'failed') {
        const message = report.error?.message ?? messageFor(500, report.error?.code ?? 'processing_failed');
        toast({ kind: 'error', text: `«${title}» не обработан: ${message}`, reportId: report.id });
        return;
      }
      if (onReportsPages(pathRef.current)) void navigate(`/reports/${encodeURIComponent(report.id)}`);
      else toast({ kind: 'success', text: `Отчёт «${title}» готов.`, reportId: report.id });
    },
    [navigate, refreshAfter, toast],
  );

  const follow = useCallback((report: ReportSummary) => {
    setUploads((prev) =>
      prev.some((u) => u.reportId === report.id)
        ? prev
        : [...prev, { reportId: report.id, title: report.title, status: 'processing', progress: report.progress }],
    );
  }, []);

  const submit = useCallback(
    async (uploadId: string, fileName: string, allowDuplicate = false) => {
      // Same upload id = same report, charged once (the server's idempotency), so a repeat is safe.
      const { report } = await api.upload(uploadId, allowDuplicate);
      if (report.status === 'processing') {
        follow(report);
      } else {
        queryClient.setQueryData(['report', report.id], { report: report as Report });
        finish({ ...report, title: report.title || fileName });
      }
      return report;
    },
    [finish, follow, queryClient],
  );

  // Poll every followed report until it is no longer processing.
  const processingIds = uploads.map((u) => u.reportId).join(',');
  useEffect(() => {
    if (!processingIds) return;
    let stopped = false;
    const timer = window.setInterval(() => {
      void (async () => {
        for (const id of processingIds.split(',')) {
          try {
            const { report } = await api.getReport(id);
            if (stopped) return;
            if (report.status === 'processing') {
              setUploads((prev) =>
                prev.map((u) => (u.reportId === id ? { ...u, title: report.title, progress: report.progress } : u)),
              );
            } else {
              queryClient.setQueryData(['report', id], { report });
              finish(report);
            }
          } catch {
            // A failed poll is retried on the next tick.
          }
        }
      })();
    }, UPLOAD_POLL_MS);
    return () => {
      stopped = true;
      window.clearInterval(timer);
    };
  }, [processingIds, finish, queryClient]);

  const dismiss = useCallback((id: number) => setToasts((prev) => prev.filter((t) => t.id !== id)), []);

  const value = useMemo(
    () => ({ uploads, toasts, submit, follow, dismiss }),
    [uploads, toasts, submit, follow, dismiss],
  );
  return <UploadsContext.Provider value={value}>{children}</UploadsContext.Provider>;
}

/** Uploads in progress and their toasts, on every signed-in page. */
export function UploadTray() {
  const { uploads, toasts, dismiss } = useUploads();
  if (uploads.length === 0 && toasts.length === 0) return null;
  return (
    <div className="upload-tray" aria-live="polite" data-testid="upload-tray">
      {uploads.map((u) => {
        const p = describeProgress(u.progress);
        return (
          <div key={u.reportId} className="tray-card" data-testid={`tray-upload-${u.reportId}`}>
            <div className="tray-title">Обрабатываем «{u.title}»</div>
            <ProgressBar label={p.label} value={p.value} testId="tray-progress" />
          </div>
        );
      })}
      {toasts.map((t) => (
        <div
          key={t.id}
          className={`tray-card toast toast-${t.kind}`}
          role={t.kind === 'error' ? 'alert' : 'status'}
          data-testid="toast"
        >
          <span>{t.text}</span>
          {t.reportId && t.kind === 'success' ? (
            <Link to={`/reports/${encodeURIComponent(t.reportId)}`} onClick={() => dismiss(t.id)}>
              Открыть отчёт
            </Link>
          ) : null}
          <button type="button" className="btn btn-ghost btn-small" aria-label="Закрыть" onClick={() => dismiss(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
