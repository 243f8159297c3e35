import { useState, type FormEvent } from 'react';
import { FileButton } from '../components/file-import-controls';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router-dom';
import { api, saveFile } from '../api/client';
import type { CashFlow } from '../api/contract';
import { ErrorMessage } from '../components/error-message';
import { Spinner } from '../components/progress-bar';
import { ScrollBox } from '../components/scroll-box';
import { formatDate, formatDateTime, formatRub, parseNumberInput } from '../lib/format';
import { useTitle } from '../lib/use-title';
import { monthTitle } from '../../../shared/engine/months';
import { addMonths } from './pnl-page';

const STATUS: Record<CashFlow['payouts'][number]['status'], string> = {
  held: 'На проверке WB',
  approved: 'Одобрен, ждёт выплаты',
  paid: 'Выплачен',
};
const TAX_KIND: Record<CashFlow['tax_calendar'][number]['kind'], string> = {
  usn_advance: 'Аванс УСН',
  usn_year: 'УСН за год',
};

/**
 * The range shown when none is asked: from two months before the newest month that holds a report to
 * the month after it (the last week's payout lands there) — the P&L's default answer names that month.
 */
function useRange(): { from: string; to: string } | null {
  const [params] = useSearchParams();
  const from = params.get('from');
  const to = params.get('to');
  const newest = useQuery({ queryKey: ['pnl', 'default'], queryFn: () => api.pnl({}), enabled: !from || !to });
  if (from && to) return { from, to };
  const last = newest.data?.to;
  return last ? { from: addMonths(last, -2), to: addMonths(last, 1) } : null;
}

/** Why the balance is not read (per WB connection), as the server says it. */
function BalanceNotes({ status }: { status: CashFlow['balance_status'] }) {
  if (status.notes.length === 0) return null;
  return (
    <ul className="muted small" data-testid="cash-balance-notes">
      {status.notes.map((n) => (
        <li key={`${n.wb_seller_id ?? 'none'}-${n.code}`} data-code={n.code}>
          {n.message}
          {n.at ? ` (запрос ${formatDateTime(n.at)})` : ''}
        </li>
      ))}
    </ul>
  );
}

function Balance({ balance, status }: { balance: CashFlow['balance']; status: CashFlow['balance_status'] }) {
  if (!balance)
    return (
      <>
        <p className="muted" data-testid="cash-balance-none">
          Баланса WB пока нет: выплаты ниже посчитаны по отчётам, без подтверждения балансом.
        </p>
        <BalanceNotes status={status} />
      </>
    );
  return (
    <>
      <div className="figures" data-testid="cash-balance">
        <div className="figure">
          <div className="figure-label">На балансе</div>
          <div className="figure-money">{formatRub(balance.current)}</div>
        </div>
        <div className="figure">
          <div className="figure-label">Можно вывести</div>
          <div className="figure-money">{formatRub(balance.for_withdraw)}</div>
        </div>
        <p className="muted small">
          По данным WB на {formatDateTime(balance.as_of)}
          {balance.accounts > 1 ? ` (сумма ${balance.accounts} кабинетов WB)` : ''}. Синхронизация спрашивает баланс раз
          в час.
        </p>
      </div>
      <BalanceNotes status={status} />
    </>
  );
}

/** How a payout was seen paid, in the seller's words. */
function paidNote(p: CashFlow['payouts'][number]): string | null {
  if (p.paid_by === 'balance_rise' && p.paid_on)
    return `«Можно вывести» выросло на сумму выплаты ${formatDate(p.paid_on)}`;
  if (p.paid_by === 'before_history') return 'срок выплаты прошёл до первого чтения баланса';
  return null;
}

