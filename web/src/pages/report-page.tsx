import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { useQuery, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { Link, useLocation, useParams } from 'react-router-dom';
import { api, saveFile } from '../api/client';
import { ApiError, messageFor, pluralRows } from '../api/errors';
import type { Item, Page, RebuildResult, Report, ReportSummary, Values } from '../api/contract';
import { CombinedStaleBanner } from '../components/combined-stale-banner';
import { CostsPendingNote } from '../components/costs-pending-note';
import type { CombinedFromState } from '../lib/use-combine-job';
import { staleLine } from '../lib/stale-line';
import { AllocationPanel, CostAttributionPanel, MissingCostBanner } from '../components/report-trust';
import { ErrorMessage } from '../components/error-message';
import { ReportMetaForm } from '../components/report-meta-form';
import { ItemsTable } from '../components/items-table';
import { ConfirmDialog, Modal } from '../components/modal';
import { ProgressBar, Spinner } from '../components/progress-bar';
import { ReportCharts } from '../components/report-charts';
import { ScrollBox } from '../components/scroll-box';
import { TargetPriceCalculator } from '../components/target-price';
import { describeTax } from '../components/tax-profile-form';
import { ReconciliationPanel, ReconciliationStatus, WbSourceBadge } from '../components/wb-reconciliation';
import { displayArticle, FIELD_BY_NAME, fieldTitle } from '../lib/fields';
import { formatByUnit, formatDateTime, formatInt, formatPercent, formatPeriod, formatRub } from '../lib/format';
import { useTitle } from '../lib/use-title';
import { describeProgress } from '../lib/uploads';
import { sellerLabel } from '../lib/seller-label';

const PROCESSING_POLL_MS = 1000;

type ReportData = { report: Report };

/** The headline figures, each with one line under it saying what it is (no tooltip needed). */
const HEADLINE: Array<{ field: string; title: string; hint: string }> = [
  { field: 'realization', title: 'Реализация', hint: 'Продажи по цене для покупателя минус возвраты' },
  {
    field: 'for_pay',
    title: 'К перечислению',
    hint: 'За товар, после комиссии WB, до логистики и услуг',
  },
  {
    field: 'payout',
    title: 'К выплате',
    hint: 'Итог WB: после логистики, хранения, штрафов, удержаний и займов',
  },
  { field: 'profit', title: 'Прибыль', hint: 'После всех расходов WB, себестоимости и налогов' },
  { field: 'margin', title: 'Маржа', hint: 'Прибыль / реализация' },
];

const SUMMARY_FIELDS = ['realization', 'for_pay', 'payout', 'profit'];

export function ReportPage() {
  const { id = '' } = useParams();
  // Opened by a combine: the chosen reports that were stale (use-combine-job.ts).
  const combinedFromStale = (useLocation().state as Partial<CombinedFromState> | null)?.combinedFromStale ?? [];
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: ['report', id],
    queryFn: () => api.getReport(id),
    enabled: id !== '',
    // A report the worker is on (upload or rebuild) is followed until it is ready or failed.
    refetchInterval: (q) => (q.state.data?.report.status === 'processing' ? PROCESSING_POLL_MS : false),
  });
  const loaded = query.data?.report;
  useTitle(loaded ? loaded.title || (loaded.report_number ? `Отчёт № ${loaded.report_number}` : 'Отчёт') : 'Отчёт');

  const [busy, setBusy] = useState<'export' | 'source' | 'rebuild' | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const [askRebuild, setAskRebuild] = useState(false);
  const [rebuildSummary, setRebuildSummary] = useState<{ before: Report; result: RebuildResult } | null>(null);
  // A rebuild the server accepted (202) and still runs: its summary is shown when the report is ready again.
  const [pendingRebuild, setPendingRebuild] = useState<Report | null>(null);
  const status = loaded?.status;
  useEffect(() => {
    if (!pendingRebuild || !loaded || loaded.status === 'processing') return;
    setPendingRebuild(null);
    void queryClient.invalidateQueries({ queryKey: ['reports'] });
    void queryClient.invalidateQueries({ queryKey: ['analytics'] });
    if (loaded.last_rebuild?.error) {
      setActionError(new ApiError(409, loaded.last_rebuild.error.code, loaded.last_rebuild.error.message));
      return;
    }
    setRebuildSummary({
      before: pendingRebuild,
      result: { report: loaded, dropped_manual_values: loaded.last_rebuild?.dropped_manual_values ?? [] },
    });
  }, [pendingRebuild, loaded, status, queryClient]);

  const onSave = useCallback(
    async (item: Item, field: string, value: number | null) => {
      const result = await api.setManualValue(item.item_id, field, value);
      queryClient.setQueryData<ReportData>(['report', id], (old) =>
        old
          ? {
              report: {
                ...old.report,
                totals: result.totals,
                items: old.report.items.map((i) => (i.item_id === result.item.item_id ? result.item : i)),
              },
            }
          : old,
      );
      // The list shows each report's profit.
      void queryClient.invalidateQueries({ queryKey: ['reports'] });
      return result.item;
    },
    [id, queryClient],
  );

  if (query.isPending) return <Spinner label="Загружаем отчёт…" />;
  if (query.isError) {
    const notFound = query.error instanceof ApiError && query.error.status === 404;
    return (
      <div className="page">
        {notFound ? (
          <div className="panel empty-state" data-testid="report-not-found">
            <h1>Отчёт не найден</h1>
            <p>Возможно, он удалён.</p>
          </div>
        ) : (
          <ErrorMessage error={query.error} />
        )}
        <p>
          <Link to="/reports">← К списку отчётов</Link>
        </p>
      </div>
    );
  }

  const report = query.data.report;
  if (report.status === 'failed' || (report.status === 'processing' && report.task !== 'rebuild'))
    return <ReportInProgress report={report} />;

  const run = async (kind: 'export' | 'source', action: () => Promise<void>) => {
    setBusy(kind);
    setActionError(null);
    try {
      await action();
    } catch (e) {
      setActionError(e);
    } finally {
      setBusy(null);
    }
  };

  const rebuild = async () => {
    setBusy('rebuild');
    setActionError(null);
    const before = report;
    try {
      const result = await api.rebuild(report.id);
      if (result.report.status === 'processing') {
        // Accepted: the worker rebuilds it; the page follows the report (its current items stay readable).
        setPendingRebuild(before);
        await queryClient.invalidateQueries({ queryKey: ['report', id] });
        return;
      }
      queryClient.setQueryData<ReportData>(['report', id], { report: result.report });
      void queryClient.invalidateQueries({ queryKey: ['reports'] });
      setRebuildSummary({ before, result });
    } catch (e) {
      setActionError(e);
    } finally {
      setBusy(null);
      setAskRebuild(false);
    }
  };

  const noSourceReason = report.is_combined
    ? 'У объединённого отчёта нет исходного файла: он собран из исходных отчётов и пересобирается из них, когда они меняются.'
    : 'Исходный файл этого отчёта не сохранён.';

  return (
    <div className="page report-page">
      <p className="breadcrumbs">
        <Link to="/reports">← Отчёты</Link>
      </p>
      <ReportHeader report={report}>
        <Headline totals={report.totals} />
      </ReportHeader>

      <div className="button-row report-actions">
        <button
          type="button"
          className="btn btn-primary"
          disabled={busy !== null}
          onClick={() => void run('export', async () => saveFile(await api.exportReport(report.id)))}
        >
          {busy === 'export' ? 'Готовим XLSX…' : 'Скачать XLSX'}
        </button>
        <button
          type="button"
          className="btn"
          disabled={busy !== null || !report.source_available}
          title={report.source_available ? 'Скачать файл, из которого построен отчёт' : noSourceReason}
          onClick={() => void run('source', async () => saveFile(await api.downloadSource(report.id)))}
        >
          {busy === 'source' ? 'Скачиваем…' : 'Исходный файл'}
        </button>
        {/* A combined report is rebuilt from its sources: its one «Пересобрать» is in the stale banner. */}
        {report.is_combined ? null : (
          <button
            type="button"
            className="btn"
            disabled={busy !== null || !report.source_available}
            title={
              report.source_available
                ? 'Перечитать исходный файл с текущей себестоимостью и налоговым профилем'
                : noSourceReason
            }
            onClick={() => setAskRebuild(true)}
            data-testid="rebuild-button"
          >
            {busy === 'rebuild' || pendingRebuild || report.status === 'processing' ? 'Пересобираем…' : 'Пересобрать'}
          </button>
        )}
        {!report.source_available ? (
          <span className="muted small" data-testid="no-source-reason">
            {noSourceReason}
          </span>
        ) : null}
      </div>

      <ErrorMessage error={actionError} testId="report-action-error" />

      {report.is_combined ? <CombinedStaleBanner report={report} /> : null}

      {report.is_combined && combinedFromStale.length > 0 ? (
        <div className="alert alert-warning" role="status" data-testid="combined-from-stale">
          {staleLine(
            'Отчёт собран из устаревших отчётов',
            combinedFromStale.map((s) => s.id),
            combinedFromStale,
          )}{' '}
          Их цифры посчитаны до последних изменений: пересоберите их, затем пересоберите этот отчёт.
        </div>
      ) : null}

      {report.stale && !report.is_combined ? (
        <div className="alert alert-warning stale-banner" role="status" data-testid="stale-banner">
          <span>
            Себестоимость, налоги или способ распределения расходов без артикула изменились после построения отчёта:
            цифры ниже посчитаны по прежним
            {report.source_available ? '.' : '. Исходного файла нет, поэтому пересобрать отчёт нельзя.'}
          </span>
          {report.source_available ? (
            <button
              type="button"
              className="btn btn-small btn-primary"
              onClick={() => setAskRebuild(true)}
              disabled={busy !== null}
              data-testid="stale-rebuild"
            >
              Пересобрать отчёт
            </button>
          ) : null}
        </div>
      ) : null}

      <CostsPendingNote kinds={report.costs_pending} />

      <MissingCostBanner warnings={report.warnings} />

      {report.warnings?.some((w) => w.code !== 'missing_cost_price') ? (
        <div className="alert alert-warning" role="status" data-testid="warnings">
          <strong>Обратите внимание:</strong>
          <ul>
            {report.warnings
              .filter((w) => w.code !== 'missing_cost_price')
              .map((w, i) => (
                <li key={`${w.code}-${i}`}>{w.message}</li>
              ))}
          </ul>
        </div>
      ) : null}

      <ReconciliationPanel reconciliation={report.reconciliation} />

      <ReportCharts items={report.items} totals={report.totals} />

      <section className="panel panel-table" aria-labelledby="items-title">
        <h2 id="items-title">Товары</h2>
        <ItemsTable
          items={report.items}
          totals={report.totals}
          onSave={onSave}
          articleHref={(article) => unitEconomicsHref(article, report.seller?.id ?? null)}
        />
      </section>

      <TargetPriceCalculator items={report.items} />

      <CostAttributionPanel attribution={report.cost_attribution} items={report.items} />

      <AllocationPanel allocation={report.allocation} />

      {report.commission_by_category?.length ? <CommissionByCategory report={report} /> : null}

      {askRebuild ? (
        <ConfirmDialog
          title="Пересобрать отчёт?"
          confirmLabel="Пересобрать"
          busy={busy === 'rebuild'}
          onConfirm={() => void rebuild()}
          onCancel={() => setAskRebuild(false)}
          testId="rebuild-dialog"
        >
          <p>
            Отчёт будет заново построен из исходного файла с текущей себестоимостью и налоговым профилем. Ручные
            корректировки сохранятся для артикулов, которые есть в файле. Лимиты не списываются.
          </p>
        </ConfirmDialog>
      ) : null}

      {rebuildSummary ? <RebuildSummary {...rebuildSummary} onClose={() => setRebuildSummary(null)} /> : null}
    </div>
  );
}

