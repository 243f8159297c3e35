import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { AppConfig } from '../api/types';

/** The operator's settings the page shows (GET /api/config), read once per visit. */
export function useAppConfig(): AppConfig | undefined {
  const q = useQuery({ queryKey: ['config'], queryFn: api.config, staleTime: Infinity, retry: 1 });
  return q.data;
}

/** «Обратитесь к администратору» with the operator's contact from SUPPORT_CONTACT, when it is set. */
export function SupportContact({ what }: { what: string }) {
  const contact = useAppConfig()?.support_contact;
  if (!contact) return <>Обратитесь к администратору сервиса, {what}.</>;
  const href = /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(contact)
    ? `mailto:${contact}`
    : /^https?:\/\//.test(contact)
      ? contact
      : null;
  return (
    <>
      Обратитесь к администратору сервиса, {what}:{' '}
      {href ? (
        <a href={href} data-testid="support-contact">
          {contact}
        </a>
      ) : (
        <strong data-testid="support-contact">{contact}</strong>
      )}
      .
    </>
  );
}
