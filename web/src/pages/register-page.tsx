import { useState } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../api/client';
import { AuthCard } from './auth-card';
import { EmailForm } from './email-form';
import { useTitle } from '../lib/use-title';

export function RegisterPage() {
  useTitle('Регистрация');
  const [sentTo, setSentTo] = useState<string | null>(null);

  if (sentTo) {
    return (
      <AuthCard title="Проверьте почту" footer={<Link to="/login">Ко входу</Link>}>
        <div className="alert alert-success" role="status" data-testid="register-done">
          Мы отправили письмо на <strong>{sentTo}</strong>. Откройте ссылку из письма, чтобы подтвердить адрес, — после
          этого пароль придёт отдельным письмом.
        </div>
        <p className="muted small">
          Письма нет? Проверьте папку «Спам» или отправьте запрос ещё раз через несколько минут.
        </p>
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
      <EmailForm
        label="Регистрация"
        submitLabel="Зарегистрироваться"
        invalidMessage="Введите корректный email, например seller@example.ru."
        send={async (address) => {
          await api.register(address);
          setSentTo(address);
        }}
      />
    </AuthCard>
  );
}
