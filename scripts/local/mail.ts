/** Reading the mail the SES emulator (aws-ses-v2-local) has "sent", through its `GET /store`. */

export interface SentMail {
  id: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** Every distinct http(s) link in the text and the html (href values), in order of appearance. */
  links: string[];
  /** When the emulator received it. */
  at: Date;
}

interface StoreEmail {
  messageId: string;
  from: string;
  destination: { to: string[]; cc: string[]; bcc: string[] };
  subject: string;
  body: { html?: string; text?: string };
  at: number;
}

function decodeEntities(s: string): string {
  return s
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'");
}

export function extractLinks(text: string, html: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/https?:\/\/[^\s<>"')\]]+/g)) found.push(m[0].replace(/[.,;:!?]+$/, ''));
  for (const m of html.matchAll(/href\s*=\s*("([^"]*)"|'([^']*)')/gi)) {
    const href = decodeEntities(m[2] ?? m[3] ?? '');
    if (/^https?:\/\//i.test(href)) found.push(href);
  }
  return [...new Set(found)];
}

/** Every mail the emulator holds, oldest first. */
export async function readMail(sesEndpoint: string): Promise<SentMail[]> {
  const res = await fetch(new URL('/store', sesEndpoint));
  if (!res.ok) throw new Error(`SES emulator ${sesEndpoint} answered ${res.status} on /store`);
  const store = (await res.json()) as { emails: StoreEmail[] };
  return store.emails.map((e) => {
    const text = e.body.text ?? '';
    const html = e.body.html ?? '';
    return {
      id: e.messageId,
      from: e.from,
      to: [...e.destination.to, ...e.destination.cc, ...e.destination.bcc],
      subject: e.subject,
      text,
      html,
      links: extractLinks(text, html),
      at: new Date(e.at * 1000),
    };
  });
}

/**
 * The newest mail to `to` (case-insensitive) that satisfies `predicate`, polling until one arrives.
 * Rejects after timeoutMs naming what it saw, so a failing test says which mail was missing.
 */
export async function waitForMail(
  sesEndpoint: string,
  to: string,
  predicate: (mail: SentMail) => boolean = () => true,
  timeoutMs = 15_000,
): Promise<SentMail> {
  const deadline = Date.now() + timeoutMs;
  const addr = to.toLowerCase();
  for (;;) {
    const all = await readMail(sesEndpoint);
    const mine = all.filter((m) => m.to.some((t) => t.toLowerCase().includes(addr)));
    const hit = mine.reverse().find(predicate);
    if (hit) return hit;
    if (Date.now() > deadline) {
      throw new Error(
        `No matching mail to ${to} within ${timeoutMs} ms; mail to them: ${JSON.stringify(mine.map((m) => m.subject))}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Calls onMail for every mail that arrives after the call, polling every intervalMs.
 * Returns the function that stops watching.
 */
export function watchMail(sesEndpoint: string, onMail: (mail: SentMail) => void, intervalMs = 1_000): () => void {
  const seen = new Set<string>();
  let primed = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    try {
      const all = await readMail(sesEndpoint);
      for (const m of all) {
        if (seen.has(m.id)) continue;
        seen.add(m.id);
        if (primed) onMail(m);
      }
      primed = true;
    } catch {
      // the emulator is restarting or stopping; try again next tick
    }
    if (!stopped) timer = setTimeout(() => void tick(), intervalMs);
  };
  void tick();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
