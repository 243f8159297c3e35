import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { formatDateTime } from '../lib/format';
import { ErrorMessage } from './error-message';

type LinkCode = Awaited<ReturnType<typeof api.telegramLink>>;

/** While a code is shown, the page asks every few seconds whether the bot has linked the chat. */
const LINK_POLL_MS = 3000;

const TELEGRAM_KEY = ['telegram'] as const;

/**
 * The seller's Telegram link (docs/NOTIFICATIONS.md «Telegram»), for the «Уведомления» section of Настройки: its status
 * (not linked; linked as @username since …; broken when the chat blocked the bot), «Привязать Telegram»
 * (a one-time code and the deep link that opens the bot with it, valid 15 minutes), «Отвязать».
 */
export function TelegramLink() {
  const queryClient = useQueryClient();
  const [code, setCode] = useState<LinkCode | null>(null);
  const status = useQuery({
    queryKey: TELEGRAM_KEY,
    queryFn: api.telegramStatus,
    refetchInterval: (q) => (code && q.state.data?.link?.status !== 'linked' ? LINK_POLL_MS : false),
  });
  const link = useMutation({ mutationFn: api.telegramLink, onSuccess: setCode });
  const unlink = useMutation({
    mutationFn: api.telegramUnlink,
    onSuccess: () => {
      setCode(null);
      void queryClient.invalidateQueries({ queryKey: TELEGRAM_KEY });
    },
  });

  if (status.isPending) return <p className="muted">Загружаем привязку Telegram…</p>;
  if (status.isError) return <ErrorMessage error={status.error} testId="telegram-error" />;
  const { configured, link: current } = status.data;
  if (!configured)
    return (
      <p className="muted" data-testid="telegram-status">
        Уведомления в Telegram на этом сервере не настроены.
      </p>
    );
  const linked = current?.status === 'linked';
  const showCode = code !== null && !linked;

  return (
    <div className="telegram-link" data-testid="telegram-link">
      <p data-testid="telegram-status">
        {linked ? (
          <>
            Telegram привязан{current.username ? ` как @${current.username}` : ''} с {formatDateTime(current.linked_at)}
            .
          </>
        ) : current?.status === 'broken' ? (
          <span className="alert alert-warning" role="status">
            Бот заблокирован в Telegram — привяжите снова.
          </span>
        ) : (
          'Telegram не привязан.'
        )}
      </p>
      {showCode ? (
        <div className="telegram-code" data-testid="telegram-code">
          <p>
            Откройте ссылку в Telegram и нажмите «Запустить»:{' '}
            <a href={code.url} target="_blank" rel="noreferrer">
              {code.url}
            </a>
          </p>
          <p className="muted">
            Или отправьте боту: <code>/start {code.code}</code>. Код действует 15 минут, до{' '}
            {formatDateTime(code.expires_at)}, и только один раз.
          </p>
        </div>
      ) : null}
      <div className="actions">
        {!linked ? (
          <button type="button" className="btn btn-primary" disabled={link.isPending} onClick={() => link.mutate()}>
            {link.isPending ? 'Получаем код…' : showCode ? 'Получить новый код' : 'Привязать Telegram'}
          </button>
        ) : null}
        {current ? (
          <button type="button" className="btn" disabled={unlink.isPending} onClick={() => unlink.mutate()}>
            {unlink.isPending ? 'Отвязываем…' : 'Отвязать'}
          </button>
        ) : null}
      </div>
      <ErrorMessage error={link.error ?? unlink.error} testId="telegram-action-error" />
    </div>
  );
}