/** Purchases from a file: the picker, then what was added and the rows that were not. */
function PurchaseImport({ onDone }: { onDone: () => void }) {
  const [imported, setImported] = useState<{ created: number; errors: Array<{ row: number; message: string }> } | null>(
    null,
  );
  const upload = useMutation({
    mutationFn: (f: File) => api.importPurchases(f),
    onSuccess: (r) => {
      setImported(r);
      onDone();
    },
  });
  return (
    <>
      <div className="cost-import">
        <FileButton
          testId="purchases-file"
          onFile={(f) => {
            setImported(null);
            upload.mutate(f);
          }}
        />
        <span className="muted small">Столбцы: Дата, Сумма, Артикул, Количество, Комментарий.</span>
        {upload.isPending ? <Spinner label="Читаем файл…" /> : null}
      </div>
      <ErrorMessage error={upload.error} />
      {imported ? (
        <div
          className={imported.errors.length ? 'alert alert-warning' : 'alert alert-success'}
          role="status"
          data-testid="purchases-import-result"
        >
          Добавлено закупок: {imported.created}.
          {imported.errors.length > 0 ? (
            <ul>
              {imported.errors.slice(0, 20).map((e) => (
                <li key={e.row}>
                  Строка {e.row}: {e.message}
                </li>
              ))}
              {imported.errors.length > 20 ? <li>…и ещё {imported.errors.length - 20}</li> : null}
            </ul>
          ) : null}
        </div>
      ) : null}
    </>
  );
}

