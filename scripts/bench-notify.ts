/**
 * `npm run bench:notify`: on the local stack (`startStack`, free ports, no web app), the time from a
 * report becoming ready to its Telegram message. A seller links a chat through the Telegram emulator
 * (the code from the API, `/start <code>` from the emulator's user), uploads weekly reports one after
 * another, and for each the report_ready event's time (recorded by the worker when the report became
 * ready) is compared with the time the Telegram emulator received the message, and with the delivery's
 * `sent_at`. The stack's delivery tick runs every 2 s (scripts/local/notifications.ts); on AWS the
 * schedule runs it every minute, so there a message follows its report within about a minute.
 *
 *   npm run bench:notify [-- --reports 5]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { signToken } from '../shared/auth/tokens';
import { createUser } from '../shared/store/users.repo';
import { generateReport } from './fixtures/generate';
import { median } from './local/bench-shell';
import { startStack, type Stack } from './local/stack';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

async function main(): Promise<void> {
  const count = arg('reports', 5);
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-notify-'));
  let stack: Stack | undefined;
  try {
    console.log('starting the stack on free ports…');
    stack = await startStack({ dataDir: path.join(dir, 'data'), freePorts: true, web: false });
    if (!stack.urls.telegram) throw new Error('the Telegram emulator is not running (TELEGRAM_API_URL is set)');
    const tg = stack.urls.telegram.replace(/\/$/, '');
    const user = await createUser({ email: `notify-${Date.now()}@example.com`, confirmed: true, limits: 1_000_000 });
    const auth = { Authorization: `Bearer ${signToken({ user_id: user.id }, 'access')}` };
    const api = stack.urls.api;

    const link = (await (
      await fetch(`${api}/notifications/telegram/link`, { method: 'POST', headers: auth })
    ).json()) as { code: string };
    const chat = 7_000_000 + Math.floor(Math.random() * 1_000_000);
    const start = await fetch(`${tg}/_user/${chat}/send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: `/start ${link.code}`, username: 'bench_seller' }),
    });
    if (!start.ok) throw new Error(`the emulator's user could not write to the bot: ${start.status}`);

    const rows: Array<{ report: string; viaEmulatorMs: number; sentMs: number }> = [];
    for (let i = 0; i < count; i++) {
      const file = generateReport({ rows: 500, layout: '2026', format: 'xlsx', seed: 90 + i, week: i + 1 });
      const form = new FormData();
      form.set('file', new Blob([new Uint8Array(file.file)]), file.filename);
      const up = await fetch(`${api}/reports/upload`, { method: 'POST', headers: auth, body: form });
      const answer = (await up.json()) as { report?: { id: string; status: string } };
      if (!answer.report) throw new Error(`upload ${i + 1} answered ${up.status}`);
      const id = answer.report.id;
      const key = `report_ready:${id}`;
      for (let waited = 0; ; waited += 250) {
        if (waited > 180_000) throw new Error(`no Telegram message for ${id} in 3 minutes`);
        const h = (await (await fetch(`${api}/notifications`, { headers: auth })).json()) as {
          items: Array<{
            event_key: string;
            channel: string;
            status: string;
            created_at: string;
            sent_at: string | null;
          }>;
        };
        const d = h.items.find((x) => x.event_key === key && x.channel === 'telegram' && x.status === 'sent');
        if (d) {
          const messages = (await (await fetch(`${tg}/messages?chat_id=${chat}`)).json()) as Array<{
            text: string;
            at: string;
          }>;
          const m = messages.find((x) => x.text.includes(`/reports/${id}`) && x.text.startsWith('<b>Отчёт готов'));
          if (!m) throw new Error(`the delivery of ${id} says sent but the emulator has no message`);
          const ready = Date.parse(d.created_at);
          rows.push({ report: id, viaEmulatorMs: Date.parse(m.at) - ready, sentMs: Date.parse(d.sent_at!) - ready });
          break;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      console.log(`report ${i + 1}: ready → Telegram message ${(rows.at(-1)!.viaEmulatorMs / 1000).toFixed(2)} s`);
    }
    const em = rows.map((r) => r.viaEmulatorMs);
    console.log('\n| reports | ready → message in the emulator, median | max | local tick period |');
    console.log('|---|---|---|---|');
    console.log(
      `| ${rows.length} | ${(median(em) / 1000).toFixed(2)} s | ${(Math.max(...em) / 1000).toFixed(2)} s | 2 s (AWS: 1 min) |`,
    );
  } finally {
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
