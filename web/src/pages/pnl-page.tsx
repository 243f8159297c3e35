import { useState, type FormEvent } from 'react';
import { FileButton } from '../components/file-import-controls';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router-dom';
import { api, saveFile } from '../api/client';
import type { PeriodCost, PeriodCostBody, Pnl } from '../api/contract';
import { ErrorMessage } from '../components/error-message';
import { PnlCostsPendingNote } from '../components/costs-pending-note';
import { Spinner } from '../components/progress-bar';
import { PeriodRangeForm } from '../components/period-range-form';
import { ScrollBox } from '../components/scroll-box';
import { PhoneCollapsible } from '../components/phone-collapsible';
import { SellerOptions } from '../components/seller-options';
import { TaxThresholdBanner } from '../components/tax-threshold-banner';
import { formatDate, formatPercent, formatRub, parseNumberInput } from '../lib/format';
import { useNarrowScreen } from '../lib/use-narrow-screen';
import { useTitle } from '../lib/use-title';
import { monthTitle, sinceMonth, untilMonth } from '../../../shared/engine/months';

const thisMonth = () => new Date().toISOString().slice(0, 7);
/** `month` moved by `n` months. */
export function addMonths(month: string, n: number): string {
  const i = Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1 + n;
  return `${Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`;
}

/** The newest month of the P&L that holds a report (the last month when none does): a phone opens there. */
export function latestWithData(data: Pick<Pnl, 'months'>): string | null {
  return (data.months.findLast((m) => m.covered_days > 0) ?? data.months.at(-1))?.month ?? null;
}

const CATEGORY_TITLES: Record<PeriodCost['category'], string> = {
  salaries: 'Зарплаты',
  rent: 'Аренда',
  services: 'Услуги',
  other: 'Прочее',
};

