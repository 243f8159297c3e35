/**
 * The mail channel: one message through SES (shared/mail/send.ts), plain text and HTML, with its extra
 * headers (the digest's List-Unsubscribe). SES refusing or unreachable: try again later (the core's
 * backoff); SES rejecting the message itself (a bad address): never again.
 */
import type { MailMessage } from '../mail/send';
import type { NotificationChannel, OutgoingMessage, Recipient, SendResult } from './channel';

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** SES's errors that no retry can mend. */
const REJECTED = new Set(['MessageRejected', 'BadRequestException', 'MailFromDomainNotVerifiedException']);

export function emailChannel(send: (m: MailMessage) => Promise<void>): NotificationChannel {
  return {
    name: 'email',
    async send(to: Recipient, m: OutgoingMessage): Promise<SendResult> {
      const html = m.html ?? `<pre>${escapeHtml(m.text)}</pre>`;
      try {
        await send({
          to: to.email,
          subject: m.subject,
          text: m.text,
          html,
          ...(m.headers ? { headers: m.headers } : {}),
        });
        return { ok: true };
      } catch (e) {
        const name = e instanceof Error ? e.name : 'Error';
        if (REJECTED.has(name)) return { ok: false, retry: false, reason: 'rejected' };
        return { ok: false, retry: true, reason: name };
      }
    },
  };
}
