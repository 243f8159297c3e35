import { describe, expect, it } from 'vitest';
import { extractLinks } from './mail';
import { renderMailbox } from './mailbox';

describe('extractLinks', () => {
  it('finds links in the text and in href attributes, once each, without trailing punctuation', () => {
    const text = 'Откройте ссылку: http://localhost:5173/confirm?token=a.b-c_d. Или http://localhost:5173/.';
    const html =
      '<a href="http://localhost:5173/confirm?token=a.b-c_d">x</a> <a href=\'https://x.org/p?a=1&amp;b=2\'>y</a> <a href="mailto:a@b.c">m</a>';
    expect(extractLinks(text, html)).toEqual([
      'http://localhost:5173/confirm?token=a.b-c_d',
      'http://localhost:5173/',
      'https://x.org/p?a=1&b=2',
    ]);
  });
});

describe('renderMailbox', () => {
  const mail = (subject: string, at: string, text: string) => ({
    id: subject,
    from: 'no-reply@x.local',
    to: ['a@example.com'],
    subject,
    text,
    html: '',
    links: extractLinks(text, ''),
    at: new Date(at),
  });

  it('lists mail newest first with clickable links and escapes what the mail contains', () => {
    const page = renderMailbox(
      [
        mail('first <b>', '2026-01-01T10:00:00Z', 'go http://localhost:5173/confirm?token=t1&x=1 <now>'),
        mail('second', '2026-01-01T11:00:00Z', 'plain'),
      ],
      'http://127.0.0.1:8005',
    );
    expect(page.indexOf('<h2>second')).toBeGreaterThan(0);
    expect(page.indexOf('<h2>second')).toBeLessThan(page.indexOf('<h2>first'));
    expect(page).toContain('first &lt;b&gt;');
    expect(page).not.toContain('first <b>');
    expect(page).toContain('<a href="http://localhost:5173/confirm?token=t1&amp;x=1">');
    expect(page).toContain('&lt;now&gt;');
    expect(page).toContain('To <b>a@example.com</b>');
  });

  it('says so when there is no mail', () => {
    expect(renderMailbox([], 'http://127.0.0.1:8005')).toContain('No mail yet');
  });
});
