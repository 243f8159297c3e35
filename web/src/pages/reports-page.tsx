import { useEffect, useMemo, useRef, useState } from 'react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { api, saveFile } from '../api/client';
import { ApiError, messageFor } from '../api/errors';
import type { CombineJob, ReportSummary } from '../api/contract';
import { ErrorMessage } from '../components/error-message';
import { LoadMore } from '../components/load-more';
import { ConfirmDialog } from '../components/modal';
import { ProgressBar, Spinner } from '../components/progress-bar';
import { UploadPanel } from '../components/upload-panel';
import { formatDateTime, formatInt, formatPeriod, formatRub, plural } from '../lib/format';
import { useTitle } from '../lib/use-title';
import { describeProgress } from '../lib/uploads';

const MAX_SELECTED = 100;
const POLL_MS = 1000;

export function ReportsPage() {
  useTitle('Отчёты');
  const [params, setParams] = useSearchParams();
  const sellerId = params.get('seller') ?? '';
  const queryClient = useQueryClient();
  const navigate = useNavigate();

  const sellers = useQuery({ queryKey: ['sellers'], queryFn: api.listSellers });
  const reports = useInfiniteQuery({
    queryKey: ['reports', sellerId],
    queryFn: ({ pageParam }) => api.listReports({ seller_id: sellerId || null, cursor: pageParam }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor ?? null,
    // While a report is being processed, its row follows the worker's progress.
    refetchInterval: (q) =>
      q.state.data?.pages.some((p) => p.items.some((r) => r.status === 'processing')) ? POLL_MS * 2 : false,
  });
  const items = useMemo(() => reports.data?.pages.flatMap((p) => p.items) ?? [], [reports.data]);

  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [toDelete, setToDelete] = useState<ReportSummary | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [actionError, setActionError] = useState<unknown>(null);
  const [exporting, setExporting] = useState(false);
  const [combining, setCombining] = useState(false);
  const [combineJob, setCombineJob] = useState<CombineJob | null>(null);
  const [combineTitle, setCombineTitle] = useState('');
  const [askCombine, setAskCombine] = useState(false);

  // Keep the selection to reports still on screen (after a delete or a filter change).
  useEffect(() => {
    setSelected((prev) => {
      const visible = new Set(items.map((r) => r.id));
      const next = new Set([...prev].filter((id) => visible.has(id)));
      return next.size === prev.size ? prev : next;
    });
  }, [items]);

  const toggle = (id: string) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else if (next.size < MAX_SELECTED) next.add(id);
      return next;
    });

  const allSelected = items.length > 0 && items.slice(0, MAX_SELECTED).every((r) => selected.has(r.id));
  const toggleAll = () => setSelected(allSelected ? new Set() : new Set(items.slice(0, MAX_SELECTED).map((r) => r.id)));

  const selectedIds = items.filter((r) => selected.has(r.id)).map((r) => r.id);

  const deleteReport = async () => {
    if (!toDelete) return;
    setDeleting(true);
    setActionError(null);
    try {
      await api.deleteReport(toDelete.id);
      queryClient.removeQueries({ queryKey: ['report', toDelete.id] });
      await queryClient.invalidateQueries({ queryKey: ['reports'] });
      setToDelete(null);
    } catch (e) {
      setActionError(e);
      setToDelete(null);
    } finally {
      setDeleting(false);
    }
  };

  const exportSummary = async () => {
    setExporting(true);
    setActionError(null);
    try {
      saveFile(await api.summaryExport(selectedIds));
    } catch (e) {
      setActionError(e);
    } finally {
      setExporting(false);
    }
  };

  const startCombine = async () => {
    setAskCombine(false);
    setCombining(true);
    setActionError(null);
    setCombineJob(null);
    try {
      const job = await api.combine(selectedIds, combineTitle.trim() || undefined);
      setCombineJob(job);
    } catch (e) {
      setActionError(e);
      setCombining(false);
    }
  };

  // Poll the combine job until it is done or failed; a done job opens the new report.
  const jobRef = useRef<CombineJob | null>(null);
  jobRef.current = combineJob;
  useEffect(() => {
    if (!combineJob) return;
    if (combineJob.status === 'done' && combineJob.report_id) {
      const reportId = combineJob.report_id;
      void queryClient.invalidateQueries({ queryKey: ['reports'] });
      setCombining(false);
      setCombineJob(null);
      setSelected(new Set());
      void navigate(`/reports/${encodeURIComponent(reportId)}`);
      return;
    }
    if (combineJob.status === 'failed' || combineJob.status === 'done') {
      setCombining(false);
      const err = combineJob.error;
      const code = typeof err === 'object' && err?.code ? err.code : 'internal_error';
      setActionError(new ApiError(500, code, `Не удалось объединить отчёты. ${messageFor(500, code)}`));
      setCombineJob(null);
      return;
    }
    const timer = window.setTimeout(() => {
      void (async () => {
        const current = jobRef.current;
        if (!current) return;
        try {
          setCombineJob(await api.combineStatus(current.job_id));
        } catch (e) {
          setActionError(e);
          setCombining(false);
          setCombineJob(null);
        }
      })();
    }, POLL_MS);
    return () => window.clearTimeout(timer);
  }, [combineJob, navigate, queryClient]);

  return (
    <div className="page">
      <div className="page-head">
        <h1>Отчёты</h1>
      </div>

      <UploadPanel />

      <section className="panel" aria-labelledby="reports-title">
        <div className="panel-head">
          <h2 id="reports-title">Загруженные отчёты</h2>
          <label className="inline-label">
            Продавец
            <select
              aria-label="Фильтр по продавцу"
              data-testid="seller-filter"
              value={sellerId}
              onChange={(e) => {
                const next = new URLSearchParams(params);
                if (e.target.value) next.set('seller', e.target.value);
                else next.delete('seller');
                setParams(next, { replace: true });
              }}
            >
              <option value="">Все продавцы</option>
              {(sellers.data?.items ?? []).map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name ? `${s.name} (${s.number})` : s.number}
                </option>
              ))}
            </select>
          </label>
        </div>

        {items.length > 0 ? (
          <div className="selection-bar" data-testid="selection-bar">
            <span>
              Выбрано: <strong>{selectedIds.length}</strong>
            </span>
            <button
              type="button"
              className="btn btn-primary btn-small"
              disabled={selectedIds.length < 2 || combining}
              title={selectedIds.length < 2 ? 'Выберите хотя бы два отчёта' : undefined}
              onClick={() => setAskCombine(true)}
              data-testid="combine-button"
            >
              Объединить
            </button>
            <button
              type="button"
              className="btn btn-small"
              disabled={selectedIds.length === 0 || exporting || combining}
              title={selectedIds.length === 0 ? 'Отметьте отчёты галочками' : undefined}
              onClick={() => void exportSummary()}
              data-testid="summary-button"
            >
              {exporting ? 'Готовим файл…' : 'Сводный XLS'}
            </button>
            {selectedIds.length > 0 ? (
              <button type="button" className="btn btn-ghost btn-small" onClick={() => setSelected(new Set())}>
                Снять выбор
              </button>
            ) : null}
            <span className="hint" data-testid="selection-hint">
              {selectedIds.length === 0
                ? 'Отметьте отчёты галочками: сводный XLS — по одному или нескольким, объединение — от двух.'
                : selectedIds.length === 1
                  ? 'Для объединения отметьте ещё хотя бы один отчёт.'
                  : ''}
            </span>
          </div>
        ) : null}

        {combining ? (
          <div className="combine-progress" data-testid="combine-progress">
            <ProgressBar
              label="Объединяем отчёты"
              value={
                combineJob && combineJob.progress.total > 0
                  ? combineJob.progress.done / combineJob.progress.total
                  : undefined
              }
              detail={combineJob ? combineStepText(combineJob) : 'Запускаем…'}
            />
          </div>
        ) : null}

        <ErrorMessage error={actionError} testId="reports-error" />

        {reports.isPending ? (
          <Spinner label="Загружаем список отчётов…" />
        ) : reports.isError ? (
          <ErrorMessage error={reports.error} />
        ) : items.length === 0 ? (
          <div className="empty-state" data-testid="reports-empty">
            {sellerId
              ? 'У этого продавца пока нет отчётов.'
              : 'Отчётов пока нет. Загрузите первый детализированный отчёт Wildberries.'}
          </div>
        ) : (
          <div className="table-wrap">
            <table className="data-table reports-table" data-testid="reports-table">
              <thead>
                <tr>
                  <th className="col-check">
                    <input type="checkbox" aria-label="Выбрать все отчёты" checked={allSelected} onChange={toggleAll} />
                  </th>
                  <th>Отчёт</th>
                  <th>Продавец</th>
                  <th>Период</th>
                  <th className="num">Строк</th>
                  <th className="num">Реализация</th>
                  <th className="num">Прибыль</th>
                  <th>Статус</th>
                  <th>Загружен</th>
                  <th aria-label="Действия" />
                </tr>
              </thead>
              <tbody>
                {items.map((r) => (
                  <tr
                    key={r.id}
                    data-testid={`report-row-${r.id}`}
                    className={selected.has(r.id) ? 'selected' : undefined}
                  >
                    <td className="col-check">
                      <input
                        type="checkbox"
                        aria-label={`Выбрать отчёт ${r.report_number ?? r.title}`}
                        disabled={r.status === 'failed' || (r.status === 'processing' && r.task === 'upload')}
                        checked={selected.has(r.id)}
                        onChange={() => toggle(r.id)}
                      />
                    </td>
                    <td className="card-title">
                      <Link to={`/reports/${encodeURIComponent(r.id)}`} className="report-link">
                        {r.title || (r.report_number ? `Отчёт № ${r.report_number}` : 'Отчёт')}
                      </Link>
                      {r.is_combined ? (
                        <span
                          className="badge badge-combined"
                          data-testid="combined-badge"
                          title={
                            r.source_report_ids?.length
                              ? `Объединён из ${plural(r.source_report_ids.length, ['отчёта', 'отчётов', 'отчётов'])}`
                              : 'Объединённый отчёт'
                          }
                        >
                          Объединённый
                        </span>
                      ) : null}
                      {r.report_number && r.title && !r.title.includes(r.report_number) ? (
                        <div className="muted small">№ {r.report_number}</div>
                      ) : null}
                      <ReportStatusBadge report={r} />
                    </td>
                    <td data-label="Продавец">
                      {r.seller ? r.seller.name || r.seller.number : <span className="muted">—</span>}
                    </td>
                    <td className="nowrap" data-label="Период">
                      {formatPeriod(r.period_from, r.period_to)}
                    </td>
                    <td className="num card-hide">{formatInt(r.rows)}</td>
                    <td className="num" data-label="Реализация">
                      {formatRub(r.totals?.realization)}
                    </td>
                    <td className={`num${(r.totals?.profit ?? 0) < 0 ? ' negative' : ''}`} data-label="Прибыль">
                      {formatRub(r.totals?.profit)}
                    </td>
                    <td data-label="Статус">{statusText(r)}</td>
                    <td className="nowrap muted" data-label="Загружен">
                      {formatDateTime(r.created_at)}
                    </td>
                    <td className="actions">
                      <button
                        type="button"
                        className="btn btn-ghost btn-small"
                        aria-label={`Удалить отчёт ${r.report_number ?? r.title}`}
                        onClick={() => setToDelete(r)}
                      >
                        Удалить
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <LoadMore query={reports} />
          </div>
        )}
      </section>

      {toDelete ? (
        <ConfirmDialog
          title="Удалить отчёт?"
          confirmLabel="Удалить"
          danger
          busy={deleting}
          onConfirm={() => void deleteReport()}
          onCancel={() => setToDelete(null)}
          testId="delete-dialog"
        >
          <p>
            Отчёт <strong>{toDelete.title || toDelete.report_number}</strong> и его исходный файл будут удалены без
            возможности восстановления. Списанные лимиты не возвращаются.
          </p>
        </ConfirmDialog>
      ) : null}

      {askCombine ? (
        <ConfirmDialog
          title={`Объединить ${plural(selectedIds.length, ['отчёт', 'отчёта', 'отчётов'])}?`}
          confirmLabel="Объединить"
          onConfirm={() => void startCombine()}
          onCancel={() => setAskCombine(false)}
          testId="combine-dialog"
        >
          <p>
            Товары будут сложены по артикулу с учётом ручных корректировок. Исходные отчёты останутся без изменений,
            лимиты не списываются.
          </p>
          <label className="form-field">
            Название (необязательно)
            <input
              type="text"
              value={combineTitle}
              maxLength={200}
              onChange={(e) => setCombineTitle(e.target.value)}
              placeholder="Например, Декабрь 2025"
            />
          </label>
        </ConfirmDialog>
      ) : null}
    </div>
  );
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

/** Processing (with its progress) or failed (why, and that the limits came back); nothing when ready. */
export function ReportStatusBadge({ report }: { report: ReportSummary }) {
  if (report.status === 'processing') {
    const p = describeProgress(report.progress);
    return (
      <div className="status-badge status-processing" data-testid={`report-status-${report.id}`}>
        <span className="badge badge-processing">
          {report.task === 'rebuild' ? 'Пересчитывается' : 'Обрабатывается'}
        </span>
        <span className="muted small">
          {p.label}
          {p.value !== undefined ? ` · ${Math.round(p.value * 100)} %` : ''}
        </span>
      </div>
    );
  }
  if (report.status === 'failed') {
    return (
      <div className="status-badge status-failed" data-testid={`report-status-${report.id}`} role="note">
        <span className="badge badge-failed">Ошибка</span>
        <span className="small">
          {report.error?.message ?? messageFor(500, report.error?.code ?? 'processing_failed')}
          {report.refunded_rows ? ` Возвращено: ${formatInt(report.refunded_rows)} строк.` : ''}
        </span>
      </div>
    );
  }
  return null;
}

/** A report's state in words (reports still being built or failed carry a status; the rest are ready). */
export function statusText(r: ReportSummary): string {
  const status: string | undefined = r.status;
  if (status === 'building' || status === 'processing' || status === 'queued') return 'Обрабатывается';
  if (status === 'failed') return 'Ошибка';
  return 'Готов';
}
