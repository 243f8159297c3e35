import { useState, type FormEvent } from 'react';
import { ErrorMessage } from '../components/error-message';
import { EMAIL_PATTERN } from './auth-card';

/**
 * The one-field form of registration and password recovery: checks the address before anything is
 * sent, then hands the trimmed address to `send`; a failure is shown under the field.
 */
export function EmailForm({
  label,
  submitLabel,
  invalidMessage,
  send,
}: {
  /** The form's accessible name. */
  label: string;
  submitLabel: string;
  invalidMessage: string;
  /** Sends the address; when it resolves, the page shows what comes next. */
  send: (address: string) => Promise<void>;
}) {
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
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
      await send(address);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} className="form" aria-label={label} noValidate>
      <label>
        Email
        <input
          type="email"
          name="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </label>
      {invalid ? (
        <div className="alert alert-error" role="alert">
          {invalidMessage}
        </div>
      ) : null}
      <ErrorMessage error={error} />
      <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
        {busy ? 'Отправляем…' : submitLabel}
      </button>
    </form>
  );
}
