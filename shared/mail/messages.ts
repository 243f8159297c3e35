/**
 * Texts of the service's mail, in Russian, each as a plain and an HTML part. Pure functions of their
 * inputs: `appUrl` is APP_URL (the web page), links lead to its /confirm page, which calls
 * `GET /api/auth/confirm` for both the confirm and the reset scenario (docs/API.md).
 */
import { PRODUCT_NAME } from '../product';
import type { MailMessage } from './send';

const SERVICE = PRODUCT_NAME;

function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

export function confirmLink(appUrl: string, token: string): string {
  return `${appUrl.replace(/\/+$/, '')}/confirm?token=${encodeURIComponent(token)}`;
}

function layout(title: string, paragraphs: string[]): string {
  return [
    '<!doctype html><html lang="ru"><head><meta charset="utf-8"><title>',
    escapeHtml(title),
    '</title></head><body style="font-family:Arial,sans-serif;font-size:15px;line-height:1.5;color:#222">',
    ...paragraphs.map((p) => `<p>${p}</p>`),
    `<p style="color:#888;font-size:13px">${escapeHtml(SERVICE)}</p>`,
    '</body></html>',
  ].join('');
}

function linkHtml(url: string, label: string): string {
  const u = escapeHtml(url);
  return `<a href="${u}" style="display:inline-block;padding:10px 18px;background:#7b2cbf;color:#fff;text-decoration:none;border-radius:6px">${escapeHtml(label)}</a><br><span style="font-size:13px;color:#555">Если кнопка не работает, откройте ссылку: ${u}</span>`;
}

/** Registration: the link that confirms the address (valid 24 hours). */
export function confirmationMail(to: string, link: string): MailMessage {
  const subject = 'Подтвердите адрес электронной почты';
  const text = [
    'Здравствуйте!',
    '',
    `Вы (или кто-то от вашего имени) зарегистрировались в сервисе «${SERVICE}» с адресом ${to}.`,
    'Чтобы подтвердить адрес и получить пароль, откройте ссылку (она действует 24 часа):',
    link,
    '',
    'Если вы не регистрировались, просто проигнорируйте это письмо.',
  ].join('\n');
  const html = layout(subject, [
    'Здравствуйте!',
    `Вы (или кто-то от вашего имени) зарегистрировались в сервисе «${escapeHtml(SERVICE)}» с адресом ${escapeHtml(to)}.`,
    'Чтобы подтвердить адрес и получить пароль, откройте ссылку (она действует 24 часа):',
    linkHtml(link, 'Подтвердить адрес'),
    'Если вы не регистрировались, просто проигнорируйте это письмо.',
  ]);
  return { to, subject, text, html };
}

/** After confirmation or a reset: the generated password and where to sign in. */
export function passwordMail(to: string, password: string, appUrl: string, reason: 'confirmed' | 'reset'): MailMessage {
  const subject = reason === 'confirmed' ? 'Ваш пароль для входа' : 'Ваш новый пароль';
  const lead =
    reason === 'confirmed'
      ? 'Адрес подтверждён. Ваш пароль для входа в сервис:'
      : 'Пароль сброшен. Ваш новый пароль для входа в сервис:';
  const login = `${appUrl.replace(/\/+$/, '')}/`;
  const text = [
    'Здравствуйте!',
    '',
    lead,
    '',
    password,
    '',
    `Логин: ${to}`,
    `Войти: ${login}`,
    '',
    'Храните пароль в надёжном месте и никому его не сообщайте.',
  ].join('\n');
  const html = layout(subject, [
    'Здравствуйте!',
    escapeHtml(lead),
    `<code style="font-size:20px;letter-spacing:1px;background:#f3f3f3;padding:6px 10px;border-radius:4px">${escapeHtml(password)}</code>`,
    `Логин: ${escapeHtml(to)}<br>Войти: <a href="${escapeHtml(login)}">${escapeHtml(login)}</a>`,
    'Храните пароль в надёжном месте и никому его не сообщайте.',
  ]);
  return { to, subject, text, html };
}

