import { describe, expect, it } from 'vitest';
import { canStart, hasItems, leaseExpired, recoveryStep, TRANSITIONS } from './lifecycle';

describe('report lifecycle table', () => {
  it('starts each transition only from its state and task', () => {
    expect(canStart('queueUpload', null)).toBe(true);
    expect(canStart('queueUpload', { status: 'ready' })).toBe(false);
    expect(canStart('startRebuild', { status: 'ready' })).toBe(true);
    expect(canStart('startRebuild', { status: 'processing', task: 'rebuild' })).toBe(false);
    expect(canStart('startRebuild', { status: 'failed' })).toBe(false);
    expect(canStart('finishUpload', { status: 'processing', task: 'upload' })).toBe(true);
    expect(canStart('finishUpload', { status: 'processing', task: 'rebuild' })).toBe(false);
    expect(canStart('failUpload', { status: 'processing', task: 'rebuild' })).toBe(false);
    expect(canStart('failUpload', { status: 'failed' })).toBe(false);
    expect(canStart('finishRebuild', { status: 'processing', task: 'rebuild' })).toBe(true);
    expect(canStart('claim', { status: 'ready' })).toBe(false);
  });

  it('never leads out of failed, and every end of a task leaves the pending index', () => {
    for (const t of Object.values(TRANSITIONS)) {
      expect(t.from?.status).not.toBe('failed');
      if (t.from?.status === 'processing' && t.to.status !== 'processing')
        expect(t).toHaveProperty('leavesPending', true);
    }
  });

  it('has items when ready or while rebuilt, not while an upload is built or after it failed', () => {
    expect(hasItems({ status: 'ready' })).toBe(true);
    expect(hasItems({ status: 'processing', task: 'rebuild' })).toBe(true);
    expect(hasItems({ status: 'processing', task: 'upload' })).toBe(false);
    expect(hasItems({ status: 'failed' })).toBe(false);
  });

  it('recovery waits for a live lease, releases while attempts remain, then ends the task by its kind', () => {
    expect(leaseExpired({ status: 'processing', lease_until: 100 }, 101)).toBe(true);
    expect(leaseExpired({ status: 'processing', lease_until: 100 }, 100)).toBe(false);
    const p = { status: 'processing' as const, lease_until: 100 };
    expect(recoveryStep({ ...p, task: 'upload', attempts: 1 }, 50, 3)).toBe('wait');
    expect(recoveryStep({ ...p, task: 'upload', attempts: 1 }, 150, 3)).toBe('release');
    expect(recoveryStep({ ...p, task: 'upload', attempts: 3 }, 150, 3)).toBe('fail_upload');
    expect(recoveryStep({ ...p, task: 'rebuild', attempts: 3 }, 150, 3)).toBe('end_rebuild');
  });
});
