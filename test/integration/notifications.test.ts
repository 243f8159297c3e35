/**
 * Notifications over the real stores and the SES emulator (docs/NOTIFICATIONS.md): a report that
 * becomes ready is mailed once, whatever the ticks do (two ticks, a tick that died after its claim);
 * the settings and history routes; the weekly digest with its List-Unsubscribe headers, and the
 * one-click unsubscribe that stops the next one.
 */
import { describe, expect, it } from 'vitest';
import { handler as notificationsHandler } from '../../functions/notifications/notifications.handler';
import { handler as unsubscribeHandler } from '../../functions/notifications/unsubscribe.handler';
import { manualClock } from '../../shared/deps';
import { deliverDeps } from '../../shared/notifications/deliver-deps';
import { expandNewEvents, notificationsTick, LEASE_MS } from '../../shared/notifications/deliver';
import { digestDeps } from '../../shared/notifications/digest-deps';
import { runDigest } from '../../shared/notifications/digest';
import { rub } from '../../shared/notifications/messages';
import { notificationStore } from '../../shared/store/notifications.repo';
import { getReport } from '../../shared/store/reports.repo';
import { getUserById } from '../../shared/store/users.repo';
import { readMail } from '../support/emulators';
import { apiEvent } from '../support/test-event';
import { makeReport, newUser, uploadOk } from '../support/reports';

const ses = () => process.env.SES_ENDPOINT as string;

/** Every mail to `email`, oldest first, with the headers the emulator kept. */
async function mailTo(email: string) {
  const res = await fetch(new URL('/store', ses()));
  const store = (await res.json()) as {
    emails: Array<{ destination: { to: string[] }; subject: string; headers?: Array<{ name: string; value: string }> }>;
  };
  const headers = store.emails.filter((e) => e.destination.to.includes(email)).map((e) => e.headers ?? []);
  const mails = (await readMail(ses())).filter((m) => m.to.includes(email));
  return mails.map((m, i) => ({ ...m, headers: Object.fromEntries(headers[i]!.map((h) => [h.name, h.value])) }));
}

/** The ticks of these tests: only this user's deliveries count (other suites' events may be due too). */
const tick = (clock = manualClock()) => notificationsTick({ ...deliverDeps(), clock });

async function readyReport(seed: number) {
  const u = await newUser(100_000, 'notify');
  const email = (await getUserById(u.id))!.email;
  const report = await uploadOk(u.token, makeReport({ seed }));
  return { u, email, report };
}

describe('a report becomes ready → one mail', () => {
  it('mails the week, revenue, profit, margin and payout once, through two ticks', async () => {
    const { u, email, report } = await readyReport(61);
    const record = (await getReport(u.id, report.id))!;
    await tick();
    await tick();
    const mails = (await mailTo(email)).filter((m) => m.subject.startsWith('Отчёт готов'));
    expect(mails).toHaveLength(1);
    const t = record.totals as Record<string, number>;
    expect(mails[0]!.text).toContain(`Прибыль: ${rub(t.profit!)}`);
    expect(mails[0]!.text).toContain(`Выручка (реализация): ${rub(t.realization!)}`);
    expect(mails[0]!.text).toContain(`К выплате: ${rub(t.payout!)}`);
    expect(mails[0]!.links.some((l) => l.endsWith(`/reports/${report.id}`))).toBe(true);

    // The history route says so.
    const h = await notificationsHandler(apiEvent({ method: 'GET', path: '/api/notifications', token: u.token }));
    expect(h.statusCode).toBe(200);
    const items = JSON.parse(h.body ?? '{}').items as Array<Record<string, unknown>>;
    expect(items.find((i) => i.event_key === `report_ready:${report.id}` && i.channel === 'email')).toMatchObject({
      status: 'sent',
      kind: 'report_ready',
    });
    // No Telegram linked: no Telegram delivery at all.
    expect(items.filter((i) => i.channel === 'telegram')).toEqual([]);
  });

  it('a tick that died after its claim: the next one sends after the lease, once', async () => {
    const { u, email, report } = await readyReport(62);
    const clock = manualClock();
    // Deliveries written (the tick's first step) but nothing claimed yet: do it by hand and "die".
    await expandNewEvents({ ...deliverDeps(), clock });
    const mine = (await notificationStore.history(u.id, 10)).items.find(
      (d) => d.event_key === `report_ready:${report.id}` && d.channel === 'email',
    )!;
    const now = clock.now().getTime();
    expect(await notificationStore.claim(mine, now, now + LEASE_MS, 'dead-tick')).toBe(true);
    await tick(clock);
    expect((await mailTo(email)).filter((m) => m.subject.startsWith('Отчёт готов'))).toHaveLength(0);
    clock.advance(LEASE_MS + 1000);
    await tick(clock);
    await tick(clock);
    expect((await mailTo(email)).filter((m) => m.subject.startsWith('Отчёт готов'))).toHaveLength(1);
  });
});

