import { useEffect, useMemo, useState } from 'react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { api } from '../api/client';
import { pluralRows } from '../api/errors';
import type { Seller, TaxProfile, User } from '../api/contract';
import { ErrorMessage } from '../components/error-message';
import { LoadMore } from '../components/load-more';
import { Spinner } from '../components/progress-bar';
import { describeTax, TaxProfileForm, taxProfileError } from '../components/tax-profile-form';
import { formatDateTime, formatInt } from '../lib/format';
import { useTitle } from '../lib/use-title';

const FALLBACK_TAX: TaxProfile = { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 };

/**
 * Saving one settings form: `check` first (a message stops the save), then `send`; busy while it
 * runs, the failure or "saved" after. Any edit calls `edited` so "saved" does not outlive the change.
 */
function useSave(check: () => string | null, send: () => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const [invalid, setInvalid] = useState<string | null>(null);

  const save = async () => {
    const problem = check();
    setInvalid(problem);
    if (problem) return;
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      await send();
      setSaved(true);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return { busy, error, saved, invalid, save, edited: () => setSaved(false) };
}

/** The refusal, the failure, the save button and "saved" under a settings form. */
function SaveRow({ saving, small, testId }: { saving: ReturnType<typeof useSave>; small?: boolean; testId?: string }) {
  return (
    <>
      {saving.invalid ? (
        <div className="alert alert-error" role="alert">
          {saving.invalid}
        </div>
      ) : null}
      <ErrorMessage error={saving.error} />
      <div className="button-row">
        <button
          type="button"
          className={small ? 'btn btn-primary btn-small' : 'btn btn-primary'}
          onClick={saving.save}
          disabled={saving.busy}
          data-testid={testId}
        >
          {saving.busy ? 'Сохраняем…' : 'Сохранить'}
        </button>
        {saving.saved ? (
          <span className="save-state" role="status">
            ✓ Сохранено
          </span>
        ) : null}
      </div>
    </>
  );
}

export function SettingsPage() {
  useTitle('Настройки');
  const me = useQuery({ queryKey: ['me'], queryFn: api.me });
  return (
    <div className="page">
      <div className="page-head">
        <h1>Настройки</h1>
      </div>
      {me.isPending ? (
        <Spinner label="Загружаем профиль…" />
      ) : me.isError ? (
        <ErrorMessage error={me.error} />
      ) : (
        <>
          <LimitsPanel user={me.data.user} />
          <DefaultTaxPanel user={me.data.user} />
          <SellersPanel />
          <LimitHistoryPanel />
        </>
      )}
    </div>
  );
}

function LimitsPanel({ user }: { user: User }) {
  const initial = Math.max(user.initial_limits || 0, user.limits);
  const used = Math.max(0, initial - user.limits);
  const share = initial > 0 ? used / initial : 0;
  return (
    <section className="panel" aria-labelledby="limits-title">
      <h2 id="limits-title">Лимит строк</h2>
      <p>
        Осталось <strong data-testid="limits-left">{formatInt(user.limits)}</strong> из {formatInt(initial)} строк.
        Каждая строка загруженного отчёта списывает одну единицу лимита; объединение и пересборка лимит не тратят.
      </p>
      <div
        className={`usage-bar${share > 0.9 ? ' danger' : share > 0.7 ? ' warn' : ''}`}
        role="progressbar"
        aria-label="Использовано строк"
        aria-valuemin={0}
        aria-valuemax={initial}
        aria-valuenow={used}
        data-testid="limits-bar"
      >
        <div className="usage-fill" style={{ width: `${Math.round(share * 100)}%` }} />
      </div>
      <p className="muted small">
        Использовано {pluralRows(used)} ({Math.round(share * 100)} %). Для пополнения обратитесь к администратору
        сервиса.
      </p>
    </section>
  );
}

function DefaultTaxPanel({ user }: { user: User }) {
  const queryClient = useQueryClient();
  const [tax, setTax] = useState<TaxProfile>(user.tax ?? FALLBACK_TAX);

  useEffect(() => setTax(user.tax ?? FALLBACK_TAX), [user.tax]);

  const saving = useSave(
    () => taxProfileError(tax),
    async () => {
      const answer = await api.updateTax(tax);
      if (answer?.user) queryClient.setQueryData(['me'], answer);
      else await queryClient.invalidateQueries({ queryKey: ['me'] });
      void queryClient.invalidateQueries({ queryKey: ['report'] });
    },
  );

  return (
    <section className="panel" aria-labelledby="tax-title">
      <h2 id="tax-title">Налоговый профиль по умолчанию</h2>
      <p className="muted small">
        Применяется к отчётам без продавца и к продавцам без своего профиля. Уже построенные отчёты меняются только
        после пересборки.
      </p>
      <TaxProfileForm
        value={tax}
        onChange={(t) => {
          setTax(t);
          saving.edited();
        }}
        idPrefix="default-tax"
        disabled={saving.busy}
      />
      <SaveRow saving={saving} testId="save-default-tax" />
    </section>
  );
}

function SellersPanel() {
  const sellers = useQuery({ queryKey: ['sellers'], queryFn: api.listSellers });
  return (
    <section className="panel" aria-labelledby="sellers-title">
      <h2 id="sellers-title">Продавцы</h2>
      <p className="muted small">
        Продавец определяется по номеру в имени файла отчёта. Здесь можно дать ему название и свой налоговый профиль.
      </p>
      {sellers.isPending ? (
        <Spinner label="Загружаем продавцов…" />
      ) : sellers.isError ? (
        <ErrorMessage error={sellers.error} />
      ) : sellers.data.items.length === 0 ? (
        <div className="empty-state">
          Продавцов пока нет: они появятся после загрузки отчёта с номером продавца в имени файла.
        </div>
      ) : (
        <div className="seller-list">
          {sellers.data.items.map((s) => (
            <SellerCard key={s.id} seller={s} />
          ))}
        </div>
      )}
    </section>
  );
}

function SellerCard({ seller }: { seller: Seller }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(seller.name ?? '');
  const [ownTax, setOwnTax] = useState(seller.tax !== null && seller.tax !== undefined);
  const [tax, setTax] = useState<TaxProfile>(seller.tax ?? FALLBACK_TAX);

  const saving = useSave(
    () => (ownTax ? taxProfileError(tax) : null),
    async () => {
      // null returns the seller to the default profile; leave tax out when nothing changed there.
      const patch = ownTax
        ? { name: name.trim(), tax }
        : seller.tax
          ? { name: name.trim(), tax: null }
          : { name: name.trim() };
      await api.patchSeller(seller.id, patch);
      await queryClient.invalidateQueries({ queryKey: ['sellers'] });
      void queryClient.invalidateQueries({ queryKey: ['reports'] });
      void queryClient.invalidateQueries({ queryKey: ['report'] });
    },
  );

  const idPrefix = `seller-${seller.id}`;
  return (
    <div className="seller-card" data-testid={`seller-${seller.number}`}>
      <div className="seller-card-head">
        <span className="seller-number">№ {seller.number}</span>
        <span className="muted small">{describeTax(seller.tax)}</span>
      </div>
      <label htmlFor={`${idPrefix}-name`} className="form-field">
        Название
        <input
          id={`${idPrefix}-name`}
          type="text"
          value={name}
          maxLength={200}
          placeholder="Например, ИП Иванов"
          onChange={(e) => {
            setName(e.target.value);
            saving.edited();
          }}
        />
      </label>
      <label className="checkbox-line">
        <input
          type="checkbox"
          checked={ownTax}
          onChange={(e) => {
            setOwnTax(e.target.checked);
            saving.edited();
          }}
        />
        Свой налоговый профиль
      </label>
      {ownTax ? (
        <TaxProfileForm
          value={tax}
          onChange={(t) => {
            setTax(t);
            saving.edited();
          }}
          idPrefix={idPrefix}
          disabled={saving.busy}
        />
      ) : null}
      <SaveRow saving={saving} small />
    </div>
  );
}

function LimitHistoryPanel() {
  const history = useInfiniteQuery({
    queryKey: ['limit-history'],
    queryFn: ({ pageParam }) => api.limitHistory(pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor ?? null,
  });
  const items = useMemo(() => history.data?.pages.flatMap((p) => p.items) ?? [], [history.data]);
  return (
    <section className="panel" aria-labelledby="history-title">
      <h2 id="history-title">История лимитов</h2>
      {history.isPending ? (
        <Spinner label="Загружаем историю…" />
      ) : history.isError ? (
        <ErrorMessage error={history.error} />
      ) : items.length === 0 ? (
        <div className="empty-state">Операций пока не было.</div>
      ) : (
        <div className="table-wrap">
          <table className="data-table" data-testid="limit-history">
            <thead>
              <tr>
                <th>Дата</th>
                <th>Операция</th>
                <th className="num">Строк</th>
                <th className="num">Остаток после</th>
                <th>Отчёт</th>
              </tr>
            </thead>
            <tbody>
              {items.map((h) => (
                <tr key={h.id}>
                  <td className="nowrap">{formatDateTime(h.created_at)}</td>
                  <td>
                    {h.operation === 'topup' ? (
                      <span className="badge badge-topup">Пополнение</span>
                    ) : h.operation === 'refund' ? (
                      <span className="badge badge-topup">Возврат</span>
                    ) : (
                      <span className="badge">Списание</span>
                    )}
                  </td>
                  <td className={`num${h.operation !== 'expense' ? ' positive' : ''}`}>
                    {h.operation !== 'expense' ? '+' : '−'}
                    {formatInt(Math.abs(h.rows))}
                  </td>
                  <td className="num">{formatInt(h.limits_after)}</td>
                  <td>
                    {h.report_id ? (
                      <Link to={`/reports/${encodeURIComponent(h.report_id)}`}>открыть</Link>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <LoadMore query={history} />
        </div>
      )}
    </section>
  );
}
