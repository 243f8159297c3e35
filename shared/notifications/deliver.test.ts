import { describe, expect, it, vi } from 'vitest';
import { manualClock } from '../deps';
import { memoryNotificationStore } from '../../test/support/notifications-memory';
import type { NotificationChannel, SendResult, TelegramLinks } from './channel';
import { expandNewEvents, LEASE_MS, notificationsTick, type DeliverDeps } from './deliver';
import { recordEvent } from './record';
import { defaultSettings } from './settings';

function setup(results: { email?: SendResult[]; telegram?: SendResult[] } = {}) {
  const mem = memoryNotificationStore();
  const clock = manualClock('2026-03-03T09:00:00Z'); // 12:00 MSK
  const sent: Array<{ channel: string; subject: string; to: string | number | undefined }> = [];
  const channel = (name: 'email' | 'telegram'): NotificationChannel => ({
    name,
    send: vi.fn(async (to, m) => {
      const r = results[name]?.shift() ?? { ok: true };
      if (r.ok) sent.push({ channel: name, subject: m.subject, to: name === 'email' ? to.email : to.telegramChatId });
      return r;
    }),
  });
  const links: TelegramLinks = {
    getLink: vi.fn(async () => ({ chat_id: 42, status: 'linked' as const, linked_at: '2026-03-01T00:00:00Z' })),
    markBroken: vi.fn(async () => {}),
  };
  let n = 0;
  const deps: DeliverDeps = {
    store: mem.store,
    channels: { email: channel('email'), telegram: channel('telegram') },
    telegramLinks: links,
    userEmail: async () => 'seller@example.com',
    clock,
    ids: { newId: () => `claim-${++n}` },
  };
  const record = (key = 'report_ready:r1') =>
    recordEvent(
      { store: mem.store, clock, appUrl: () => 'https://app.example' },
      { userId: 'u1', kind: 'report_ready', key, subject: 'Отчёт готов', text: 'Прибыль 1 ₽' },
    );
  return { mem, clock, sent, deps, links, record };
}

