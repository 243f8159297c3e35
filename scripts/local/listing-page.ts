/**
 * The local stack's pages for people (the mailbox, the Telegram emulator's messages): one HTML shell,
 * newest first, that reloads itself when its `count` endpoint says something new arrived.
 */

/** Text for HTML, every special character escaped. */
export function esc(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

export function listingPage(p: {
  /** The window's title, before the count. */
  title: string;
  /** How many items the page shows (the reload compares it with GET `count`). */
  count: number;
  /** CSS of the page's own elements (the body's is shared). */
  style: string;
  /** HTML: the heading and the line under it. */
  heading: string;
  intro: string;
  /** HTML of the items, newest first; `empty` (HTML) when there are none. */
  items: string;
  empty: string;
}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${esc(p.title)} (${p.count})</title>
<link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: 1rem 1.5rem; color: #1d2430; }
  .meta { color: #5a6474; }
  pre { white-space: pre-wrap; word-break: break-word; font: inherit; }
  .empty { color: #5a6474; font-style: italic; }
${p.style}
</style>
</head>
<body>
<h1>${p.heading}</h1>
${p.intro}
${p.items || `<p class="empty">${p.empty}</p>`}
<script>
  const count = ${p.count};
  setInterval(async () => {
    try {
      const r = await fetch('count');
      if (r.ok && Number(await r.text()) !== count) location.reload();
    } catch {}
  }, 2000);
</script>
</body>
</html>`;
}
