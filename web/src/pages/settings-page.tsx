import { useEffect, useMemo, useState } from 'react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { api } from '../api/client';
import type { AllocationMethod, LimitTotals, Seller, TaxPeriod, TaxProfile, User } from '../api/contract';
import { ALLOCATION_TITLES } from '../components/report-trust';
import { ErrorMessage } from '../components/error-message';
import { LoadMore } from '../components/load-more';
import { NotificationSettings } from '../components/notification-settings';
import { TelegramLink } from '../components/telegram-link';
import { Spinner } from '../components/progress-bar';
import { describeTax, TaxProfileForm, taxProfileError, vatRateErrorOn } from '../components/tax-profile-form';
import { SupportContact } from '../lib/app-config';
import { useAuth } from '../lib/auth';
import { formatDateTime, formatInt } from '../lib/format';
import { useTitle } from '../lib/use-title';
import { WbConnectionPanel } from './wb-connection-panel';

/** The shortest password the API accepts (POST /auth/change-password → weak_password). */
const MIN_PASSWORD_LENGTH = 8;

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
function SaveRow({
  saving,
  small,
  testId,
  label = 'Сохранить',
  savedText = '✓ Сохранено',
}: {
  saving: ReturnType<typeof useSave>;
  small?: boolean;
  testId?: string;
  label?: string;
  savedText?: string;
}) {
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
          onClick={() => void saving.save()}
          disabled={saving.busy}
          data-testid={testId}
        >
          {saving.busy ? 'Сохраняем…' : label}
        </button>
        {saving.saved ? (
          <span className="save-state" role="status">
            {savedText}
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
          <WbConnectionPanel />
          <NotificationSettings telegramLink={<TelegramLink />} />
          <DefaultTaxPanel user={me.data.user} />
          <AllocationPanelSettings user={me.data.user} />
          <SellersPanel />
          <ChangePasswordPanel />
          <LimitHistoryPanel />
        </>
      )}
    </div>
  );
}

/**
 * Balance, what was charged and what was topped up, from one source: the history's totals
 * (GET /auth/limit-history). Granted at registration = balance − topped up + charged − refunded, so
 * the four numbers always add up.
 */
function limitFacts(limits: number, totals: LimitTotals) {
  const charged = totals.charged - totals.refunded;
  const granted = limits - totals.topped_up + charged;
  const received = granted + totals.topped_up;
  return { left: limits, charged, toppedUp: totals.topped_up, granted, received };
}

export function LimitsPanel({ user }: { user: User }) {
  const history = useQuery({ queryKey: ['limit-history', 'totals'], queryFn: () => api.limitHistory(null) });
  const totals = history.data?.totals;
  // The balance after the newest history record, from the same answer as the totals: a charge made
  // meanwhile (a WB sync imports reports while the page is open) is in both or in neither, so it is
  // never read as granted. Without a record yet, the profile's balance.
  const balance = history.data?.items[0]?.limits_after ?? user.limits;
  const facts = totals ? limitFacts(balance, totals) : null;
  const share = facts && facts.received > 0 ? facts.charged / facts.received : 0;
  return (
    <section className="panel" aria-labelledby="limits-title">
      <h2 id="limits-title">Лимит строк</h2>
      <p>
        Каждая строка загруженного отчёта списывает одну единицу лимита; объединение и пересборка лимит не тратят, а
        строки неудавшейся загрузки возвращаются.
      </p>
      <dl className="limits-facts" data-testid="limits-facts">
        <div>
          <dt>Осталось строк</dt>
          <dd data-testid="limits-left">{formatInt(facts ? facts.left : user.limits)}</dd>
        </div>
        <div>
          <dt>Списано за отчёты</dt>
          <dd data-testid="limits-charged">{facts ? formatInt(facts.charged) : '…'}</dd>
        </div>
        <div>
          <dt>Пополнено</dt>
          <dd data-testid="limits-topped-up">{facts ? formatInt(facts.toppedUp) : '…'}</dd>
        </div>
        <div>
          <dt>Начислено при регистрации</dt>
          <dd data-testid="limits-granted">{facts ? formatInt(facts.granted) : '…'}</dd>
        </div>
      </dl>
      {facts ? (
        <div
          className={`usage-bar${share > 0.9 ? ' danger' : share > 0.7 ? ' warn' : ''}`}
          role="progressbar"
          aria-label="Израсходовано строк из полученных"
          aria-valuemin={0}
          aria-valuemax={facts.received}
          aria-valuenow={facts.charged}
          data-testid="limits-bar"
        >
          <div className="usage-fill" style={{ width: `${Math.min(100, Math.round(share * 100))}%` }} />
        </div>
      ) : null}
      <p className="muted small" data-testid="limits-sum">
        {facts
          ? `${formatInt(facts.granted)} + ${formatInt(facts.toppedUp)} пополнено − ${formatInt(facts.charged)} списано = ${formatInt(facts.left)} осталось. `
          : ''}
        <SupportContact what="чтобы пополнить лимит" />
      </p>
      <ErrorMessage error={history.error} />
    </section>
  );
}

