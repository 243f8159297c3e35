import { useEffect, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { api } from '../api/client';
import { forgetSessionEnded, lastEmail, sessionJustEnded } from '../api/session';
import { useAppConfig } from '../lib/app-config';
import { ErrorMessage } from '../components/error-message';
import { useAuth } from '../lib/auth';
import { AuthCard } from './auth-card';
import { useTitle } from '../lib/use-title';

export function LoginPage() {
  useTitle('Вход');
  const { signIn } = useAuth();
  const navigate = useNavigate();
  const location = useLocation();
  const from = (location.state as { from?: string } | null)?.from;
  // After a session ends (or a sign-out) the address is offered again.
  const [email, setEmail] = useState(lastEmail);
  const config = useAppConfig();
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [ended] = useState(sessionJustEnded);
  useEffect(() => forgetSessionEnded(), []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const result = await api.login(email.trim(), password);
      signIn(result.token, result.user?.email ?? email.trim());
      void navigate(from && from.startsWith('/') ? from : '/', { replace: true });
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };

  return (
    <AuthCard
      title="Вход"
      subtitle="Прибыль, маржа и сумма к выплате по каждому артикулу из еженедельного детализированного отчёта Wildberries."
      footer={
        <>
          <Link to="/register">Регистрация</Link>
          <Link to="/forgot-password">Забыли пароль?</Link>
        </>
      }
    >
      <div className="auth-explain" data-testid="first-visit">
        <strong>Что загружать.</strong> Детализированный отчёт о реализации, как его отдаёт WB:
        <ol>
          <li>
            В личном кабинете продавца WB откройте «Финансовые отчёты» (раздел «Финансы» или «Документы и отчёты»).
          </li>
          <li>
            Выберите еженедельный отчёт и нажмите «Скачать детализацию» — придёт .zip или .xlsx. Загрузите его сюда без
            изменений.
          </li>
        </ol>
        Себестоимость артикулов вводится на странице «Себестоимость» или файлом.
      </div>
      {config?.demo_email ? (
        <div className="alert alert-info demo-hint" data-testid="demo-hint">
          Демо-аккаунт: <strong>{config.demo_email}</strong>. Пароль напечатан в консоли <code>npm start</code> и лежит
          в файле <code>.data/demo-password</code>.{' '}
          {email !== config.demo_email ? (
            <button type="button" className="link-button" onClick={() => setEmail(config.demo_email ?? '')}>
              Подставить адрес
            </button>
          ) : null}
        </div>
      ) : null}
      {ended && !error ? (
        <div className="alert alert-info" role="status" data-testid="session-ended">
          Сессия завершилась. Войдите снова.
        </div>
      ) : null}
      <form onSubmit={(e) => void submit(e)} className="form" aria-label="Вход">
        <label>
          Email
          <input
            type="email"
            name="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </label>
        <label>
          Пароль
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <ErrorMessage error={error} testId="login-error" />
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {busy ? 'Входим…' : 'Войти'}
        </button>
      </form>
    </AuthCard>
  );
}