/** Titles of the combined report's sources, from whatever report lists are already loaded. */
function useKnownTitles(): Map<string, string> {
  const queryClient = useQueryClient();
  const titles = new Map<string, string>();
  for (const [, data] of queryClient.getQueriesData<InfiniteData<Page<ReportSummary>>>({ queryKey: ['reports'] })) {
    for (const page of data?.pages ?? []) {
      for (const r of page.items) titles.set(r.id, r.title || (r.report_number ? `Отчёт № ${r.report_number}` : r.id));
    }
  }
  return titles;
}

/** The title, the reconciliation's one line, then `children` (the headline figures: the answer first), then the facts. */
function ReportHeader({ report, children }: { report: Report; children: ReactNode }) {
  const titles = useKnownTitles();
  return (
    <header className="report-head">
      <div>
        <h1 data-testid="report-title">
          {report.title || (report.report_number ? `Отчёт № ${report.report_number}` : 'Отчёт')}
          {report.is_combined ? <span className="badge badge-combined">Объединённый</span> : null}
          <WbSourceBadge report={report} />
        </h1>
        <ReconciliationStatus reconciliation={report.reconciliation} />
        {children}
        <dl className="facts">
          {report.report_number ? (
            <div>
              <dt>Номер отчёта</dt>
              <dd data-testid="report-number">{report.report_number}</dd>
            </div>
          ) : null}
          <div>
            <dt>Продавец</dt>
            <dd data-testid="report-seller">{report.seller ? sellerLabel(report.seller) : '—'}</dd>
          </div>
          <div>
            <dt>Период</dt>
            <dd data-testid="report-period">{formatPeriod(report.period_from, report.period_to)}</dd>
          </div>
          <div>
            <dt>Строк</dt>
            <dd data-testid="report-rows">{formatInt(report.rows)}</dd>
          </div>
          <div>
            <dt>Налоги</dt>
            <dd>{describeTax(report.tax_profile)}</dd>
          </div>
          <div>
            <dt>{report.rebuilt_at ? 'Пересобран' : 'Построен'}</dt>
            <dd>{formatDateTime(report.rebuilt_at || report.created_at)}</dd>
          </div>
        </dl>
        <ReportMetaForm report={report} />
        {report.is_combined && report.source_report_ids?.length ? (
          <p className="sources" data-testid="report-sources">
            Объединён из отчётов:{' '}
            {report.source_report_ids.map((sid, i) => (
              <span key={sid}>
                {i > 0 ? ', ' : ''}
                <Link to={`/reports/${encodeURIComponent(sid)}`}>{titles.get(sid) ?? `отчёт ${sid}`}</Link>
              </span>
            ))}
          </p>
        ) : null}
      </div>
    </header>
  );
}

