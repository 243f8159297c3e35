import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../api/client';
import { ErrorMessage } from '../components/error-message';
import { AuthCard, EMAIL_PATTERN } from './auth-card';
import { useTitle } from '../lib/use-title';

export function RegisterPage() {
  useTitle('Регистрация');
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);
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
      await api.register(address);
      setSentTo(address);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  if (sentTo) {
    return (
      <AuthCard title="Проверьте почту" footer={<Link to="/login">Ко входу</Link>}>
        <div className="alert alert-success" role="status" data-testid="register-done">
          Мы отправили письмо на <strong>{sentTo}</strong>. Откройте ссылку из письма, чтобы подтвердить адрес, — после этого пароль
          придёт отдельным письмом.
        </div>
        <p className="muted small">Письма нет? Проверьте папку «Спам» или отправьте запрос ещё раз через несколько минут.</p>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title="Регистрация"
      subtitle="Нужен только email: пароль придёт письмом после подтверждения адреса."
      footer={
        <>
          <span>
            Уже есть аккаунт? <Link to="/login">Войти</Link>
          </span>
        </>
      }
    >
      <form onSubmit={submit} className="form" aria-label="Регистрация" noValidate>
        <label>
          Email
          <input type="email" name="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        {invalid ? (
          <div className="alert alert-error" role="alert">
            Введите корректный email, например seller@example.ru.
          </div>
        ) : null}
        <ErrorMessage error={error} />
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {busy ? 'Отправляем…' : 'Зарегистрироваться'}
        </button>
      </form>
    </AuthCard>
  );
}
