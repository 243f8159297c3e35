import { SendEmailCommand } from '@aws-sdk/client-sesv2';
import { getConfig } from '../config';
import { ses } from './client';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers (List-Unsubscribe, List-Unsubscribe-Post: RFC 8058), sent as SES v2 Simple `Headers`. */
  headers?: Record<string, string>;
}

/**
 * Sends one message through SES v2 (Simple content: a plain and an HTML part, UTF-8). Nothing of the
 * message is logged: it may carry a password or a one-time link.
 */
export async function sendMail(m: MailMessage): Promise<void> {
  await ses().send(
    new SendEmailCommand({
      FromEmailAddress: getConfig().MAIL_FROM,
      Destination: { ToAddresses: [m.to] },
      Content: {
        Simple: {
          Subject: { Data: m.subject, Charset: 'UTF-8' },
          Body: { Text: { Data: m.text, Charset: 'UTF-8' }, Html: { Data: m.html, Charset: 'UTF-8' } },
          ...(m.headers ? { Headers: Object.entries(m.headers).map(([Name, Value]) => ({ Name, Value })) } : {}),
        },
      },
    }),
  );
}
