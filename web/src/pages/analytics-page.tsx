import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router-dom';
import { api, saveFile } from '../api/client';
import type { Analytics, AnalyticsFigures, AnalyticsParams } from '../api/contract';
import { ArticleHistoryChart, ddmm, MarginGroupsChart, SERIES, WeeksChart } from '../components/analytics-charts';
import { ArticlesTable } from '../components/articles-table';
import { ErrorMessage } from '../components/error-message';
import { Spinner } from '../components/progress-bar';
import { displayArticle } from '../lib/fields';
import { formatDate, formatInt, formatPercent, formatRub } from '../lib/format';
import { useNarrowScreen } from '../lib/use-narrow-screen';
import { useTitle } from '../lib/use-title';
import { PeriodRangeForm } from '../components/period-range-form';
import { PhoneCollapsible } from '../components/phone-collapsible';
import { SellerOptions } from '../components/seller-options';
import { TaxThresholdBanner } from '../components/tax-threshold-banner';

const PRESETS = [4, 12, 26, 52] as const;

/** YYYY-MM-DD ± days (UTC calendar). */
function addDays(d: string, days: number): string {
  return new Date(Date.parse(`${d}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** The range of the last `weeks` weeks ending with the newest week that has a report. */
export function presetRange(lastWeek: string, weeks: number): { from: string; to: string } {
  return { from: addDays(lastWeek, -7 * (weeks - 1)), to: addDays(lastWeek, 6) };
}

interface FigureDef {
  key: keyof AnalyticsFigures;
  title: string;
  unit: 'money' | 'qty' | 'percent';
  /** A rise is bad (costs, returns): red up, green down. */
  cost?: boolean;
}

const FIGURES: FigureDef[] = [
  { key: 'realization', title: 'Реализация', unit: 'money' },
  { key: 'payout', title: 'К выплате', unit: 'money' },
  { key: 'profit', title: 'Прибыль', unit: 'money' },
  { key: 'margin', title: 'Маржа', unit: 'percent' },
  { key: 'expenses', title: 'Расходы', unit: 'money', cost: true },
  { key: 'sales_qty', title: 'Продажи, шт', unit: 'qty' },
  { key: 'returns_qty', title: 'Возвраты, шт', unit: 'qty', cost: true },
];

const fmt = (unit: FigureDef['unit'], v: number | null) =>
  unit === 'money' ? formatRub(v) : unit === 'qty' ? formatInt(v) : formatPercent(v);

function Change({ def, change }: { def: FigureDef; change: number | null }) {
  if (change === null) return <span className="change muted">нет данных для сравнения</span>;
  if (change === 0) return <span className="change muted">без изменений</span>;
  const up = change > 0;
  const good = def.cost ? !up : up;
  const text =
    def.key === 'margin'
      ? `${up ? '+' : '−'}${formatPercent(Math.abs(change)).replace(' %', ' п.п.')}`
      : `${up ? '+' : '−'}${formatPercent(Math.abs(change))}`;
  return (
    <span className={`change ${good ? 'change-good' : 'change-bad'}`} data-testid={`change-${def.key}`}>
      <span aria-hidden="true">{up ? '▲' : '▼'}</span> {text}
    </span>
  );
}

/** Whether the previous range had anything to compare with (no report there: every figure 0 or empty). */
export function hasPrevious(data: Pick<Analytics, 'previous'>): boolean {
  return FIGURES.some((def) => {
    const v = data.previous[def.key];
    return v !== null && v !== 0;
  });
}

/** While a report of the range is still processing, the page asks again this often (it then counts). */
export const PROCESSING_POLL_MS = 5_000;
const pollWhileProcessing = (q: { state: { data?: Analytics } }) =>
  q.state.data?.warnings.some((w) => w.code === 'report_processing') ? PROCESSING_POLL_MS : false;

function Figures({ data }: { data: Analytics }) {
  const previous = hasPrevious(data);
  return (
    <div className="figures" data-testid="analytics-figures">
      {FIGURES.map((def) => (
        <div key={def.key} className={`figure${def.key === 'profit' ? ' figure-profit' : ''}`}>
          <div className="figure-title">{def.title}</div>
          <div
            className={`figure-value${(data.totals[def.key] ?? 0) < 0 ? ' negative' : ''}`}
            data-testid={`figure-${def.key}`}
          >
            {fmt(def.unit, data.totals[def.key])}
          </div>
          <div className="figure-change">
            <Change def={def} change={data.previous.change[def.key]} />
          </div>
          {previous ? (
            <div
              className="muted small"
              title="Тот же показатель за период той же длины перед выбранным"
              data-testid={`previous-${def.key}`}
            >
              было {fmt(def.unit, data.previous[def.key])}
            </div>
          ) : null}
        </div>
      ))}
    </div>
  );
}

function Warnings({ data }: { data: Analytics }) {
  if (data.warnings.length === 0) return null;
  const missing = data.warnings.filter((w) => w.code === 'missing_week');
  const other = data.warnings.filter((w) => w.code !== 'missing_week');
  return (
    <div className="alert alert-warning" role="status" data-testid="analytics-warnings">
      {missing.length > 0 ? (
        <p>
          <strong>Не хватает недель:</strong> {missing.map((w) => w.message).join('; ')}.{' '}
          <Link to="/reports">Загрузите эти отчёты</Link>, чтобы сравнение было полным.
        </p>
      ) : null}
      {other.length > 0 ? (
        <ul>
          {other.map((w, i) => (
            <li key={`${w.code}-${i}`} data-code={w.code}>
              {w.message}
              {typeof w.details.report_id === 'string' && w.code !== 'duplicate_report' ? (
                <>
                  {' '}
                  <Link to={`/reports/${encodeURIComponent(w.details.report_id)}`}>открыть отчёт</Link>
                </>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function AnalyticsPage() {
  useTitle('Аналитика');
  const [params, setParams] = useSearchParams();
  const sellerId = params.get('seller') ?? '';
  const preset = params.get('weeks') ?? '';
  const custom = { from: params.get('from') ?? '', to: params.get('to') ?? '' };
  const article = params.get('article');
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<unknown>(null);
  const narrow = useNarrowScreen();

  // The default range (the last 12 weeks with reports) also tells where the newest week is.
  const base = useQuery({
    queryKey: ['analytics', 'default', sellerId],
    queryFn: () => api.analytics({ seller_id: sellerId || null }),
    refetchInterval: pollWhileProcessing,
  });
  const lastWeek = base.data?.available.last_week ?? null;
  let range: { from: string; to: string } | null = null;
  if (custom.from && custom.to) range = custom;
  else if (preset && lastWeek) range = presetRange(lastWeek, Number(preset));
  const q: AnalyticsParams = { seller_id: sellerId || null, ...(range ?? {}) };
  const ranged = useQuery({
    queryKey: ['analytics', q.from, q.to, sellerId],
    queryFn: () => api.analytics(q),
    enabled: range !== null,
    placeholderData: keepPreviousData,
    refetchInterval: pollWhileProcessing,
  });
  const history = useQuery({
    queryKey: ['analytics', 'history', q.from, q.to, sellerId, article],
    queryFn: () => api.analytics({ ...q, article: article ?? '' }),
    enabled: article !== null && (range === null || ranged.data !== undefined),
  });
  const data = range ? ranged.data : base.data;
  const error = range ? ranged.error : base.error;
  // The VAT threshold of the year so far (USN sellers): a warning from 80 %, the day VAT applies once crossed.
  const thresholds = useQuery({
    queryKey: ['tax-thresholds', sellerId],
    queryFn: () => api.taxThresholds({ seller_id: sellerId || null }),
  });

  // The picker opens on the range shown (the weeks that hold reports), not on empty inputs.
  const pickerStart = custom.from && custom.to ? custom : (data?.range ?? custom);

  const set = (patch: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(patch)) {
      if (v === null || v === '') next.delete(k);
      else next.set(k, v);
    }
    setParams(next, { replace: true });
  };

  const exportXlsx = async () => {
    if (!data) return;
    setExporting(true);
    setExportError(null);
    try {
      saveFile(await api.exportAnalytics({ from: data.range.from, to: data.range.to, seller_id: sellerId || null }));
    } catch (e) {
      setExportError(e);
    } finally {
      setExporting(false);
    }
  };

  return (
    <div className="page analytics-page">
      <div className="page-head">
        <h1>Аналитика</h1>
        <p className="muted">
          Недели рядом, сравнение с прошлым периодом, ABC и группы маржи — по загруженным отчётам, с вашими
          корректировками и себестоимостью.
        </p>
      </div>

      <PhoneCollapsible
        narrow={narrow}
        summary={`Период: ${data ? `${formatDate(data.range.from)} — ${formatDate(data.range.to)}` : '…'} · изменить`}
      >
        <section className="panel analytics-controls" aria-label="Период и продавец">
          <div className="tabs" role="tablist" aria-label="Период">
            <button
              type="button"
              role="tab"
              aria-selected={!preset && !custom.from}
              className={!preset && !custom.from ? 'tab active' : 'tab'}
              onClick={() => set({ weeks: null, from: null, to: null })}
              title="Последние 12 недель, за которые есть отчёты"
            >
              12 недель с отчётами
            </button>
            {PRESETS.map((n) => (
              <button
                key={n}
                type="button"
                role="tab"
                aria-selected={preset === String(n) && !custom.from}
                className={preset === String(n) && !custom.from ? 'tab active' : 'tab'}
                onClick={() => set({ weeks: String(n), from: null, to: null })}
                disabled={!lastWeek}
                data-testid={`preset-${n}`}
              >
                {n} нед.
              </button>
            ))}
          </div>
          <PeriodRangeForm
            key={`${pickerStart.from}:${pickerStart.to}`}
            kind="date"
            initial={pickerStart}
            labels={{ from: 'Начало периода', to: 'Конец периода' }}
            onSubmit={({ from, to }) => set({ from, to, weeks: null })}
          />
          <label className="inline-label">
            Продавец
            <select value={sellerId} onChange={(e) => set({ seller: e.target.value })} data-testid="seller-filter">
              <SellerOptions empty="Все продавцы" />
            </select>
          </label>
          <button
            type="button"
            className="btn btn-small"
            onClick={() => void exportXlsx()}
            disabled={!data || exporting}
          >
            {exporting ? 'Готовим XLSX…' : 'Скачать XLSX'}
          </button>
        </section>
      </PhoneCollapsible>
      <ErrorMessage error={error ?? exportError} testId="analytics-error" />

      {!data ? (
        error ? null : (
          <Spinner label="Считаем аналитику…" />
        )
      ) : data.available.report_count === 0 ? (
        <div className="panel empty-state" data-testid="analytics-empty">
          <h2>Пока нечего сравнивать</h2>
          <p>
            Загрузите еженедельные детализированные отчёты Wildberries на странице <Link to="/reports">«Отчёты»</Link>:
            здесь появятся недели рядом, сравнение с прошлым периодом, ABC-анализ и группы маржи.
          </p>
        </div>
      ) : (
        <>
          <p className="muted" data-testid="analytics-range">
            {formatDate(data.range.from)} — {formatDate(data.range.to)}, сравнение с{' '}
            {formatDate(data.previous_range.from)} — {formatDate(data.previous_range.to)} · отчётов в периоде:{' '}
            {formatInt(new Set(data.weeks.flatMap((w) => w.report_ids)).size)}
          </p>
          {data.available.report_count === 1 ? (
            <div className="alert alert-info" role="status" data-testid="analytics-partial">
              Загружен один отчёт. Загрузите отчёты за соседние недели, чтобы видеть динамику и сравнение с прошлым
              периодом.
            </div>
          ) : null}
          <section className="panel" aria-labelledby="weeks-title">
            <div className="panel-head">
              <h2 id="weeks-title">По неделям, ₽</h2>
              <div className="legend" aria-hidden="true">
                {SERIES.map((s) => (
                  <span key={s.key} className="legend-item">
                    <span className={`legend-swatch ${s.className}`} />
                    {s.title}
                  </span>
                ))}
                <span className="legend-item">
                  <span className="legend-swatch week-missing" />
                  нет отчёта
                </span>
              </div>
            </div>
            <div className="chart-wrap" data-testid="weeks-trend">
              <WeeksChart weeks={data.weeks} narrow={narrow} />
            </div>
          </section>

          <Figures data={data} />
          <TaxThresholdBanner thresholds={thresholds.data?.thresholds ?? []} quietBelow />
          <Warnings data={data} />

          <section className="panel" aria-labelledby="groups-title">
            <div className="panel-head">
              <h2 id="groups-title">Группы маржи</h2>
            </div>
            <div className="chart-wrap">
              <MarginGroupsChart groups={data.margin_groups} narrow={narrow} />
            </div>
          </section>

          {article !== null ? (
            <section className="panel" aria-labelledby="history-title" data-testid="article-history">
              <div className="panel-head">
                <h2 id="history-title">Прибыль по неделям: {displayArticle(article)}</h2>
                <button type="button" className="btn btn-ghost btn-small" onClick={() => set({ article: null })}>
                  Закрыть
                </button>
              </div>
              {history.data?.history ? (
                <div className="chart-wrap">
                  <ArticleHistoryChart history={history.data.history} narrow={narrow} />
                </div>
              ) : history.error ? (
                <ErrorMessage error={history.error} />
              ) : (
                <Spinner label="Загружаем историю…" />
              )}
            </section>
          ) : null}

          <section className="panel panel-table" aria-labelledby="articles-title">
            <h2 id="articles-title">
              Артикулы за период {ddmm(data.range.from)}–{ddmm(data.range.to)}
            </h2>
            <ArticlesTable articles={data.articles} selected={article} onSelect={(a) => set({ article: a })} />
          </section>
        </>
      )}
    </div>
  );
}
