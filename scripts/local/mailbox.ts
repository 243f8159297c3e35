import http from 'node:http';
import { readMail, type SentMail } from './mail';
import { API_DOCS_PATH, serveApiDocs } from './api-docs';
import { esc, listingPage } from './listing-page';

/**
 * A page for people: the mail the local stack has "sent" (confirmation links, passwords), newest
 * first, with clickable links. Served by the launcher; the SES emulator keeps the mail.
 */

/** Text with its http(s) links made clickable; everything else escaped. */
function linkify(text: string): string {
  const parts: string[] = [];
  let last = 0;
  for (const m of text.matchAll(/https?:\/\/[^\s<>"')\]]+/g)) {
    const url = m[0].replace(/[.,;:!?]+$/, '');
    const at = m.index ?? 0;
    parts.push(esc(text.slice(last, at)), `<a href="${esc(url)}">${esc(url)}</a>`);
    last = at + url.length;
  }
  parts.push(esc(text.slice(last)));
  return parts.join('');
}

export function renderMailbox(mails: SentMail[], sesEndpoint: string): string {
  const newestFirst = [...mails].sort((a, b) => b.at.getTime() - a.at.getTime());
  const items = newestFirst
    .map((m) => {
      const extraLinks = m.links.filter((l) => !m.text.includes(l));
      return `<article class="mail">
  <header>
    <h2>${esc(m.subject || '(no subject)')}</h2>
    <div class="meta">To <b>${esc(m.to.join(', '))}</b> · from ${esc(m.from)} · <time datetime="${m.at.toISOString()}">${esc(m.at.toLocaleString('en-GB'))}</time></div>
  </header>
  <pre>${linkify(m.text || '(no text part)')}</pre>
  ${extraLinks.length ? `<ul class="links">${extraLinks.map((l) => `<li><a href="${esc(l)}">${esc(l)}</a></li>`).join('')}</ul>` : ''}
</article>`;
    })
    .join('\n');
  return listingPage({
    title: 'Local mailbox',
    count: mails.length,
    style: `  h1 { font-size: 1.4rem; margin: .5rem 0 0; }
  .intro { color: #5a6474; margin: .25rem 0 1.5rem; }
  .mail { border: 1px solid #d7dce3; border-radius: 8px; padding: .75rem 1rem; margin-bottom: 1rem; }
  .mail h2 { font-size: 1.1rem; margin: 0 0 .2rem; }
  .meta { font-size: .9rem; }
  pre { margin: .75rem 0 0; }
  a { color: #0b5cd5; }`,
    heading: 'Local mailbox',
    intro: `<p class="intro">Mail sent by the local stack through the SES emulator (${esc(sesEndpoint)}), newest first. It lives in memory: a restart of <code>npm start</code> empties it. This page refreshes itself when new mail arrives.</p>`,
    items,
    empty: 'No mail yet. Register on the web app and the confirmation letter appears here.',
  });
}

export async function startMailbox(opts: {
  port: number;
  sesEndpoint: string;
  /** The API's URL, for the API reference at /api-docs/ ("Try it out" calls it). */
  apiUrl?: string;
}): Promise<{ url: string; stop(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === API_DOCS_PATH || path.startsWith(`${API_DOCS_PATH}/`)) {
      serveApiDocs(req, res, { apiUrl: opts.apiUrl }).catch((e: Error) => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`The API reference failed: ${e.message}`);
      });
      return;
    }
    readMail(opts.sesEndpoint)
      .then((mails) => {
        if (path === '/' || path === '/mailbox' || path === '/mailbox/') {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
          res.end(renderMailbox(mails, opts.sesEndpoint));
        } else if (path === '/count' || path === '/mailbox/count') {
          res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' });
          res.end(String(mails.length));
        } else if (path === '/mail.json') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(mails));
        } else {
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('Not found: the mailbox is at /');
        }
      })
      .catch((e: Error) => {
        res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`The SES emulator at ${opts.sesEndpoint} did not answer: ${e.message}`);
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://localhost:${opts.port}/`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