function ChangePasswordPanel() {
  const { email, signIn } = useAuth();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const saving = useSave(
    () => {
      if (!current) return 'Введите текущий пароль.';
      if ([...next].length < MIN_PASSWORD_LENGTH)
        return `Новый пароль слишком короткий: нужно не меньше ${MIN_PASSWORD_LENGTH} символов.`;
      if (next !== repeat) return 'Новый пароль и повтор не совпадают.';
      return null;
    },
    async () => {
      const answer = await api.changePassword(current, next);
      // Every earlier session ended, this one too: carry on with the fresh token.
      signIn(answer.token, answer.user?.email ?? email ?? '');
      setCurrent('');
      setNext('');
      setRepeat('');
    },
  );
  const edit = (set: (v: string) => void) => (e: { target: { value: string } }) => {
    set(e.target.value);
    saving.edited();
  };
  return (
    <section className="panel" aria-labelledby="password-title">
      <h2 id="password-title">Смена пароля</h2>
      <p className="muted small">
        Не меньше {MIN_PASSWORD_LENGTH} символов. После смены все другие входы (в других браузерах и устройствах)
        завершатся; здесь вы останетесь в системе.
      </p>
      <form
        className="form form-narrow"
        aria-label="Смена пароля"
        onSubmit={(e) => {
          e.preventDefault();
          void saving.save();
        }}
      >
        <label>
          Текущий пароль
          <input
            type="password"
            autoComplete="current-password"
            value={current}
            onChange={edit(setCurrent)}
            data-testid="current-password"
          />
        </label>
        <label>
          Новый пароль
          <input
            type="password"
            autoComplete="new-password"
            value={next}
            onChange={edit(setNext)}
            data-testid="new-password"
          />
        </label>
        <label>
          Новый пароль ещё раз
          <input
            type="password"
            autoComplete="new-password"
            value={repeat}
            onChange={edit(setRepeat)}
            data-testid="repeat-password"
          />
        </label>
        <SaveRow saving={saving} testId="change-password" label="Сменить пароль" savedText="✓ Пароль изменён" />
      </form>
    </section>
  );
}

function periodsOf(user: User): TaxPeriod[] {
  return user.tax_periods?.length ? user.tax_periods : [{ valid_from: null, ...(user.tax ?? FALLBACK_TAX) }];
}

/** Periods in date order, the first from the beginning; the first problem found, in Russian. */
function taxPeriodsError(periods: readonly TaxPeriod[]): string | null {
  const seen = new Set<string>();
  for (const [i, p] of periods.entries()) {
    const problem = taxProfileError(p);
    if (problem) return problem;
    if (i > 0 && !p.valid_from) return 'Укажите дату начала каждого периода, кроме первого.';
    const key = p.valid_from ?? '';
    if (seen.has(key)) return 'Два периода начинаются в один день.';
    seen.add(key);
    const vat = vatRateErrorOn(p.vat_rate, p.valid_from);
    if (vat) return vat;
  }
  return null;
}