function Purchases() {
  const client = useQueryClient();
  const list = useQuery({ queryKey: ['purchases'], queryFn: () => api.listPurchases() });
  const [date, setDate] = useState('');
  const [amount, setAmount] = useState('');
  const [comment, setComment] = useState('');
  const done = () =>
    void client
      .invalidateQueries({ queryKey: ['purchases'] })
      .then(() => client.invalidateQueries({ queryKey: ['cash-flow'] }));
  const add = useMutation({
    mutationFn: () =>
      api.createPurchase({ date, amount: parseNumberInput(amount) ?? Number.NaN, comment: comment || null }),
    onSuccess: () => {
      setAmount('');
      setComment('');
      done();
    },
  });
  const remove = useMutation({ mutationFn: (id: string) => api.deletePurchase(id), onSuccess: done });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  return (
    <section className="panel" aria-labelledby="purchases-title">
      <h2 id="purchases-title">Закупки товара</h2>
      <form className="inline-form" onSubmit={submit} data-testid="purchase-form">
        <label className="inline-label">
          Дата
          <input type="date" required value={date} onChange={(e) => setDate(e.target.value)} />
        </label>
        <label className="inline-label">
          Сумма, ₽
          <input inputMode="decimal" required value={amount} onChange={(e) => setAmount(e.target.value)} />
        </label>
        <label className="inline-label">
          Комментарий
          <input value={comment} onChange={(e) => setComment(e.target.value)} />
        </label>
        <button type="submit" className="btn btn-small" disabled={add.isPending}>
          Добавить
        </button>
      </form>
      {add.error ? <ErrorMessage error={add.error} /> : null}
      <PurchaseImport onDone={done} />
      {list.error ? <ErrorMessage error={list.error} /> : null}
      {list.data && list.data.purchases.length > 0 ? (
        <ScrollBox className="table-wrap">
          <table className="data-table" data-testid="purchases-table">
            <thead>
              <tr>
                <th>Дата</th>
                <th className="num">Сумма</th>
                <th>Артикул</th>
                <th>Комментарий</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.data.purchases.map((p) => (
                <tr key={p.id}>
                  <td>{formatDate(p.date)}</td>
                  <td className="num">{formatRub(p.amount)}</td>
                  <td>{p.article ?? '—'}</td>
                  <td>{p.comment ?? ''}</td>
                  <td>
                    <button type="button" className="btn btn-small" onClick={() => remove.mutate(p.id)}>
                      Удалить
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      ) : (
        <p className="muted">Закупок пока нет: добавьте оплату поставщику, и она войдёт в деньги месяца.</p>
      )}
    </section>
  );
}

/** «Деньги»: when WB's money arrives, what goes out by month, the next 8 weeks and the USN dates. */
export function CashFlowPage() {
  useTitle('Деньги');
  const range = useRange();
  const [exporting, setExporting] = useState(false);
  const flow = useQuery({
    queryKey: ['cash-flow', range?.from, range?.to],
    queryFn: () => api.cashFlow(range!),
    enabled: range !== null,
    placeholderData: keepPreviousData,
  });
  const exportXlsx = async () => {
    if (!range) return;
    setExporting(true);
    try {
      saveFile(await api.exportCashFlow(range));
    } finally {
      setExporting(false);
    }
  };
  const data = flow.data;
  return (
    <div className="page">
      <div className="page-head">
        <h1>Деньги</h1>
        <button type="button" className="btn btn-small" onClick={() => void exportXlsx()} disabled={!data || exporting}>
          {exporting ? 'Готовим XLSX…' : 'Скачать XLSX'}
        </button>
      </div>
      {flow.error ? <ErrorMessage error={flow.error} /> : null}
      {!data ? (
        <Spinner label="Считаем деньги…" />
      ) : (
        <>
          <p className="muted" data-testid="cash-range">
            {monthTitle(data.from)} — {monthTitle(data.to)} · на {formatDate(data.today)}
          </p>
          <section className="panel" aria-labelledby="cash-balance-title">
            <h2 id="cash-balance-title">Баланс WB</h2>
            <Balance balance={data.balance} status={data.balance_status} />
          </section>
          <section className="panel" aria-labelledby="cash-months-title">
            <h2 id="cash-months-title">По месяцам, ₽</h2>
            <ScrollBox className="table-wrap">
              <table className="data-table" data-testid="cash-months">
                <thead>
                  <tr>
                    <th>Месяц</th>
                    <th className="num">Пришло</th>
                    <th className="num">Ушло</th>
                    <th className="num">Итог месяца</th>
                    <th className="num">Нарастающим итогом</th>
                  </tr>
                </thead>
                <tbody>
                  {data.months.map((m) => (
                    <tr key={m.month}>
                      <td>{monthTitle(m.month)}</td>
                      <td className="num">{formatRub(m.inflow)}</td>
                      <td className="num">{formatRub(m.outflow)}</td>
                      <td className={`num${m.net < 0 ? ' negative' : ''}`}>{formatRub(m.net)}</td>
                      <td className={`num${m.position < 0 ? ' negative' : ''}`}>{formatRub(m.position)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollBox>
          </section>
          <section className="panel" aria-labelledby="cash-payouts-title">
            <h2 id="cash-payouts-title">Выплаты WB</h2>
            {data.payouts.length === 0 ? (
              <p className="muted">В этих месяцах нет отчётов, по которым WB платит.</p>
            ) : (
              <ScrollBox className="table-wrap">
                <table className="data-table" data-testid="cash-payouts">
                  <thead>
                    <tr>
                      <th>Неделя</th>
                      <th className="num">Сумма</th>
                      <th>Ожидается</th>
                      <th>Статус</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.payouts.map((p) => (
                      <tr key={p.report_id}>
                        <td>
                          {formatDate(p.period_from)} — {formatDate(p.period_to)}
                        </td>
                        <td className="num">{formatRub(p.amount)}</td>
                        <td>{formatDate(p.expected_date)}</td>
                        <td>
                          {STATUS[p.status]}
                          {paidNote(p) ? <div className="muted small">{paidNote(p)}</div> : null}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </ScrollBox>
            )}
          </section>
          <section className="panel" aria-labelledby="cash-forecast-title">
            <h2 id="cash-forecast-title">Следующие 8 недель, ₽</h2>
            <ScrollBox className="table-wrap">
              <table className="data-table" data-testid="cash-forecast">
                <thead>
                  <tr>
                    <th>Неделя с</th>
                    <th className="num">Придёт</th>
                    <th className="num">Уйдёт</th>
                  </tr>
                </thead>
                <tbody>
                  {data.forecast.map((w) => (
                    <tr key={w.week_start}>
                      <td>{formatDate(w.week_start)}</td>
                      <td className="num">{formatRub(w.inflow)}</td>
                      <td className="num">{formatRub(w.outflow)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollBox>
          </section>
          <section className="panel" aria-labelledby="cash-tax-title">
            <h2 id="cash-tax-title">Налоговый календарь УСН</h2>
            <ul data-testid="cash-tax">
              {data.tax_calendar.map((t) => (
                <li key={`${t.kind}-${t.period}`}>
                  {formatDate(t.due_date)}: {TAX_KIND[t.kind]} за {t.period} — {formatRub(t.amount)}
                </li>
              ))}
            </ul>
          </section>
          <Purchases />
        </>
      )}
    </div>
  );
}