/** The page of an article's unit economics over its last weeks, of the report's seller. */
function unitEconomicsHref(article: string, sellerId: string | null): string {
  return `/articles/${encodeURIComponent(article)}/unit-economics${sellerId ? `?seller_id=${encodeURIComponent(sellerId)}` : ''}`;
}

function Headline({ totals }: { totals: Values }) {
  return (
    <section className="figures" aria-label="Итоги отчёта">
      {HEADLINE.map(({ field, title, hint }) => {
        const value = totals[field];
        const text = field === 'margin' ? formatPercent(value) : formatRub(value);
        return (
          <div key={field} className={`figure figure-${field}`}>
            <div className="figure-title">{title}</div>
            <div
              className={`figure-value${typeof value === 'number' && value < 0 ? ' negative' : ''}`}
              data-testid={`figure-${field}`}
            >
              {text}
            </div>
            <div className="figure-hint" data-testid={`figure-hint-${field}`}>
              {hint}
            </div>
          </div>
        );
      })}
    </section>
  );
}

/**
 * Categories to show: an empty category with nothing in it (rows without an article, e.g. storage)
 * is left out; an empty one with money in it is named.
 */
function commissionRows(report: Report) {
  return report.commission_by_category
    .filter((c) => c.category !== '' || Math.abs(c.realization) >= 0.005 || Math.abs(c.commission) >= 0.005)
    .map((c) => ({ ...c, label: c.category || 'Без категории' }));
}

