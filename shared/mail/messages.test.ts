import { describe, expect, it } from 'vitest';
import { confirmationMail, confirmLink, passwordMail, resetMail } from './messages';

describe('mail texts', () => {
  const link = confirmLink('http://localhost:5173/', 'a.b-c_d');

  it('builds the confirm link on the web page', () => {
    expect(link).toBe('http://localhost:5173/confirm?token=a.b-c_d');
  });

  it('confirmation mail carries the link in both parts, in Russian', () => {
    const m = confirmationMail('ivan@example.com', link);
    expect(m.to).toBe('ivan@example.com');
    expect(m.subject).toBe('Подтвердите адрес электронной почты');
    expect(m.text).toContain(link);
    expect(m.html).toContain(`href="${link}"`);
    expect(m.text).toContain('24 часа');
  });

  it('password mail carries the password and the login', () => {
    const m = passwordMail('ivan@example.com', 'Abc234xyzKLMnpq', 'http://localhost:5173', 'confirmed');
    expect(m.text).toContain('Abc234xyzKLMnpq');
    expect(m.html).toContain('Abc234xyzKLMnpq');
    expect(m.text).toContain('Логин: ivan@example.com');
    expect(passwordMail('a@b.c', 'x'.repeat(12), 'http://x', 'reset').subject).toBe('Ваш новый пароль');
  });

  it('reset mail says one hour and escapes HTML', () => {
    const m = resetMail('<script>@example.com', link);
    expect(m.text).toContain('1 час');
    expect(m.html).not.toContain('<script>');
    expect(m.html).toContain('&lt;script&gt;');
  });

  it('names the product as the web page does, «Прибыльность WB»', () => {
    const m = confirmationMail('ivan@example.com', link);
    expect(m.text).toContain('«Прибыльность WB»');
    expect(m.html).toContain('Прибыльность WB');
    expect(`${m.text}${m.html}`).not.toContain('Рентабельность');
  });
});
