import { useMemo, useState } from 'react';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router-dom';
import { api } from '../api/client';
import { messageFor } from '../api/errors';
import type { ReportSummary } from '../api/contract';
import { ErrorMessage } from '../components/error-message';
import { LoadMore } from '../components/load-more';
import { ConfirmDialog } from '../components/modal';
import { Spinner } from '../components/progress-bar';
import { CombineDialog, CombineProgress, ReportSelectionBar } from '../components/report-selection-bar';
import { UploadPanel } from '../components/upload-panel';
import { ReconciliationBadge, WbSourceBadge } from '../components/wb-reconciliation';
import { formatDateTime, formatInt, formatPeriod, formatRub, plural } from '../lib/format';
import { useCombineJob } from '../lib/use-combine-job';
import { useReportActions } from '../lib/use-report-actions';
import { staleLine } from '../lib/stale-line';
import { useReportSelection } from '../lib/use-report-selection';
import { useTitle } from '../lib/use-title';
import { describeProgress } from '../lib/uploads';
import { SellerOptions } from '../components/seller-options';

const POLL_MS = 1000;

/** Before combining or exporting stale reports: the seller confirms (their numbers are out of date). */
function confirmStale(items: ReadonlyArray<ReportSummary>, ids: readonly string[]): boolean {
  const stale = items.filter((r) => ids.includes(r.id) && r.stale);
  if (stale.length === 0) return true;
  const names = stale.map((r) => `«${r.title}»`).join(', ');
  return window.confirm(
    `${stale.length === 1 ? 'Отчёт' : 'Отчёты'} ${names} ${stale.length === 1 ? 'устарел' : 'устарели'}: ` +
      'себестоимость, налоги или исходные отчёты изменились после сборки. Использовать старые цифры?',
  );
}

export function ReportsPage() {
  useTitle('Отчёты');
  const [params, setParams] = useSearchParams();
  const sellerId = params.get('seller') ?? '';

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

  // One error line for every action of the page: each clears it when it starts.
  const [actionError, setActionError] = useState<unknown>(null);
  const selection = useReportSelection(items);
  const { selectedIds } = selection;
  const actions = useReportActions(setActionError);
  const combine = useCombineJob({ setError: setActionError, onDone: selection.clear });
  const [toDelete, setToDelete] = useState<ReportSummary | null>(null);
  const [askCombine, setAskCombine] = useState(false);
  const [combineTitle, setCombineTitle] = useState('');
  const queryClient = useQueryClient();
  const staleItems = items.filter((r) => r.stale && r.status === 'ready');
  const [rebuildingStale, setRebuildingStale] = useState(false);
  // Uploaded reports are rebuilt from their files in one request; combined ones are recombined.
  const rebuildStale = async () => {
    setActionError(null);
    setRebuildingStale(true);
    try {
      const singles = staleItems.filter((r) => !r.is_combined).map((r) => r.id);
      if (singles.length > 0) await api.rebuildMany(singles);
      for (const r of staleItems.filter((x) => x.is_combined)) await api.recombine(r.id);
    } catch (e) {
      setActionError(e);
    } finally {
      setRebuildingStale(false);
      await queryClient.invalidateQueries({ queryKey: ['reports'] });
    }
  };

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
              <SellerOptions empty="Все продавцы" />
            </select>
          </label>
        </div>

        {items.length > 0 ? (
          <ReportSelectionBar
            count={selectedIds.length}
            combining={combine.combining}
            exporting={actions.exporting}
            onCombine={() => {
              if (confirmStale(items, selectedIds)) setAskCombine(true);
            }}
            onExport={() => {
              if (confirmStale(items, selectedIds)) void actions.exportSummary(selectedIds);
            }}
            onClear={selection.clear}
          />
        ) : null}

        {staleItems.length > 0 ? (
          <div className="stale-actions" data-testid="stale-actions">
            <button
              type="button"
              className="btn btn-secondary"
              data-testid="rebuild-stale-button"
              disabled={rebuildingStale}
              onClick={() => void rebuildStale()}
            >
              {rebuildingStale ? 'Пересобираем…' : `Пересобрать устаревшие (${staleItems.length})`}
            </button>
          </div>
        ) : null}

        {combine.combining ? <CombineProgress job={combine.job} /> : null}

        <ErrorMessage error={actionError} testId="reports-error" />

        {actions.exportedStale.length > 0 ? (
          <div className="alert alert-warning" role="status" data-testid="summary-stale-note">
            {staleLine('В сводную вошли устаревшие отчёты', actions.exportedStale, items)} Их цифры посчитаны до
            последних изменений: пересоберите их и выгрузите сводную снова.
          </div>
        ) : null}

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
                    <input
                      type="checkbox"
                      aria-label="Выбрать все отчёты"
                      checked={selection.allSelected}
                      onChange={selection.toggleAll}
                    />
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
                    className={selection.isSelected(r.id) ? 'selected' : undefined}
                  >
                    <td className="col-check">
                      <input
                        type="checkbox"
                        aria-label={`Выбрать отчёт ${r.report_number ?? r.title}`}
                        disabled={r.status === 'failed' || (r.status === 'processing' && r.task === 'upload')}
                        checked={selection.isSelected(r.id)}
                        onChange={() => selection.toggle(r.id)}
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
                      {r.stale ? (
                        <span
                          className="badge badge-stale"
                          data-testid={`stale-badge-${r.id}`}
                          title={r.stale_reason ?? 'Пересоберите отчёт, чтобы обновить цифры'}
                        >
                          Устарел
                        </span>
                      ) : null}
                      <WbSourceBadge report={r} />
                      <ReconciliationBadge reconciliation={r.reconciliation} />
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
          busy={actions.deleting}
          onConfirm={() => {
            const report = toDelete;
            void actions.deleteReport(report).then(() => setToDelete(null));
          }}
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
        <CombineDialog
          count={selectedIds.length}
          title={combineTitle}
          onTitle={setCombineTitle}
          onConfirm={() => {
            setAskCombine(false);
            void combine.start(selectedIds, combineTitle);
          }}
          onCancel={() => setAskCombine(false)}
        />
      ) : null}
    </div>
  );
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
function statusText(r: ReportSummary): string {
  const status: string | undefined = r.status;
  if (status === 'building' || status === 'processing' || status === 'queued') return 'Обрабатывается';
  if (status === 'failed') return 'Ошибка';
  return 'Готов';
}