/** The statement: lines as rows, months as columns and «Итого»; on a phone one month beside «Итого». */
function PnlTable({ data, narrow }: { data: Pnl; narrow: boolean }) {
  const [picked, setPicked] = useState<string | null>(null);
  const month = picked && data.months.some((m) => m.month === picked) ? picked : latestWithData(data);
  const months = narrow ? data.months.filter((m) => m.month === month) : data.months;
  return (
    <section className="panel" aria-labelledby="pnl-title">
      <div className="panel-head">
        <h2 id="pnl-title">Отчёт о прибылях и убытках, ₽</h2>
        {narrow && data.months.length > 1 ? (
          <label className="inline-label">
            Месяц
            <select value={month ?? ''} onChange={(e) => setPicked(e.target.value)} data-testid="pnl-month-picker">
              {data.months.map((m) => (
                <option key={m.month} value={m.month}>
                  {monthTitle(m.month)}
                </option>
              ))}
            </select>
          </label>
        ) : null}
      </div>
      <ScrollBox className="pnl-scroll">
        <table className="pnl-table" data-testid="pnl-table" data-latest-month={latestWithData(data) ?? undefined}>
          <thead>
            <tr>
              <th scope="col" className="pnl-line">
                Статья
              </th>
              {months.map((m) => (
                <th key={m.month} scope="col" data-month={m.month}>
                  {monthTitle(m.month)}
                </th>
              ))}
              <th scope="col">Итого</th>
            </tr>
          </thead>
          <tbody>
            {data.lines.map((l) => (
              <tr key={l.key} className={l.sign === 0 ? 'pnl-info' : undefined} data-line={l.key}>
                <th scope="row" className="pnl-line">
                  {l.sign === -1 ? '− ' : ''}
                  {l.title}
                </th>
                {months.map((m) => (
                  <td key={m.month} data-month={m.month}>
                    {formatRub(m.lines[l.key] ?? 0)}
                  </td>
                ))}
                <td>{formatRub(data.totals.lines[l.key] ?? 0)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr className="pnl-net" data-line="net_profit">
              <th scope="row" className="pnl-line">
                Чистая прибыль
              </th>
              {months.map((m) => (
                <td key={m.month} className={m.net_profit < 0 ? 'negative' : undefined}>
                  {formatRub(m.net_profit)}
                </td>
              ))}
              <td className={data.totals.net_profit < 0 ? 'negative' : undefined} data-testid="pnl-net-total">
                {formatRub(data.totals.net_profit)}
              </td>
            </tr>
            <tr data-line="margin">
              <th scope="row" className="pnl-line">
                Рентабельность
              </th>
              {months.map((m) => (
                <td key={m.month}>{formatPercent(m.margin)}</td>
              ))}
              <td>{formatPercent(data.totals.margin)}</td>
            </tr>
            <tr className="pnl-info">
              <th scope="row" className="pnl-line">
                Дней с отчётами
              </th>
              {months.map((m) => (
                <td key={m.month}>
                  {m.covered_days} из {m.days}
                </td>
              ))}
              <td>
                {data.totals.covered_days} из {data.totals.days}
              </td>
            </tr>
          </tfoot>
        </table>
      </ScrollBox>
      <p className="muted small">
        Неделя на стыке месяцев делится по дням: например, отчёт за 26.01–01.02 — 6/7 в январь и 1/7 в февраль. Каждая
        неделя учтена один раз, копии отчётов не складываются.
      </p>
    </section>
  );
}

/** Which reports make each month and the share taken: every figure traceable to its reports. */
function Sources({ data }: { data: Pnl }) {
  const byId = new Map(data.sources.map((s) => [s.report_id, s]));
  return (
    <details className="panel" data-testid="pnl-sources">
      <summary>Из каких отчётов собраны месяцы ({data.sources.length})</summary>
      {data.months.map((m) => (
        <div key={m.month}>
          <h3>{monthTitle(m.month)}</h3>
          {m.reports.length === 0 ? <p className="muted">Отчётов нет.</p> : null}
          <ul>
            {m.reports.map((r) => {
              const s = byId.get(r.report_id);
              return (
                <li key={r.report_id}>
                  <Link to={`/reports/${encodeURIComponent(r.report_id)}`}>{s?.title ?? r.report_id}</Link>
                  {s ? ` (${formatDate(s.period_from)}–${formatDate(s.period_to)})` : ''} — {r.days} дн.,{' '}
                  {formatPercent(r.share)} отчёта
                </li>
              );
            })}
            {m.period_costs.map((c) => (
              <li key={c.id}>
                {c.name} ({CATEGORY_TITLES[c.category]}) — {formatRub(c.amount)}
              </li>
            ))}
          </ul>
        </div>
      ))}
    </details>
  );
}

const emptyDraft = {
  name: '',
  category: 'other' as PeriodCost['category'],
  amount: '',
  kind: 'monthly' as PeriodCost['kind'],
  from_month: thisMonth(),
  to_month: '',
  date: '',
};

/** The period costs: list, add, delete, import. */
function PeriodCosts({ sellerId }: { sellerId: string }) {
  const client = useQueryClient();
  const costs = useQuery({
    queryKey: ['period-costs', sellerId],
    queryFn: () => api.listPeriodCosts(sellerId || null),
  });
  const [draft, setDraft] = useState(emptyDraft);
  const [formError, setFormError] = useState<string | null>(null);
  const [imported, setImported] = useState<{ created: number; errors: Array<{ row: number; message: string }> } | null>(
    null,
  );
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ['period-costs'] });
    void client.invalidateQueries({ queryKey: ['pnl'] });
  };
  const add = useMutation({ mutationFn: (b: PeriodCostBody) => api.createPeriodCost(b), onSuccess: refresh });
  const remove = useMutation({ mutationFn: (id: string) => api.deletePeriodCost(id), onSuccess: refresh });
  const upload = useMutation({
    mutationFn: (f: File) => api.importPeriodCosts(f, sellerId || null),
    onSuccess: (r) => {
      setImported(r);
      refresh();
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const amount = parseNumberInput(draft.amount);
    if (amount === null || amount <= 0) return setFormError('Сумма — число больше нуля');
    if (Math.abs(amount * 100 - Math.round(amount * 100)) > 1e-6)
      return setFormError('Не больше 2 знаков после запятой');
    if (draft.kind === 'one_off' && !draft.date) return setFormError('Укажите дату разового расхода');
    if (draft.kind === 'monthly' && draft.to_month && draft.to_month < draft.from_month)
      return setFormError('Месяц окончания раньше месяца начала');
    setFormError(null);
    add.mutate(
      {
        name: draft.name,
        category: draft.category,
        amount,
        kind: draft.kind,
        ...(draft.kind === 'monthly'
          ? { from_month: draft.from_month, to_month: draft.to_month || null }
          : { date: draft.date }),
        seller_id: sellerId || null,
      },
      { onSuccess: () => setDraft(emptyDraft) },
    );
  };

  return (
    <section className="panel" aria-labelledby="costs-title" data-testid="period-costs">
      <div className="panel-head">
        <h2 id="costs-title">Расходы периода</h2>
      </div>
      <p className="muted small">
        Зарплаты, аренда, услуги — расходы вне отчётов WB. Ежемесячный расход входит в каждый месяц своего срока,
        разовый — в месяц своей даты.{' '}
        {sellerId ? 'Расходы этого продавца.' : 'Расходы без продавца учитываются только в P&L всех продавцов.'}
      </p>
      <ErrorMessage error={costs.error ?? remove.error} />
      {costs.data && costs.data.costs.length > 0 ? (
        <ul className="cost-list">
          {costs.data.costs.map((c) => (
            <li key={c.id} data-testid="period-cost">
              <span>
                <strong>{c.name}</strong> · {CATEGORY_TITLES[c.category]} · {formatRub(c.amount)}
                {c.kind === 'monthly'
                  ? ` в месяц ${sinceMonth(c.from_month!)}${c.to_month ? ` ${untilMonth(c.to_month)}` : ''}`
                  : ` разово ${formatDate(c.date)}`}
              </span>
              <button
                type="button"
                className="btn btn-ghost btn-small"
                onClick={() => remove.mutate(c.id)}
                aria-label={`Удалить расход «${c.name}»`}
              >
                Удалить
              </button>
            </li>
          ))}
        </ul>
      ) : costs.data ? (
        <p className="muted">Расходов пока нет.</p>
      ) : null}
      <form className="cost-form" onSubmit={submit} aria-label="Новый расход">
        <input
          value={draft.name}
          onChange={(e) => setDraft({ ...draft, name: e.target.value })}
          placeholder="Название"
          aria-label="Название"
          required
          maxLength={200}
        />
        <select
          value={draft.category}
          onChange={(e) => setDraft({ ...draft, category: e.target.value as PeriodCost['category'] })}
          aria-label="Категория"
        >
          {Object.entries(CATEGORY_TITLES).map(([k, t]) => (
            <option key={k} value={k}>
              {t}
            </option>
          ))}
        </select>
        <input
          value={draft.amount}
          onChange={(e) => setDraft({ ...draft, amount: e.target.value })}
          placeholder="Сумма, ₽"
          aria-label="Сумма, ₽"
          inputMode="decimal"
          required
        />
        <select
          value={draft.kind}
          onChange={(e) => setDraft({ ...draft, kind: e.target.value as PeriodCost['kind'] })}
          aria-label="Тип"
        >
          <option value="monthly">Ежемесячный</option>
          <option value="one_off">Разовый</option>
        </select>
        {draft.kind === 'monthly' ? (
          <>
            <label className="inline-label">
              с
              <input
                type="month"
                value={draft.from_month}
                onChange={(e) => setDraft({ ...draft, from_month: e.target.value })}
                aria-label="С месяца"
                required
              />
            </label>
            <label className="inline-label">
              по
              <input
                type="month"
                value={draft.to_month}
                onChange={(e) => setDraft({ ...draft, to_month: e.target.value })}
                aria-label="По месяц (необязательно)"
              />
            </label>
          </>
        ) : (
          <input
            type="date"
            value={draft.date}
            onChange={(e) => setDraft({ ...draft, date: e.target.value })}
            aria-label="Дата"
            required
          />
        )}
        <button type="submit" className="btn btn-small" disabled={add.isPending}>
          Добавить
        </button>
      </form>
      {formError ? (
        <p className="alert alert-error" role="alert">
          {formError}
        </p>
      ) : null}
      <ErrorMessage error={add.error} />
      <div className="cost-import">
        <FileButton testId="period-costs-file" onFile={(f) => upload.mutate(f)} />
        <span className="muted small">Столбцы: Название, Категория, Сумма, Месяц, По месяц, Дата, Тип.</span>
      </div>
      <ErrorMessage error={upload.error} />
      {imported ? (
        <div className={imported.errors.length ? 'alert alert-warning' : 'alert alert-success'} role="status">
          Добавлено расходов: {imported.created}.
          {imported.errors.length > 0 ? (
            <ul>
              {imported.errors.slice(0, 20).map((e) => (
                <li key={e.row}>
                  Строка {e.row}: {e.message}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}

export function PnlPage() {
  useTitle('P&L');
  const [params, setParams] = useSearchParams();
  const sellerId = params.get('seller') ?? '';
  // No months asked: the API answers the 3 months ending with the newest month that holds a report.
  const asked = params.get('from') && params.get('to') ? { from: params.get('from')!, to: params.get('to')! } : null;
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<unknown>(null);
  const narrow = useNarrowScreen();
  const pnl = useQuery({
    queryKey: ['pnl', asked?.from, asked?.to, sellerId],
    queryFn: () => api.pnl({ ...asked, seller_id: sellerId || null }),
    placeholderData: keepPreviousData,
  });
  const shown = asked ?? (pnl.data ? { from: pnl.data.from, to: pnl.data.to } : null);
  const { from, to } = shown ?? { from: '', to: '' };
  const q = { from, to, seller_id: sellerId || null };
  const set = (patch: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(patch)) {
      if (v === null || v === '') next.delete(k);
      else next.set(k, v);
    }
    setParams(next, { replace: true });
  };
  const year = (to || thisMonth()).slice(0, 4);
  // The newest month with a report ends the «3 месяца» preset (this month when nothing is loaded yet).
  const lastDataMonth = pnl.data ? latestWithData(pnl.data) : null;
  const anchor = lastDataMonth && pnl.data?.months.some((m) => m.covered_days > 0) ? lastDataMonth : thisMonth();
  const exportXlsx = async () => {
    setExporting(true);
    setExportError(null);
    try {
      saveFile(await api.exportPnl(q));
    } catch (e) {
      setExportError(e);
    } finally {
      setExporting(false);
    }
  };

  return (
    <div className="page pnl-page">
      <div className="page-head">
        <h1>P&amp;L по месяцам</h1>
        <p className="muted">
          Выручка, расходы WB, себестоимость, расходы периода и налоги по календарным месяцам — из загруженных отчётов.
        </p>
      </div>
      <PhoneCollapsible
        narrow={narrow}
        summary={`Период: ${from ? `${monthTitle(from)} — ${monthTitle(to)}` : '…'} · изменить`}
      >
        <section className="panel analytics-controls" aria-label="Период и продавец">
          <div className="tabs" role="tablist" aria-label="Период">
            <button
              type="button"
              role="tab"
              className="tab"
              onClick={() => set({ from: addMonths(anchor, -2), to: anchor })}
              data-testid="pnl-preset-3"
            >
              3 месяца
            </button>
            <button
              type="button"
              role="tab"
              className="tab"
              onClick={() => set({ from: `${year}-01`, to: `${year}-12` })}
            >
              {year} год
            </button>
          </div>
          <PeriodRangeForm
            key={`${from}:${to}`}
            kind="month"
            initial={{ from, to }}
            labels={{ from: 'Первый месяц', to: 'Последний месяц' }}
            onSubmit={(period) => set(period)}
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
            disabled={!pnl.data || exporting}
          >
            {exporting ? 'Готовим XLSX…' : 'Скачать XLSX'}
          </button>
        </section>
      </PhoneCollapsible>
      <ErrorMessage error={pnl.error ?? exportError} testId="pnl-error" />
      {!pnl.data ? (
        pnl.error ? null : (
          <Spinner label="Считаем P&L…" />
        )
      ) : (
        <>
          <p className="muted" data-testid="pnl-range">
            {monthTitle(pnl.data.from)} — {monthTitle(pnl.data.to)} · отчётов: {pnl.data.sources.length}
          </p>
          <PnlCostsPendingNote months={pnl.data.months} />
          {pnl.data.warnings.length > 0 ? (
            <div className="alert alert-warning" role="status" data-testid="pnl-warnings">
              <ul>
                {pnl.data.warnings.map((w, i) => (
                  <li key={`${w.code}-${i}`} data-code={w.code}>
                    {w.message}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          <PnlTable data={pnl.data} narrow={narrow} />
          <TaxThresholdBanner thresholds={pnl.data.thresholds} />
          <Sources data={pnl.data} />
        </>
      )}
      <PeriodCosts sellerId={sellerId} />
    </div>
  );
}
