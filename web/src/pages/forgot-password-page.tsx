import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../api/client';
import { ErrorMessage } from '../components/error-message';
import { AuthCard, EMAIL_PATTERN } from './auth-card';
import { useTitle } from '../lib/use-title';

export function ForgotPasswordPage() {
  useTitle('Новый пароль');
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const [invalid, setInvalid] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const address = email.trim();
    if (!EMAIL_PATTERN.test(address)) {
      setInvalid(true);
      return;
    }
    setInvalid(false);
    setBusy(true);
    setError(null);
    try {
      await api.forgotPassword(address);
      setDone(true);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthCard title="Новый пароль" subtitle="Пришлём ссылку: после перехода по ней новый пароль придёт письмом." footer={<Link to="/login">Ко входу</Link>}>
      {done ? (
        <div className="alert alert-success" role="status" data-testid="forgot-done">
          Если адрес зарегистрирован и подтверждён, на него отправлена ссылка для получения нового пароля. Она действует один час.
        </div>
      ) : (
        <form onSubmit={submit} className="form" aria-label="Восстановление пароля" noValidate>
          <label>
            Email
            <input type="email" name="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          </label>
          {invalid ? (
            <div className="alert alert-error" role="alert">
              Введите корректный email.
            </div>
          ) : null}
          <ErrorMessage error={error} />
          <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
            {busy ? 'Отправляем…' : 'Прислать ссылку'}
          </button>
        </form>
      )}
    </AuthCard>
  );
}
