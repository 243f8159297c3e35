// «Подключение WB» in the settings: connect a WB account with an API token (category «Финансы»), then
// follow its sync — the state, the token's categories and expiry, the last and next sync, the progress of
// a running round (the connection is polled while it runs) — and act on it: sync now, pause, change the
// first day imported, replace the token, disconnect. Routes: /api/wb/connections (docs/API.md).
import { useEffect, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { WbConnection, WbConnectionStatus, WbSyncStatus } from '../api/contract';
import { ErrorMessage } from '../components/error-message';
import { ConfirmDialog } from '../components/modal';
import { ProgressBar, Spinner } from '../components/progress-bar';
import { formatDate, formatDateTime, formatInt, plural } from '../lib/format';

/** How often a running sync is looked at (WB itself is called at most once a minute per account). */
export const WB_SYNC_POLL_MS = 2000;
/** WB keeps no reports before this day (the API's default `from`). */
const WB_DATA_SINCE = '2025-01-01';
/** A token this close to its expiry is flagged, and the server mails the seller (shared/marketplaces/wb/sync/expiry.ts). */
const EXPIRY_WARNING_DAYS = 7;
const DAY_MS = 86_400_000;

const CONNECTION_STATUS: Record<WbConnectionStatus, string> = {
  active: 'Подключено',
  paused: 'Приостановлено',
  token_invalid: 'WB не принимает токен',
  token_no_finance: 'У токена нет категории «Финансы»',
  token_expired: 'Срок токена истёк',
};

const SYNC_STATUS: Record<WbSyncStatus, string> = {
  scheduled: 'Ждёт следующей синхронизации',
  syncing: 'Идёт синхронизация',
  limits_exhausted: 'Не хватает лимитов строк',
  stopped: 'Остановлена',
  error: 'Последняя синхронизация не удалась',
};

const needsToken = (c: WbConnection) => c.status.startsWith('token_');

export function WbConnectionPanel() {
  const list = useQuery({ queryKey: ['wb-connections'], queryFn: api.wbConnections });
  return (
    <section className="panel wb-panel" aria-labelledby="wb-title" data-testid="wb-panel">
      <h2 id="wb-title">Подключение WB</h2>
      <p className="muted small">
        Отчёты WB загружаются сами: вставьте токен API из личного кабинета WB (Профиль → Настройки → «Доступ к API») с
        категорией «Финансы». Токен хранится зашифрованным и больше не показывается. Еженедельные отчёты приходят через
        API WB, не чаще одного запроса в минуту; каждая строка списывает лимит, как при загрузке файла.
      </p>
      {list.isPending ? (
        <Spinner label="Загружаем подключения…" />
      ) : list.isError ? (
        <ErrorMessage error={list.error} />
      ) : list.data.items.length === 0 ? (
        <ConnectForm />
      ) : (
        list.data.items.map((c) => <ConnectionCard key={c.id} initial={c} />)
      )}
    </section>
  );
}

function ConnectForm() {
  const queryClient = useQueryClient();
  const [token, setToken] = useState('');
  const [from, setFrom] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [invalid, setInvalid] = useState<string | null>(null);

  const submit = async () => {
    const t = token.trim();
    setInvalid(t ? null : 'Вставьте токен WB API.');
    if (!t) return;
    setBusy(true);
    setError(null);
    try {
      const { connection } = await api.wbConnect(t, from || undefined);
      setToken('');
      queryClient.setQueryData(['wb-connection', connection.id], { connection });
      await queryClient.invalidateQueries({ queryKey: ['wb-connections'] });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="form wb-connect"
      aria-label="Подключить WB"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label htmlFor="wb-token" className="form-field">
        Токен WB API
        <textarea
          id="wb-token"
          rows={3}
          value={token}
          autoComplete="off"
          spellCheck={false}
          placeholder="eyJhbGciOiJFUzI1NiIs…"
          onChange={(e) => {
            setToken(e.target.value);
            setInvalid(null);
          }}
          data-testid="wb-token"
        />
      </label>
      <label htmlFor="wb-from" className="form-field">
        Загружать отчёты с
        <input
          id="wb-from"
          type="date"
          min={WB_DATA_SINCE}
          value={from}
          onChange={(e) => setFrom(e.target.value)}
          data-testid="wb-from"
        />
        <span className="muted small">Пусто — с {formatDate(WB_DATA_SINCE)}: более ранних отчётов WB не хранит.</span>
      </label>
      {invalid ? (
        <div className="alert alert-error" role="alert">
          {invalid}
        </div>
      ) : null}
      <ErrorMessage error={error} testId="wb-connect-error" />
      <div className="button-row">
        <button type="submit" className="btn btn-primary" disabled={busy} data-testid="wb-connect">
          {busy ? 'Проверяем токен…' : 'Подключить'}
        </button>
      </div>
    </form>
  );
}

/** «осталось 12 дней», «истёк». */
function expiryText(expiresAt: string, now: number): string {
  const days = Math.floor((Date.parse(expiresAt) - now) / DAY_MS);
  if (days < 0) return 'истёк';
  if (days === 0) return 'истекает сегодня';
  return `осталось ${plural(days, ['день', 'дня', 'дней'])}`;
}

/** What a running round has done: reports imported of those found, rows read, the next call to WB. */
function syncProgress(c: WbConnection): { value?: number; detail: string } {
  const p = c.sync.progress;
  const parts = [
    p.reports_found > 0
      ? `отчётов загружено ${formatInt(p.reports_imported)} из ${formatInt(p.reports_found)}`
      : 'ищем новые отчёты',
    `строк прочитано ${formatInt(p.rows_read)}`,
  ];
  if (p.next_call_at) parts.push(`следующий запрос к WB в ${formatDateTime(p.next_call_at).split(', ').pop()}`);
  return { value: p.reports_found > 0 ? p.reports_imported / p.reports_found : undefined, detail: parts.join(' · ') };
}

function ConnectionCard({ initial }: { initial: WbConnection }) {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: ['wb-connection', initial.id],
    queryFn: () => api.wbConnection(initial.id),
    initialData: { connection: initial },
    // A running round is followed until it ends (WB's answers arrive at most once a minute per account).
    refetchInterval: (q) => (q.state.data?.connection.sync.status === 'syncing' ? WB_SYNC_POLL_MS : false),
  });
  const c = query.data.connection;
  const [busy, setBusy] = useState<'sync' | 'pause' | 'from' | 'token' | 'disconnect' | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [from, setFrom] = useState(c.from);
  const [newToken, setNewToken] = useState('');
  const [replacing, setReplacing] = useState(false);
  const [askDisconnect, setAskDisconnect] = useState(false);

  useEffect(() => setFrom(c.from), [c.from]);

  // A round that ends (or imports a report) brings new reports: the lists and the limits change.
  const seen = useRef({ status: c.sync.status, imported: c.reports_imported });
  useEffect(() => {
    const before = seen.current;
    seen.current = { status: c.sync.status, imported: c.reports_imported };
    if (c.reports_imported !== before.imported || (before.status === 'syncing' && c.sync.status !== 'syncing')) {
      void queryClient.invalidateQueries({ queryKey: ['reports'] });
      void queryClient.invalidateQueries({ queryKey: ['me'] });
      // Each import charged its rows: the limits' history and totals (settings page) change with the balance.
      void queryClient.invalidateQueries({ queryKey: ['limit-history'] });
      void queryClient.invalidateQueries({ queryKey: ['sellers'] });
    }
  }, [c.sync.status, c.reports_imported, queryClient]);

  const act = async (kind: NonNullable<typeof busy>, action: () => Promise<{ connection: WbConnection } | void>) => {
    setBusy(kind);
    setError(null);
    try {
      const answer = await action();
      if (answer) queryClient.setQueryData(['wb-connection', c.id], answer);
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(null);
    }
  };

  const now = Date.now();
  const daysLeft = (Date.parse(c.expires_at) - now) / DAY_MS;
  const syncing = c.sync.status === 'syncing';
  const progress = syncing ? syncProgress(c) : null;
  const tokenProblem = needsToken(c);

  return (
    <div className="wb-connection" data-testid={`wb-connection-${c.id}`}>
      <div className="wb-connection-head">
        <strong>{c.seller_name ?? 'Кабинет WB'}</strong>
        {c.wb_seller_id ? <span className="muted small">ID продавца WB {c.wb_seller_id}</span> : null}
        <span
          className={`badge ${c.status === 'active' ? 'badge-topup' : tokenProblem ? 'badge-failed' : 'badge-warning'}`}
          data-testid="wb-status"
        >
          {CONNECTION_STATUS[c.status]}
        </span>
      </div>

      <dl className="facts wb-facts">
        <div>
          <dt>Синхронизация</dt>
          <dd data-testid="wb-sync-status">{SYNC_STATUS[c.sync.status]}</dd>
        </div>
        <div>
          <dt>Последняя</dt>
          <dd data-testid="wb-last-sync">{c.last_sync ? formatDateTime(c.last_sync) : 'ещё не было'}</dd>
        </div>
        <div>
          <dt>Следующая</dt>
          <dd data-testid="wb-next-sync">
            {syncing ? 'идёт сейчас' : c.next_sync ? formatDateTime(c.next_sync) : '—'}
          </dd>
        </div>
        <div>
          <dt>Загружено отчётов</dt>
          <dd data-testid="wb-reports-imported">{formatInt(c.reports_imported)}</dd>
        </div>
        <div>
          <dt>Токен</dt>
          <dd data-testid="wb-token-hint">{c.token_hint.startsWith('…') ? c.token_hint : `…${c.token_hint}`}</dd>
        </div>
        <div>
          <dt>Категории</dt>
          <dd data-testid="wb-scopes">
            {c.scopes.length ? (
              c.scopes.map((s) => (
                <span key={s} className="chip">
                  {s}
                </span>
              ))
            ) : (
              <span className="muted">—</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Действует до</dt>
          <dd data-testid="wb-expires" className={daysLeft < EXPIRY_WARNING_DAYS ? 'negative' : undefined}>
            {formatDate(c.expires_at)} ({expiryText(c.expires_at, now)})
          </dd>
        </div>
        <div>
          <dt>Отчёты с</dt>
          <dd data-testid="wb-from-date">{formatDate(c.from)}</dd>
        </div>
      </dl>

      {c.status === 'active' && daysLeft >= 0 && daysLeft < EXPIRY_WARNING_DAYS ? (
        <div className="alert alert-warning" role="status" data-testid="wb-expiry-warning">
          Токен WB истекает {formatDate(c.expires_at)} ({expiryText(c.expires_at, now)}). После этого синхронизация
          остановится: создайте новый токен с категорией «Финансы» в личном кабинете WB и вставьте его кнопкой «Сменить
          токен».
          {c.expiry_mail_sent_at ? ` Письмо об этом отправлено ${formatDate(c.expiry_mail_sent_at)}.` : null}
        </div>
      ) : null}

      {progress ? (
        <ProgressBar label="Синхронизация с WB" value={progress.value} detail={progress.detail} testId="wb-progress" />
      ) : null}

      {c.error && c.error.code !== 'wb_report_unread' ? (
        <div
          className={`alert ${c.sync.status === 'limits_exhausted' ? 'alert-warning' : 'alert-error'}`}
          role="alert"
          data-testid="wb-sync-error"
        >
          {c.error.message}
          {c.error.code === 'wb_unavailable' && (c.error.last_attempt_at || c.error.next_attempt_at) ? (
            <span className="small" data-testid="wb-failure-times">
              {' '}
              {c.error.wb_status ? `Ответ WB: ${c.error.wb_status}. ` : 'WB не ответил. '}
              {c.error.last_attempt_at ? `Последняя попытка: ${formatDateTime(c.error.last_attempt_at)}. ` : null}
              {c.error.next_attempt_at ? `Следующая: ${formatDateTime(c.error.next_attempt_at)}.` : null}
            </span>
          ) : null}
        </div>
      ) : null}

      {c.unread_reports.length > 0 ? (
        <div className="alert alert-error" role="alert" data-testid="wb-unread">
          {c.unread_reports.map((u) => (
            <p key={u.wb_report_id} data-testid={`wb-unread-${u.wb_report_id}`}>
              WB не отдаёт строки отчёта №{u.wb_report_id}
              {u.date_from ? ` (${formatDate(u.date_from)} — ${formatDate(u.date_to)})` : ''}. Попыток:{' '}
              {formatInt(u.attempts)}; отчёт будет запрошен снова в следующей синхронизации.{' '}
              <span className="muted small">Ответ WB: {u.reason}</span>
            </p>
          ))}
          <button
            type="button"
            className="btn btn-small"
            disabled={busy !== null || syncing || tokenProblem || c.status === 'paused'}
            onClick={() => void act('sync', () => api.wbSync(c.id))}
            data-testid="wb-unread-retry"
          >
            Повторить сейчас
          </button>
        </div>
      ) : null}

      <ErrorMessage error={error} testId="wb-action-error" />

      <div className="button-row">
        <button
          type="button"
          className="btn btn-primary"
          disabled={busy !== null || syncing || tokenProblem || c.status === 'paused'}
          onClick={() => void act('sync', () => api.wbSync(c.id))}
          data-testid="wb-sync-now"
        >
          {busy === 'sync' || syncing ? 'Синхронизируем…' : 'Синхронизировать сейчас'}
        </button>
        {tokenProblem ? null : (
          <button
            type="button"
            className="btn"
            disabled={busy !== null}
            onClick={() => void act('pause', () => api.wbUpdateConnection(c.id, { paused: c.status !== 'paused' }))}
            data-testid="wb-pause"
          >
            {c.status === 'paused' ? 'Возобновить' : 'Приостановить'}
          </button>
        )}
        <button
          type="button"
          className="btn"
          disabled={busy !== null}
          onClick={() => setReplacing((v) => !v)}
          data-testid="wb-replace-token"
        >
          Сменить токен
        </button>
        <button
          type="button"
          className="btn btn-ghost"
          disabled={busy !== null}
          onClick={() => setAskDisconnect(true)}
          data-testid="wb-disconnect"
        >
          Отключить
        </button>
      </div>

      {tokenProblem || replacing ? (
        <form
          className="form form-narrow wb-token-form"
          aria-label="Новый токен WB"
          onSubmit={(e) => {
            e.preventDefault();
            const t = newToken.trim();
            if (!t) return;
            void act('token', () => api.wbUpdateConnection(c.id, { token: t })).then((ok) => {
              if (!ok) return;
              setNewToken('');
              setReplacing(false);
            });
          }}
        >
          <label htmlFor={`wb-new-token-${c.id}`} className="form-field">
            Новый токен того же кабинета WB (категория «Финансы»)
            <textarea
              id={`wb-new-token-${c.id}`}
              rows={2}
              value={newToken}
              autoComplete="off"
              spellCheck={false}
              onChange={(e) => setNewToken(e.target.value)}
              data-testid="wb-new-token"
            />
          </label>
          <div className="button-row">
            <button type="submit" className="btn btn-primary btn-small" disabled={busy !== null || !newToken.trim()}>
              {busy === 'token' ? 'Проверяем токен…' : 'Сохранить токен'}
            </button>
          </div>
        </form>
      ) : null}

      <form
        className="wb-from-form"
        aria-label="Первый день отчётов"
        onSubmit={(e) => {
          e.preventDefault();
          void act('from', () => api.wbUpdateConnection(c.id, { from }));
        }}
      >
        <label htmlFor={`wb-from-${c.id}`} className="form-field">
          Загружать отчёты с
          <input
            id={`wb-from-${c.id}`}
            type="date"
            min={WB_DATA_SINCE}
            value={from}
            onChange={(e) => setFrom(e.target.value)}
            data-testid="wb-change-from"
          />
        </label>
        <button
          type="submit"
          className="btn btn-small"
          disabled={busy !== null || !from || from === c.from}
          data-testid="wb-save-from"
        >
          {busy === 'from' ? 'Сохраняем…' : 'Сохранить'}
        </button>
        <span className="muted small">Уже загруженные отчёты не загружаются повторно.</span>
      </form>

      {askDisconnect ? (
        <ConfirmDialog
          title="Отключить WB?"
          confirmLabel="Отключить"
          danger
          busy={busy === 'disconnect'}
          onConfirm={() =>
            void act('disconnect', () => api.wbDisconnect(c.id)).then(async (ok) => {
              setAskDisconnect(false);
              if (!ok) return;
              queryClient.removeQueries({ queryKey: ['wb-connection', c.id] });
              await queryClient.invalidateQueries({ queryKey: ['wb-connections'] });
            })
          }
          onCancel={() => setAskDisconnect(false)}
          testId="wb-disconnect-dialog"
        >
          <p>
            Токен и состояние синхронизации будут удалены. Уже загруженные отчёты останутся. Чтобы отчёты снова
            приходили сами, подключите WB заново.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
