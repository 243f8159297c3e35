/**
 * A loopback proxy in front of DynamoDB Local that answers some requests the way DynamoDB does under
 * load, which the emulator never does: throttling (`ThrottlingException`,
 * `ProvisionedThroughputExceededException`) and transactions cancelled by a conflict or by throttling.
 * Every other request goes through to the emulator untouched (dynamo-proxy.ts), so the use cases run on
 * the real store and the real client (its retries, shared/store/client.ts) meets the faults.
 */
import { DYNAMO_ERROR_PREFIX as PREFIX, startDynamoProxy, type DynamoAnswer } from './dynamo-proxy';

type Fault = 'throttling' | 'provisioned' | 'cancel_conflict' | 'cancel_throttling';

interface SeenRequest {
  /** The DynamoDB operation (`TransactWriteItems`, `PutItem`, …). */
  op: string;
  at: number;
  /** The items of a TransactWriteItems (0 for other operations). */
  items: number;
  /** The partition key of a PutItem's item (undefined for other operations). */
  pk?: string;
  /** The fault answered, or null when forwarded. */
  fault: Fault | null;
}

function faultAnswer(fault: Fault, items: number): DynamoAnswer {
  switch (fault) {
    case 'throttling':
      return {
        status: 400,
        body: { __type: `${PREFIX}ThrottlingException`, message: 'Rate of requests exceeds the allowed throughput.' },
      };
    case 'provisioned':
      return {
        status: 400,
        body: {
          __type: `${PREFIX}ProvisionedThroughputExceededException`,
          message: 'The level of configured provisioned throughput for the table was exceeded.',
        },
      };
    case 'cancel_conflict':
    case 'cancel_throttling': {
      const code = fault === 'cancel_conflict' ? 'TransactionConflict' : 'ThrottlingError';
      const reasons = Array.from({ length: Math.max(1, items) }, (_, i) => ({ Code: i === 0 ? code : 'None' }));
      return {
        status: 400,
        body: {
          __type: `${PREFIX}TransactionCanceledException`,
          message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
          CancellationReasons: reasons,
        },
      };
    }
  }
}

export interface FaultProxy {
  /** The endpoint to give the client (DYNAMODB_ENDPOINT). */
  url: string;
  /** Answers the next `times` requests of operation `op` with `fault` (queued after earlier ones). */
  inject(op: string, fault: Fault, times?: number): void;
  /** Drops the faults still queued. */
  clear(): void;
  seen: SeenRequest[];
  stop(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const queue: Array<{ op: string; fault: Fault }> = [];
  const seen: SeenRequest[] = [];
  const proxy = await startDynamoProxy(target, ({ op, body }) => {
    const items =
      op === 'TransactWriteItems' ? ((body as { TransactItems?: unknown[] }).TransactItems?.length ?? 0) : 0;
    const i = queue.findIndex((q) => q.op === op);
    const fault = i >= 0 ? queue.splice(i, 1)[0]!.fault : null;
    const pk = op === 'PutItem' ? (body as { Item?: { pk?: { S?: string } } }).Item?.pk?.S : undefined;
    seen.push({ op, at: Date.now(), items, pk, fault });
    return fault ? { before: faultAnswer(fault, items) } : null;
  });
  return {
    url: proxy.url,
    inject(op, fault, times = 1) {
      for (let n = 0; n < times; n++) queue.push({ op, fault });
    },
    clear() {
      queue.length = 0;
    },
    seen,
    stop: proxy.stop,
  };
}
