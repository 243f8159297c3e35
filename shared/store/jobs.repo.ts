/**
 * Combine jobs' states for every process (shared/jobs/job.ts, JobStore): one record per job,
 * `JOB#<userId>#<jobId>` / `JOB`, overwritten when the job starts and when it ends (done → report id,
 * failed → error). `expires_at` (epoch ms) is when the registry forgets the job; `ttl` lets DynamoDB
 * delete the record later (TTL deletion lags, so reads check `expires_at` themselves).
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { JobSnapshot, JobStore } from '../jobs/job';
import { ddb, tableName } from './client';
import { jobKey } from './keys';

export async function saveJob(job: JobSnapshot, expiresAt: number): Promise<void> {
  await ddb().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...jobKey(job.owner, job.id),
        type: 'combine_job',
        job,
        expires_at: expiresAt,
        ttl: Math.ceil(expiresAt / 1000),
      },
    }),
  );
}

export async function loadJob(owner: string, id: string, now: number): Promise<JobSnapshot | null> {
  const r = await ddb().send(new GetCommand({ TableName: tableName(), Key: jobKey(owner, id), ConsistentRead: true }));
  if (!r.Item || typeof r.Item.expires_at !== 'number' || r.Item.expires_at <= now) return null;
  const job = r.Item.job as JobSnapshot;
  return job.owner === owner && job.id === id ? job : null;
}

export const jobStore: JobStore = { save: saveJob, load: loadJob };