/** Tax periods: «Действует с» (the first from the beginning) and a profile each; add and remove. */
function TaxPeriodsFields({
  periods,
  onChange,
  idPrefix,
  disabled,
  addTestId,
}: {
  periods: TaxPeriod[];
  onChange: (next: TaxPeriod[]) => void;
  idPrefix: string;
  disabled: boolean;
  addTestId: string;
}) {
  return (
    <>
      {periods.map((p, i) => (
        <div className="tax-period" key={i} data-testid={`${idPrefix}-period-${i}`}>
          <label htmlFor={`${idPrefix}-from-${i}`} className="form-field">
            Действует с
            <input
              id={`${idPrefix}-from-${i}`}
              type="date"
              value={p.valid_from ?? ''}
              disabled={disabled || i === 0}
              onChange={(e) =>
                onChange(periods.map((q, j) => (j === i ? { ...q, valid_from: e.target.value || null } : q)))
              }
            />
            {i === 0 ? <span className="muted small">с самого начала</span> : null}
          </label>
          <TaxProfileForm
            value={p}
            onChange={(t) => onChange(periods.map((q, j) => (j === i ? { ...q, ...t } : q)))}
            idPrefix={i === 0 ? idPrefix : `${idPrefix}-${i}`}
            disabled={disabled}
          />
          {i > 0 ? (
            <button
              type="button"
              className="btn btn-small"
              onClick={() => onChange(periods.filter((_, j) => j !== i))}
              data-testid={`${idPrefix}-remove-period-${i}`}
            >
              Удалить период
            </button>
          ) : null}
        </div>
      ))}
      <div className="button-row">
        <button
          type="button"
          className="btn btn-small"
          disabled={disabled}
          onClick={() => onChange([...periods, { ...periods[periods.length - 1]!, valid_from: null }])}
          data-testid={addTestId}
        >
          Добавить период
        </button>
      </div>
    </>
  );
}

/** One profile from the beginning goes as the plain `tax` the API always took; several as `tax_periods`. */
function plainOrPeriods(periods: TaxPeriod[]): { tax: TaxProfile } | { tax_periods: TaxPeriod[] } {
  const [first] = periods;
  return periods.length === 1 && first!.valid_from === null
    ? { tax: { tax_system: first!.tax_system, usn_rate: first!.usn_rate, vat_rate: first!.vat_rate } }
    : { tax_periods: periods };
}

function DefaultTaxPanel({ user }: { user: User }) {
  const queryClient = useQueryClient();
  const [periods, setPeriods] = useState<TaxPeriod[]>(periodsOf(user));

  useEffect(() => setPeriods(periodsOf(user)), [user]);

  const saving = useSave(
    () => taxPeriodsError(periods),
    async () => {
      const body = plainOrPeriods(periods);
      const answer = 'tax' in body ? await api.updateTax(body.tax) : await api.updateMe(body);
      if (answer?.user) queryClient.setQueryData(['me'], answer);
      else await queryClient.invalidateQueries({ queryKey: ['me'] });
      void queryClient.invalidateQueries({ queryKey: ['report'] });
    },
  );
  const change = (next: TaxPeriod[]) => {
    setPeriods(next);
    saving.edited();
  };

  return (
    <section className="panel" aria-labelledby="tax-title">
      <h2 id="tax-title">Налоговый профиль по умолчанию</h2>
      <p className="muted small">
        Применяется к отчётам без продавца и к продавцам без своего профиля. Отчёт берёт период, действующий в середине
        его недели: отчёт 2021 года считается по правилам 2021 года. Уже построенные отчёты меняются только после
        пересборки.
      </p>
      <TaxPeriodsFields
        periods={periods}
        onChange={change}
        idPrefix="default-tax"
        disabled={saving.busy}
        addTestId="add-tax-period"
      />
      <SaveRow saving={saving} testId="save-default-tax" />
    </section>
  );
}

