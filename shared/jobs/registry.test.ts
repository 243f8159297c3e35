import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../errors';
import { manualClock } from '../deps';
import {
  JOB_LOST_AFTER_MS,
  JOB_TTL_MS,
  MAX_RUNNING,
  createJobRegistry,
  type JobRegistry,
  type ProgressReporter,
} from './registry';
import type { JobSnapshot, JobStore } from './job';

/** A job body the test finishes by hand. */
function controllable() {
  let resolve!: (id: string) => void;
  let reject!: (e: unknown) => void;
  let reporter!: ProgressReporter;
  const run = (p: ProgressReporter) => {
    reporter = p;
    return new Promise<string>((res, rej) => {
      resolve = res;
      reject = rej;
    });
  };
  return { run, resolve: (id: string) => resolve(id), reject: (e: unknown) => reject(e), progress: () => reporter };
}

const flush = () => new Promise<void>((r) => setImmediate(r));

let clock: ReturnType<typeof manualClock>;
let registry: JobRegistry;
const startJob: JobRegistry['startJob'] = (...a) => registry.startJob(...a);
const getJob: JobRegistry['getJob'] = (...a) => registry.getJob(...a);
const waitFor: JobRegistry['waitFor'] = (...a) => registry.waitFor(...a);

describe('combine job registry', () => {
  beforeEach(() => {
    // The registry's times come from its clock; waitFor's timeout is a timer.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    clock = manualClock('2024-03-01T10:00:00Z');
    registry = createJobRegistry({ clock });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs a job, reports progress and ends done with the report id', async () => {
    const c = controllable();
    const started = startJob('u1', 3, c.run);
    expect(started).toMatchObject({ owner: 'u1', progress: { done: 0, total: 3 } });
    await flush();
    expect(getJob('u1', started.id)?.status).toBe('running');
    c.progress().advance();
    c.progress().advance();
    expect(getJob('u1', started.id)?.progress).toEqual({ done: 2, total: 3 });
    c.progress().set(99);
    expect(getJob('u1', started.id)?.progress.done).toBe(3);
    c.resolve('REPORT1');
    await flush();
    const done = getJob('u1', started.id);
    expect(done).toMatchObject({ status: 'done', report_id: 'REPORT1', progress: { done: 3, total: 3 } });
    expect(done?.finished_at).toBe(clock.now().getTime());
  });

  it("another owner's job is null, like an unknown one", () => {
    const job = startJob('owner-a', 1, async () => 'R');
    expect(getJob('owner-b', job.id)).toBeNull();
    expect(getJob('owner-a', 'no-such-job')).toBeNull();
    expect(getJob('owner-a', job.id)).not.toBeNull();
  });

  it('a failing job ends failed with the error code and message, no report id', async () => {
    const silence = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const app = startJob('u1', 2, async () => {
      throw new AppError(404, 'report_not_found', 'Report not found');
    });
    const crash = startJob('u1', 2, async () => {
      throw new Error('DynamoDB said something internal');
    });
    await flush();
    expect(getJob('u1', app.id)).toMatchObject({
      status: 'failed',
      error: { code: 'report_not_found', message: 'Report not found' },
    });
    expect(getJob('u1', app.id)?.report_id).toBeUndefined();
    // Internals never reach the status answer; they go to the log.
    expect(getJob('u1', crash.id)).toMatchObject({
      status: 'failed',
      error: { code: 'internal_error', message: 'internal error' },
    });
    expect(silence).toHaveBeenCalledTimes(1);
    expect(String(silence.mock.calls[0]![0])).toContain('DynamoDB said something internal');
    silence.mockRestore();
  });

  it('waitFor returns as soon as the job finishes, or after the timeout with the job still running', async () => {
    const quick = controllable();
    const job = startJob('u1', 1, quick.run);
    const waiting = waitFor(job, 10_000);
    await flush();
    quick.resolve('R1');
    expect(await waiting).toMatchObject({ status: 'done', report_id: 'R1' });

    const slow = controllable();
    const job2 = startJob('u1', 1, slow.run);
    const waiting2 = waitFor(job2, 10_000);
    await flush();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await waiting2).toMatchObject({ status: 'running', progress: { done: 0, total: 1 } });
    slow.resolve('R2');
    await flush();
    expect(getJob('u1', job2.id)?.status).toBe('done');
  });

  it(`runs at most ${MAX_RUNNING} jobs at once; the rest wait queued and start as others finish`, async () => {
    const bodies = Array.from({ length: MAX_RUNNING + 1 }, () => controllable());
    const jobs = bodies.map((b) => startJob('u1', 1, b.run));
    await flush();
    expect(jobs.map((j) => getJob('u1', j.id)?.status)).toEqual([...Array(MAX_RUNNING).fill('running'), 'queued']);
    bodies[0]!.resolve('R0');
    await flush();
    await flush();
    expect(getJob('u1', jobs[MAX_RUNNING]!.id)?.status).toBe('running');
    bodies.slice(1).forEach((b, i) => b.resolve(`R${i + 1}`));
    await flush();
    expect(jobs.map((j) => getJob('u1', j.id)?.status)).toEqual(jobs.map(() => 'done'));
  });

  it('forgets a job an hour after it finished, not before', async () => {
    const job = startJob('u1', 1, async () => 'R');
    await flush();
    clock.advance(JOB_TTL_MS - 1000);
    expect(getJob('u1', job.id)?.status).toBe('done');
    clock.advance(1000);
    expect(getJob('u1', job.id)).toBeNull();
  });

  it('keeps an unfinished job however long it runs', async () => {
    const c = controllable();
    const job = startJob('u1', 1, c.run);
    await flush();
    clock.advance(3 * JOB_TTL_MS);
    expect(getJob('u1', job.id)?.status).toBe('running');
    c.resolve('R');
    await flush();
  });

  it('each registry is its own: a job of one is unknown to another', () => {
    const job = startJob('u1', 1, async () => 'R');
    const other = createJobRegistry({ clock, ids: { newId: () => job.id } });
    expect(other.getJob('u1', job.id)).toBeNull();
    expect(getJob('u1', job.id)).not.toBeNull();
  });

  describe('with a store shared by several processes (Lambda environments)', () => {
    /** A store as the table keeps it: one record per job, overwritten, with its expiry. */
    function memoryStore() {
      const records = new Map<string, { job: JobSnapshot; expiresAt: number }>();
      const writes: string[] = [];
      const store: JobStore = {
        save: async (job, expiresAt) => {
          writes.push(job.status);
          records.set(`${job.owner}#${job.id}`, { job: structuredClone(job), expiresAt });
        },
        load: async (owner, id, now) => {
          const r = records.get(`${owner}#${id}`);
          return r && r.expiresAt > now ? structuredClone(r.job) : null;
        },
      };
      return { store, writes };
    }

    it('a registry that never saw the job answers from its stored outcome (done, with the report id)', async () => {
      const { store, writes } = memoryStore();
      const here = createJobRegistry({ clock, store });
      const elsewhere = createJobRegistry({ clock, store });
      const c = controllable();
      const job = here.startJob('u1', 3, c.run);
      await flush();
      expect(elsewhere.getJob('u1', job.id)).toBeNull();
      expect(await elsewhere.findJob('u1', job.id)).toMatchObject({
        status: 'running',
        progress: { done: 0, total: 3 },
      });
      c.resolve('REPORT7');
      await flush();
      await flush();
      expect(await elsewhere.findJob('u1', job.id)).toMatchObject({
        id: job.id,
        status: 'done',
        report_id: 'REPORT7',
        progress: { done: 3, total: 3, step: 'done' },
      });
      expect(await elsewhere.findJob('u2', job.id)).toBeNull();
      expect(writes).toEqual(['running', 'done']);
      // Forgotten an hour after it finished, like in memory.
      clock.advance(JOB_TTL_MS);
      expect(await elsewhere.findJob('u1', job.id)).toBeNull();
    });

    it('a failed job is stored with its error; a waiting request answers after the outcome is stored', async () => {
      const { store } = memoryStore();
      const here = createJobRegistry({ clock, store });
      const job = here.startJob('u1', 1, async () => {
        throw new AppError(409, 'source_missing', 'gone');
      });
      const waited = await here.waitFor(job, 1000);
      expect(waited.status).toBe('failed');
      const stored = await createJobRegistry({ clock, store }).findJob('u1', job.id);
      expect(stored).toMatchObject({ status: 'failed', error: { code: 'source_missing', message: 'gone' } });
    });

    it('a stored job that never ended is lost after JOB_LOST_AFTER_MS; one neither in memory nor stored is null', async () => {
      const { store } = memoryStore();
      const here = createJobRegistry({ clock, store });
      const elsewhere = createJobRegistry({ clock, store });
      const c = controllable();
      const job = here.startJob('u1', 1, c.run);
      await flush();
      clock.advance(JOB_LOST_AFTER_MS - 1);
      expect((await elsewhere.findJob('u1', job.id))?.status).toBe('running');
      clock.advance(1);
      expect(await elsewhere.findJob('u1', job.id)).toBeNull();
      expect(await elsewhere.findJob('u1', 'never-started')).toBeNull();
      c.resolve('R');
      await flush();
    });

    it('a store that fails to write does not fail the job', async () => {
      const store: JobStore = {
        save: async () => {
          throw new Error('DynamoDB unavailable');
        },
        load: async () => null,
      };
      const here = createJobRegistry({ clock, store });
      const job = here.startJob('u1', 1, async () => 'R');
      expect(await here.waitFor(job, 1000)).toMatchObject({ status: 'done', report_id: 'R' });
    });
  });
});
