import { useEffect, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { api } from '../api/client';
import { forgetSessionEnded, sessionJustEnded } from '../api/session';
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
  const [email, setEmail] = useState('');
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
      navigate(from && from.startsWith('/') ? from : '/', { replace: true });
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };

  return (
    <AuthCard
      title="Вход"
      subtitle="Прибыль по каждому артикулу из детализированного отчёта Wildberries."
      footer={
        <>
          <Link to="/register">Регистрация</Link>
          <Link to="/forgot-password">Забыли пароль?</Link>
        </>
      }
    >
      {ended && !error ? (
        <div className="alert alert-info" role="status" data-testid="session-ended">
          Сессия завершилась. Войдите снова.
        </div>
      ) : null}
      <form onSubmit={submit} className="form" aria-label="Вход">
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
