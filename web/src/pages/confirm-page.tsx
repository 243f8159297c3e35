import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router-dom';
import { api } from '../api/client';
import { ErrorMessage } from '../components/error-message';
import { Spinner } from '../components/progress-bar';
import { AuthCard } from './auth-card';
import { useTitle } from '../lib/use-title';

/** The mailed link: confirms the address (or a password reset); the password itself comes by mail. */
export function ConfirmPage() {
  useTitle('Подтверждение');
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  // One request per token, even when React mounts twice in development: a second call would
  // answer "already confirmed" and hide the real outcome.
  const confirm = useQuery({
    queryKey: ['confirm', token],
    queryFn: () => api.confirm(token),
    enabled: token !== '',
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
  });

  let body;
  if (!token) {
    body = (
      <div className="alert alert-error" role="alert">
        В ссылке нет кода подтверждения. Откройте ссылку из письма целиком.
      </div>
    );
  } else if (confirm.isPending) {
    body = <Spinner label="Проверяем ссылку…" />;
  } else if (confirm.isError) {
    body = <ErrorMessage error={confirm.error} testId="confirm-error" />;
  } else if (confirm.data.status === 'already_confirmed') {
    body = (
      <div className="alert alert-info" role="status" data-testid="confirm-result">
        Адрес уже подтверждён. Пароль был отправлен на почту раньше — войдите с ним или запросите новый.
      </div>
    );
  } else {
    body = (
      <div className="alert alert-success" role="status" data-testid="confirm-result">
        Готово
        {confirm.data.email ? (
          <>
            , адрес <strong>{confirm.data.email}</strong> подтверждён
          </>
        ) : (
          ''
        )}
        . Пароль уже отправлен вам на почту — войдите с ним.
      </div>
    );
  }

  return (
    <div className="guest-layout">
      <AuthCard
        title="Подтверждение"
        footer={
          <>
            <Link to="/login">Войти</Link>
            <Link to="/forgot-password">Получить новый пароль</Link>
          </>
        }
      >
        {body}
      </AuthCard>
    </div>
  );
}
