import { beforeEach, describe, expect, it, vi } from 'vitest';
import { conditionHeld } from './dynamo-errors';
import { deleteBuildingReport, finishRebuildTask, releaseReportTask, renewReportTask } from './report-lifecycle.repo';
import { ensureRole } from './roles.repo';
import { changePasswordHash, confirmUser } from './users.repo';

/** The answer of the next DynamoDB call: a write that went through, or the error it fails with. */
const next = vi.hoisted(() => ({ error: null as Error | null, commands: [] as string[] }));
vi.mock('./client', () => ({
  tableName: () => 't',
  putNew: (item: Record<string, unknown>) => ({ Put: { Item: item } }),
  ddb: () => ({
    send: async (cmd: { constructor: { name: string } }) => {
      next.commands.push(cmd.constructor.name);
      if (next.error) throw next.error;
      return {};
    },
  }),
}));

function named(name: string): Error {
  const e = new Error(name);
  e.name = name;
  return e;
}

beforeEach(() => {
  next.error = null;
  next.commands = [];
});

describe('conditionHeld', () => {
  it('true when the write went through, false when its condition failed', async () => {
    expect(await conditionHeld(Promise.resolve({}))).toBe(true);
    expect(await conditionHeld(Promise.reject(named('ConditionalCheckFailedException')))).toBe(false);
  });

  it('passes any other failure on', async () => {
    await expect(conditionHeld(Promise.reject(named('ProvisionedThroughputExceededException')))).rejects.toThrow(
      'ProvisionedThroughputExceededException',
    );
  });
});

describe('the conditional writes of the stores answer through it', () => {
  const progress = { step: 'reading' as const, rows_read: 0, rows_total: 0, items_written: 0, items_total: 0 };
  const writes: Array<[string, () => Promise<boolean>]> = [
    ['deleteBuildingReport', () => deleteBuildingReport('u', 'r')],
    ['renewReportTask', () => renewReportTask('u', 'r', 'o', 1000, progress)],
    ['releaseReportTask', () => releaseReportTask('u', 'r', null, 1000)],
    ['finishRebuildTask', () => finishRebuildTask('u', 'r', 'o', { task_id: 't', finished_at: 'x', dropped: [] })],
    ['confirmUser', () => confirmUser('u', 'h')],
    [
      'changePasswordHash',
      () => changePasswordHash({ userId: 'u', expectedHash: 'a', passwordHash: 'b', changedAt: 'x' }),
    ],
    ['ensureRole', () => ensureRole('seller', 'd')],
  ];

  it.each(writes)('%s: true when written, false on a failed condition, other errors thrown', async (_name, write) => {
    expect(await write()).toBe(true);
    next.error = named('ConditionalCheckFailedException');
    expect(await write()).toBe(false);
    next.error = named('InternalServerError');
    await expect(write()).rejects.toThrow('InternalServerError');
    expect(next.commands).toHaveLength(3);
  });
});