/** Forgot password: a one-time link that sets and mails a new password (valid 1 hour). */
export function resetMail(to: string, link: string): MailMessage {
  const subject = 'Сброс пароля';
  const text = [
    'Здравствуйте!',
    '',
    `Для адреса ${to} запрошен сброс пароля. Чтобы получить новый пароль, откройте ссылку (она действует 1 час и срабатывает один раз):`,
    link,
    '',
    'Если вы не запрашивали сброс, просто проигнорируйте это письмо: текущий пароль продолжит действовать.',
  ].join('\n');
  const html = layout(subject, [
    'Здравствуйте!',
    `Для адреса ${escapeHtml(to)} запрошен сброс пароля. Чтобы получить новый пароль, откройте ссылку (она действует 1 час и срабатывает один раз):`,
    linkHtml(link, 'Получить новый пароль'),
    'Если вы не запрашивали сброс, просто проигнорируйте это письмо: текущий пароль продолжит действовать.',
  ]);
  return { to, subject, text, html };
}

/**
 * Registration of an address that already has a confirmed account: no link, no password, just where
 * to sign in. Sent instead of the confirmation mail so that both registrations do the same work and
 * answer in the same time (issue 12: timing must not tell who has an account).
 */
export function accountExistsMail(to: string, appUrl: string): MailMessage {
  const subject = 'Вы уже зарегистрированы';
  const login = `${appUrl.replace(/\/+$/, '')}/`;
  const text = [
    'Здравствуйте!',
    '',
    `Кто-то (возможно, вы) попытался зарегистрироваться в сервисе «${SERVICE}» с адресом ${to}, но у этого адреса уже есть учётная запись.`,
    `Войти: ${login}`,
    'Если вы забыли пароль, нажмите «Забыли пароль?» на странице входа.',
    '',
    'Если это были не вы, просто проигнорируйте это письмо: ваш пароль не изменился.',
  ].join('\n');
  const html = layout(subject, [
    'Здравствуйте!',
    `Кто-то (возможно, вы) попытался зарегистрироваться в сервисе «${escapeHtml(SERVICE)}» с адресом ${escapeHtml(to)}, но у этого адреса уже есть учётная запись.`,
    linkHtml(login, 'Войти'),
    'Если вы забыли пароль, нажмите «Забыли пароль?» на странице входа.',
    'Если это были не вы, просто проигнорируйте это письмо: ваш пароль не изменился.',
  ]);
  return { to, subject, text, html };
}

/**
 * A WB connection's token expires in a few days (docs/API.md «WB connections»): which WB account, when,
 * and where to paste a new one; without it the sync stops at the expiry.
 */
export function wbTokenExpiryMail(
  to: string,
  c: { sellerName: string | null; wbSellerId: string; tokenHint: string; expiresAt: string },
  appUrl: string,
): MailMessage {
  const subject = 'Токен WB скоро истечёт';
  const settings = `${appUrl.replace(/\/+$/, '')}/settings`;
  const date = new Date(c.expiresAt).toLocaleDateString('ru-RU', { timeZone: 'Europe/Moscow' });
  const account = `${c.sellerName ? `«${c.sellerName}», ` : ''}ID продавца WB ${c.wbSellerId}`;
  const lines = [
    `Срок действия токена WB API (${c.tokenHint}) кабинета ${account} истекает ${date}.`,
    'После этого отчёты WB перестанут загружаться сами. Создайте новый токен с категорией «Финансы» в личном кабинете WB (Профиль → Настройки → «Доступ к API») и вставьте его в разделе «Подключение WB»:',
  ];
  const text = ['Здравствуйте!', '', ...lines, settings].join('\n');
  const html = layout(subject, ['Здравствуйте!', ...lines.map(escapeHtml), linkHtml(settings, 'Заменить токен')]);
  return { to, subject, text, html };
}
