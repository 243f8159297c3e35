/**
 * The WB sync tick of the local stack: what the EventBridge schedule does on AWS (serverless.yml
 * wbSyncTick, every minute), this process does on an interval — it invokes the same function through
 * serverless-offline's Lambda endpoint, so the tick runs in the API's process with the API's settings
 * (WB_FINANCE_API_URL, WB_CALL_INTERVAL_SECONDS, the token key). One tick at a time, as the function's
 * reserved concurrency of 1 keeps it on AWS: the next starts `everyMs` after the last one ended.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';

export interface WbTickOptions {
  /** serverless-offline's Lambda endpoint (http://127.0.0.1:<LAMBDA_PORT>). */
  lambdaEndpoint: string;
  functionName: string;
  everyMs: number;
  log?: (line: string) => void;
}

/** An EventBridge scheduled event, as the schedule sends it. */
export function scheduledEvent(now: Date) {
  return {
    version: '0',
    id: `local-${now.getTime()}`,
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'eu-central-1',
    resources: [],
    detail: {},
  };
}

export function startWbTick(opts: WbTickOptions): { stop(): Promise<void> } {
  const client = new LambdaClient({
    region: 'eu-central-1',
    endpoint: opts.lambdaEndpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  // A failing tick is told once, not every two seconds, until it works again.
  let lastProblem = '';

  const once = async () => {
    try {
      const r = await client.send(
        new InvokeCommand({
          FunctionName: opts.functionName,
          InvocationType: 'RequestResponse',
          Payload: Buffer.from(JSON.stringify(scheduledEvent(new Date()))),
        }),
      );
      const problem = r.FunctionError ? `${r.FunctionError}: ${Buffer.from(r.Payload ?? []).toString('utf8')}` : '';
      if (problem && problem !== lastProblem) opts.log?.(`WB sync tick failed: ${problem}`);
      lastProblem = problem;
    } catch (e) {
      const problem = e instanceof Error ? e.message : String(e);
      if (problem !== lastProblem) opts.log?.(`WB sync tick could not be invoked: ${problem}`);
      lastProblem = problem;
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = once().finally(schedule);
    }, opts.everyMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      client.destroy();
    },
  };
}
