import { useState } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../api/client';
import { AuthCard } from './auth-card';
import { EmailForm } from './email-form';
import { useTitle } from '../lib/use-title';

export function ForgotPasswordPage() {
  useTitle('Новый пароль');
  const [done, setDone] = useState(false);

  return (
    <AuthCard
      title="Новый пароль"
      subtitle="Пришлём ссылку: после перехода по ней новый пароль придёт письмом."
      footer={<Link to="/login">Ко входу</Link>}
    >
      {done ? (
        <div className="alert alert-success" role="status" data-testid="forgot-done">
          Если адрес зарегистрирован и подтверждён, на него отправлена ссылка для получения нового пароля. Она действует
          один час.
        </div>
      ) : (
        <EmailForm
          label="Восстановление пароля"
          submitLabel="Прислать ссылку"
          invalidMessage="Введите корректный email."
          send={async (address) => {
            await api.forgotPassword(address);
            setDone(true);
          }}
        />
      )}
    </AuthCard>
  );
}