function CommissionByCategory({ report }: { report: Report }) {
  const rows = commissionRows(report);
  if (rows.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="commission-title">
      <h2 id="commission-title">Комиссия WB по категориям</h2>
      <ScrollBox className="table-wrap">
        <table className="data-table" data-testid="commission-table">
          <thead>
            <tr>
              <th>Категория</th>
              <th className="num">Реализация, ₽</th>
              <th className="num">Комиссия WB, ₽</th>
              <th className="num">Комиссия / реализация</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.category}>
                <td>{c.label}</td>
                <td className="num">{formatByUnit('money', c.realization)}</td>
                <td className="num">{formatByUnit('money', c.commission)}</td>
                <td className="num">{formatPercent(c.percent)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </section>
  );
}

function RebuildSummary({ before, result, onClose }: { before: Report; result: RebuildResult; onClose: () => void }) {
  const after = result.report;
  const changes = SUMMARY_FIELDS.map((f) => ({ field: f, before: before.totals[f], after: after.totals[f] })).filter(
    (c) => Math.round((c.before ?? 0) * 100) !== Math.round((c.after ?? 0) * 100),
  );
  const articlesBefore = before.items.length;
  const articlesAfter = after.items.length;
  const dropped = result.dropped_manual_values ?? [];
  return (
    <Modal
      title="Отчёт пересобран"
      onClose={onClose}
      testId="rebuild-summary"
      actions={
        <button type="button" className="btn btn-primary" onClick={onClose}>
          Понятно
        </button>
      }
    >
      {changes.length === 0 && articlesBefore === articlesAfter ? (
        <p>Итоги не изменились.</p>
      ) : (
        <>
          <p>Что изменилось:</p>
          <ul className="change-list">
            {changes.map((c) => (
              <li key={c.field}>
                {fieldTitle(c.field)}: {formatRub(c.before)} → <strong>{formatRub(c.after)}</strong>
              </li>
            ))}
            {articlesBefore !== articlesAfter ? (
              <li>
                Артикулов: {formatInt(articlesBefore)} → <strong>{formatInt(articlesAfter)}</strong>
              </li>
            ) : null}
          </ul>
        </>
      )}
      {dropped.length > 0 ? (
        <>
          <p className="alert alert-warning">Эти ручные корректировки удалены — их артикулов больше нет в отчёте:</p>
          <ul className="change-list" data-testid="dropped-manual-values">
            {dropped.map((d, i) => (
              <li key={`${d.article}-${d.field}-${i}`}>
                {displayArticle(d.article)} · {fieldTitle(d.field)}:{' '}
                {formatByUnit(FIELD_BY_NAME.get(d.field)?.unit ?? 'money', d.value)}
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p className="muted">Все ручные корректировки сохранены.</p>
      )}
    </Modal>
  );
}

/** A report the worker is still building, or one that failed: what happens, or why not. */
function ReportInProgress({ report }: { report: Report }) {
  const p = describeProgress(report.progress);
  return (
    <div className="page report-page">
      <p className="breadcrumbs">
        <Link to="/reports">← Отчёты</Link>
      </p>
      <div className="panel" data-testid={report.status === 'failed' ? 'report-failed' : 'report-processing'}>
        <h1>{report.title || (report.report_number ? `Отчёт № ${report.report_number}` : 'Отчёт')}</h1>
        {report.status === 'failed' ? (
          <div className="alert alert-error" role="alert">
            <p>{report.error?.message ?? messageFor(500, report.error?.code ?? 'processing_failed')}</p>
            {report.refunded_rows ? <p>Лимиты возвращены: {pluralRows(report.refunded_rows)}.</p> : null}
          </div>
        ) : (
          <>
            <ProgressBar label={p.label} value={p.value} testId="report-progress" />
            <p className="muted">
              Отчёт на {pluralRows(report.rows)} обрабатывается. Страницу можно закрыть: обработка продолжится.
            </p>
          </>
        )}
      </div>
    </div>
  );
}