describe('the delivery tick', () => {
  it('sends a recorded event once per channel, however often it is recorded or the tick runs', async () => {
    const { deps, sent, record } = setup();
    expect(await record()).toBe(true);
    expect(await record()).toBe(false); // a retried worker
    expect(await notificationsTick(deps)).toMatchObject({ expanded: 1, sent: 2 });
    expect(await notificationsTick(deps)).toMatchObject({ expanded: 0, sent: 0 });
    expect(sent).toEqual([
      { channel: 'email', subject: 'Отчёт готов', to: 'seller@example.com' },
      { channel: 'telegram', subject: 'Отчёт готов', to: 42 },
    ]);
  });

  it('follows the settings: a channel switched off gets nothing', async () => {
    const { deps, sent, record, mem } = setup();
    const s = defaultSettings();
    s.events.report_ready = { email: false, telegram: true };
    await mem.store.putSettings('u1', s);
    await record();
    await notificationsTick(deps);
    expect(sent.map((m) => m.channel)).toEqual(['telegram']);
  });

  it('a claim is taken once: a second tick at the same moment finds nothing, and takes it after the lease of a crashed one', async () => {
    const { deps, record, mem, clock, sent } = setup();
    await record();
    await expandNewEvents(deps);
    const [d] = await mem.store.listDue(clock.now().getTime(), 10);
    // A tick claims and dies before sending.
    expect(await mem.store.claim(d!, clock.now().getTime(), clock.now().getTime() + LEASE_MS, 'dead')).toBe(true);
    expect(await mem.store.claim(d!, clock.now().getTime(), clock.now().getTime() + LEASE_MS, 'other')).toBe(false);
    expect(await notificationsTick(deps)).toMatchObject({ sent: 1 }); // the telegram one only
    clock.advance(LEASE_MS);
    expect(await notificationsTick(deps)).toMatchObject({ sent: 1 });
    expect(sent.map((m) => m.channel).sort()).toEqual(['email', 'telegram']);
    expect(await notificationsTick(deps)).toMatchObject({ sent: 0 });
  });

  it('retries with exponential backoff, keeping a 429 retry-after, then sends once', async () => {
    const { deps, record, mem, clock, sent } = setup({
      email: [
        { ok: false, retry: true, reason: 'Throttling' },
        { ok: false, retry: true, reason: 'Throttling' },
      ],
      telegram: [{ ok: false, retry: true, retryAfterMs: 300_000, reason: '429' }],
    });
    await record();
    expect(await notificationsTick(deps)).toMatchObject({ retried: 2 });
    const due = () => [...mem.deliveries.values()].map((d) => [d.channel, d.due_ms - clock.now().getTime()]);
    expect(due()).toEqual([
      ['email', 60_000],
      ['telegram', 300_000],
    ]);
    clock.advance(60_000);
    expect(await notificationsTick(deps)).toMatchObject({ retried: 1 }); // email's 2nd failure: 2 min
    clock.advance(120_000);
    expect(await notificationsTick(deps)).toMatchObject({ sent: 1 });
    clock.advance(120_000);
    expect(await notificationsTick(deps)).toMatchObject({ sent: 1 });
    expect(sent.map((m) => m.channel)).toEqual(['email', 'telegram']);
  });

  it('a chat that blocked the bot: failed, the link marked broken, never tried again', async () => {
    const { deps, record, mem, links, clock } = setup({ telegram: [{ ok: false, retry: false, reason: 'blocked' }] });
    await record();
    expect(await notificationsTick(deps)).toMatchObject({ sent: 1, failed: 1 });
    expect(links.markBroken).toHaveBeenCalledWith('u1');
    const tg = [...mem.deliveries.values()].find((d) => d.channel === 'telegram')!;
    expect(tg).toMatchObject({ status: 'failed', reason: 'blocked' });
    clock.advance(86_400_000);
    expect(await notificationsTick(deps)).toMatchObject({ sent: 0, failed: 0 });
  });

  it('holds Telegram in quiet hours until they end; mail goes at once', async () => {
    const { deps, record, mem, clock, sent } = setup();
    await mem.store.putSettings('u1', { ...defaultSettings(), quiet_hours: { from: '23:00', to: '08:00' } });
    clock.set('2026-03-03T21:00:00Z'); // 00:00 MSK
    await record();
    expect(await notificationsTick(deps)).toMatchObject({ sent: 1, held: 1 });
    const tg = [...mem.deliveries.values()].find((d) => d.channel === 'telegram')!;
    expect(tg).toMatchObject({ status: 'held', reason: 'quiet_hours', due_ms: Date.parse('2026-03-04T05:00:00Z') });
    clock.set('2026-03-04T04:59:00Z');
    expect(await notificationsTick(deps)).toMatchObject({ sent: 0 });
    clock.set('2026-03-04T05:00:00Z');
    expect(await notificationsTick(deps)).toMatchObject({ sent: 1 });
    expect(sent.map((m) => m.channel)).toEqual(['email', 'telegram']);
  });

  it('without a Telegram link (or channel) only mail is delivered; a link broken since: failed as not_linked', async () => {
    const { deps, record, mem, links } = setup();
    await record();
    await notificationsTick({ ...deps, telegramLinks: undefined });
    expect([...mem.deliveries.values()].map((d) => [d.channel, d.status])).toEqual([['email', 'sent']]);
    await record('report_ready:r2');
    await notificationsTick({ ...deps, channels: { email: deps.channels.email } });
    expect([...mem.deliveries.values()].filter((d) => d.channel === 'telegram')).toEqual([]);
    await record('report_ready:r3');
    await expandNewEvents(deps);
    vi.mocked(links.getLink).mockResolvedValue(null);
    await notificationsTick(deps);
    expect(mem.deliveries.get('u1|report_ready:r3|telegram')).toMatchObject({ status: 'failed', reason: 'not_linked' });
  });

  it('a recording that fails does not throw', async () => {
    const { mem, clock } = setup();
    const broken = { ...mem.store, putEvent: async () => Promise.reject(new Error('store down')) };
    await expect(
      recordEvent(
        { store: broken, clock, appUrl: () => '' },
        { userId: 'u1', kind: 'report_ready', key: 'k', subject: 's', text: 't' },
      ),
    ).resolves.toBe(false);
  });
});