describe('settings', () => {
  it('defaults, a change kept, 422 naming the field', async () => {
    const u = await newUser(100_000, 'notify');
    const get = () =>
      notificationsHandler(apiEvent({ method: 'GET', path: '/api/notifications/settings', token: u.token }));
    const first = JSON.parse((await get()).body ?? '{}');
    expect(first.events.report_ready).toEqual({ email: true, telegram: true });
    expect(first.channels.telegram).toEqual({ status: 'not_linked', username: null, linked_at: null });
    const put = (body: unknown) =>
      notificationsHandler(apiEvent({ method: 'PUT', path: '/api/notifications/settings', token: u.token, body }));
    const ok = await put({
      events: { penalties: { email: false, telegram: true } },
      quiet_hours: { from: '23:00', to: '08:00' },
      profit_drop_percent: 30,
    });
    expect(ok.statusCode).toBe(200);
    const after = JSON.parse((await get()).body ?? '{}');
    expect(after).toMatchObject({
      events: { penalties: { email: false, telegram: true }, report_ready: { email: true, telegram: true } },
      quiet_hours: { from: '23:00', to: '08:00' },
      profit_drop_percent: 30,
    });
    const bad = await put({ events: {}, quiet_hours: { from: '25:00', to: '08:00' }, profit_drop_percent: 30 });
    expect(bad.statusCode).toBe(422);
    expect(JSON.parse(bad.body ?? '{}').error).toMatchObject({
      code: 'invalid_notification_settings',
      details: { field: 'quiet_hours.from' },
    });
  });
});

describe('the weekly digest', () => {
  it('arrives with List-Unsubscribe (one-click); POST unsubscribes; the next week sends none', async () => {
    const { u, email } = await readyReport(63);
    // The run on the Monday after the report (its events put the user on that run's roster).
    const monday = (() => {
      const d = new Date();
      const days = (8 - d.getUTCDay()) % 7 || 7;
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + days, 7, 0, 5);
    })();
    const clock = manualClock(monday);
    const r = await runDigest({ ...digestDeps, clock }, { userIds: [u.id] });
    expect(r.recorded).toBe(1);
    expect((await runDigest({ ...digestDeps, clock }, { userIds: [u.id] })).recorded).toBe(0);
    await tick(clock);
    const digests = (await mailTo(email)).filter((m) => m.subject.startsWith('Сводка за неделю'));
    expect(digests).toHaveLength(1);
    const d = digests[0]!;
    expect(d.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    const link = /<(https?:[^>]+)>/.exec(d.headers['List-Unsubscribe'] ?? '')![1]!;
    expect(d.headers['List-Unsubscribe']).toContain('<mailto:');
    expect(d.text).toContain('Лучшие артикулы по прибыли');
    expect(d.html).toContain('Прибыли и убытки');
    const token = new URL(link).searchParams.get('token')!;

    const page = await unsubscribeHandler(
      apiEvent({ method: 'GET', path: '/api/notifications/unsubscribe', query: { token } }),
    );
    expect(page.statusCode).toBe(200);
    expect(Buffer.from(page.body ?? '', 'base64').toString('utf8')).toContain('Отписаться');
    const bad = await unsubscribeHandler(
      apiEvent({ method: 'POST', path: '/api/notifications/unsubscribe', query: { token: `${token}x` } }),
    );
    expect(bad.statusCode).toBe(400);
    const done = await unsubscribeHandler(
      apiEvent({
        method: 'POST',
        path: '/api/notifications/unsubscribe',
        query: { token },
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      }),
    );
    expect(done.statusCode).toBe(200);
    expect(Buffer.from(done.body ?? '', 'base64').toString('utf8')).toContain('больше не получает');

    // A week later, with a new report: no digest for this user.
    clock.advance(7 * 86_400_000);
    expect(await runDigest({ ...digestDeps, clock }, { userIds: [u.id] })).toMatchObject({ recorded: 0, off: 1 });
  });
});