function AllocationPanelSettings({ user }: { user: User }) {
  const queryClient = useQueryClient();
  const [method, setMethod] = useState<AllocationMethod>(user.allocation ?? 'realization');
  useEffect(() => setMethod(user.allocation ?? 'realization'), [user.allocation]);
  const saving = useSave(
    () => null,
    async () => {
      const answer = await api.updateMe({ allocation: method });
      if (answer?.user) queryClient.setQueryData(['me'], answer);
      else await queryClient.invalidateQueries({ queryKey: ['me'] });
      void queryClient.invalidateQueries({ queryKey: ['report'] });
    },
  );
  return (
    <section className="panel" aria-labelledby="allocation-settings-title">
      <h2 id="allocation-settings-title">Расходы без артикула</h2>
      <p className="muted small">
        Хранение, приёмка, удержания, штрафы и реклама без артикула распределяются по артикулам, чтобы прибыль каждого
        их учитывала. Итоги отчёта не меняются. Новый способ применяется при пересборке отчёта.
      </p>
      <label htmlFor="allocation-method" className="form-field">
        Способ
        <select
          id="allocation-method"
          value={method}
          disabled={saving.busy}
          onChange={(e) => {
            setMethod(e.target.value as AllocationMethod);
            saving.edited();
          }}
        >
          {(Object.keys(ALLOCATION_TITLES) as AllocationMethod[]).map((m) => (
            <option key={m} value={m}>
              {ALLOCATION_TITLES[m]}
            </option>
          ))}
        </select>
      </label>
      <SaveRow saving={saving} testId="save-allocation" />
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
  const [periods, setPeriods] = useState<TaxPeriod[]>(
    seller.tax_periods?.length ? seller.tax_periods : [{ valid_from: null, ...(seller.tax ?? FALLBACK_TAX) }],
  );
  const [allocation, setAllocation] = useState<AllocationMethod | ''>(seller.allocation ?? '');

  const saving = useSave(
    () => (ownTax ? taxPeriodsError(periods) : null),
    async () => {
      // null returns the seller to the default profile; leave tax out when nothing changed there.
      const patch: Parameters<typeof api.patchSeller>[1] = ownTax
        ? { name: name.trim(), ...plainOrPeriods(periods) }
        : seller.tax
          ? { name: name.trim(), tax: null }
          : { name: name.trim() };
      // The allocation goes only when changed ('' = the user's method).
      if ((seller.allocation ?? '') !== allocation) patch.allocation = allocation === '' ? null : allocation;
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
        <TaxPeriodsFields
          periods={periods}
          onChange={(next) => {
            setPeriods(next);
            saving.edited();
          }}
          idPrefix={idPrefix}
          disabled={saving.busy}
          addTestId={`add-tax-period-${seller.number}`}
        />
      ) : null}
      <label htmlFor={`${idPrefix}-allocation`} className="form-field">
        Расходы без артикула
        <select
          id={`${idPrefix}-allocation`}
          value={allocation}
          onChange={(e) => {
            setAllocation(e.target.value as AllocationMethod | '');
            saving.edited();
          }}
        >
          <option value="">как по умолчанию</option>
          {(Object.keys(ALLOCATION_TITLES) as AllocationMethod[]).map((m) => (
            <option key={m} value={m}>
              {ALLOCATION_TITLES[m]}
            </option>
          ))}
        </select>
      </label>
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
          <table className="data-table history-table" data-testid="limit-history">
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
                  <td className="nowrap" data-label="Дата">
                    {formatDateTime(h.created_at)}
                  </td>
                  <td data-label="Операция">
                    {h.operation === 'topup' ? (
                      <span className="badge badge-topup">Пополнение</span>
                    ) : h.operation === 'refund' ? (
                      <span className="badge badge-topup">Возврат</span>
                    ) : (
                      <span className="badge">Списание</span>
                    )}
                  </td>
                  <td className={`num${h.operation !== 'expense' ? ' positive' : ''}`} data-label="Строк">
                    {h.operation !== 'expense' ? '+' : '−'}
                    {formatInt(Math.abs(h.rows))}
                  </td>
                  <td className="num" data-label="Остаток после">
                    {formatInt(h.limits_after)}
                  </td>
                  <td data-testid={`history-report-${h.id}`} data-label="Отчёт">
                    {!h.report_id ? (
                      <span className="muted">—</span>
                    ) : h.report_deleted ? (
                      <span className="history-deleted">{h.report_title ? `${h.report_title} — ` : ''}удалён</span>
                    ) : (
                      <Link to={`/reports/${encodeURIComponent(h.report_id)}`}>{h.report_title || 'Отчёт'}</Link>
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
