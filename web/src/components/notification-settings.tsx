import { useEffect, useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Answer } from '../api/client';
import { ErrorMessage } from './error-message';
import { Spinner } from './progress-bar';
import { formatDateTime } from '../lib/format';

type Settings = Answer<'getNotificationSettings'>;
type Kind = keyof Settings['events'];

/** The events a seller can switch, in the order of the table, in Russian (docs/NOTIFICATIONS.md). */
const KINDS: ReadonlyArray<{ kind: Kind; title: string }> = [
  { kind: 'report_ready', title: 'Отчёт готов' },
  { kind: 'penalties', title: 'Штрафы и удержания WB в отчёте' },
  { kind: 'profit_drop', title: 'Прибыль недели упала' },
  { kind: 'reconciliation_mismatch', title: 'Расхождение с WB' },
  { kind: 'sync_problem', title: 'Проблема синхронизации с WB' },
  { kind: 'token_expiring', title: 'Токен WB скоро истечёт' },
  { kind: 'limits_low', title: 'Лимиты заканчиваются' },
  { kind: 'payout', title: 'Выплата WB: когда ожидается и когда пришла' },
  { kind: 'digest', title: 'Еженедельная сводка' },
];

const STATUS: Record<string, string> = {
  sent: 'отправлено',
  pending: 'ждёт повтора',
  held: 'ждёт конца тихих часов',
  failed: 'не отправлено',
};
const CHANNEL: Record<string, string> = { email: 'почта', telegram: 'Telegram' };
const TELEGRAM_STATUS: Record<Settings['channels']['telegram']['status'], string> = {
  not_linked: 'Telegram не подключён.',
  linked: 'Telegram подключён.',
  broken: 'Бот заблокирован в Telegram: подключите его заново.',
};

/**
 * «Уведомления» in Настройки: which events go by mail and Telegram, the quiet hours (Moscow time), the
 * profit-drop threshold; the last 20 deliveries. `telegramLink`: where the Telegram link control goes.
 */
export function NotificationSettings({ telegramLink }: { telegramLink?: ReactNode }) {
  const settings = useQuery({ queryKey: ['notification-settings'], queryFn: api.notificationSettings });
  const history = useQuery({ queryKey: ['notification-history'], queryFn: () => api.notificationHistory(null) });
  const client = useQueryClient();
  const [draft, setDraft] = useState<Settings | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    if (settings.data && !draft) setDraft(settings.data);
  }, [settings.data, draft]);

  const edit = (next: Settings) => {
    setDraft(next);
    setSaved(false);
  };

  const save = async () => {
    if (!draft) return;
    setBusy(true);
    setError(null);
    try {
      const answer = await api.putNotificationSettings({
        events: draft.events,
        quiet_hours: draft.quiet_hours,
        profit_drop_percent: draft.profit_drop_percent,
      });
      client.setQueryData(['notification-settings'], answer);
      setDraft(answer);
      setSaved(true);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel" aria-labelledby="notifications-title" data-testid="notification-settings">
      <h2 id="notifications-title">Уведомления</h2>
      {settings.isPending || !draft ? (
        settings.isError ? (
          <ErrorMessage error={settings.error} />
        ) : (
          <Spinner label="Загружаем настройки уведомлений…" />
        )
      ) : (
        <>
          <p>
            Почта: {draft.channels.email.address}. {TELEGRAM_STATUS[draft.channels.telegram.status]}
          </p>
          {telegramLink}
          <table className="notification-events">
            <thead>
              <tr>
                <th>Событие</th>
                <th>Почта</th>
                <th>Telegram</th>
              </tr>
            </thead>
            <tbody>
              {KINDS.map(({ kind, title }) => (
                <tr key={kind}>
                  <td>{title}</td>
                  {(['email', 'telegram'] as const).map((channel) => (
                    <td key={channel}>
                      <input
                        type="checkbox"
                        aria-label={`${title}: ${CHANNEL[channel]}`}
                        checked={draft.events[kind][channel]}
                        onChange={(e) =>
                          edit({
                            ...draft,
                            events: { ...draft.events, [kind]: { ...draft.events[kind], [channel]: e.target.checked } },
                          })
                        }
                      />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          <fieldset>
            <legend>Тихие часы (по Москве): сообщения в Telegram ждут их конца, письма уходят сразу</legend>
            <label>
              <input
                type="checkbox"
                checked={draft.quiet_hours !== null}
                onChange={(e) =>
                  edit({ ...draft, quiet_hours: e.target.checked ? { from: '23:00', to: '08:00' } : null })
                }
              />
              Включить
            </label>
            {draft.quiet_hours && (
              <>
                <label>
                  с{' '}
                  <input
                    type="time"
                    aria-label="Тихие часы с"
                    value={draft.quiet_hours.from}
                    onChange={(e) => edit({ ...draft, quiet_hours: { ...draft.quiet_hours!, from: e.target.value } })}
                  />
                </label>
                <label>
                  до{' '}
                  <input
                    type="time"
                    aria-label="Тихие часы до"
                    value={draft.quiet_hours.to}
                    onChange={(e) => edit({ ...draft, quiet_hours: { ...draft.quiet_hours!, to: e.target.value } })}
                  />
                </label>
              </>
            )}
          </fieldset>
          <label>
            Сообщать, если прибыль недели ниже средней за 4 недели больше чем на{' '}
            <input
              type="number"
              min={1}
              max={100}
              aria-label="Порог падения прибыли, %"
              value={draft.profit_drop_percent}
              onChange={(e) => edit({ ...draft, profit_drop_percent: Number(e.target.value) })}
            />{' '}
            %
          </label>
          {error !== null && <ErrorMessage error={error} testId="notification-settings-error" />}
          <div>
            <button type="button" onClick={() => void save()} disabled={busy}>
              Сохранить
            </button>{' '}
            {saved && <span data-testid="notification-settings-saved">✓ Сохранено</span>}
          </div>
        </>
      )}
      <h3>Последние уведомления</h3>
      {history.isError ? (
        <ErrorMessage error={history.error} />
      ) : history.data && history.data.items.length === 0 ? (
        <p>Пока ничего не отправлено.</p>
      ) : (
        <ul data-testid="notification-history">
          {(history.data?.items ?? []).slice(0, 20).map((i) => (
            <li key={`${i.event_key}|${i.channel}`}>
              {formatDateTime(i.sent_at ?? i.created_at)} · {CHANNEL[i.channel]} · {i.subject} — {STATUS[i.status]}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
