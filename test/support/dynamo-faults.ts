/**
 * A loopback proxy in front of DynamoDB Local that answers some requests the way DynamoDB does under
 * load, which the emulator never does: throttling (`ThrottlingException`,
 * `ProvisionedThroughputExceededException`) and transactions cancelled by a conflict or by throttling.
 * Every other request goes through to the emulator untouched, so the use cases run on the real store
 * and the real client (its retries, shared/store/client.ts) meets the faults. Loopback only; stopped by
 * the test that started it.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = 'throttling' | 'provisioned' | 'cancel_conflict' | 'cancel_throttling';

export interface SeenRequest {
  /** The DynamoDB operation (`TransactWriteItems`, `PutItem`, …). */
  op: string;
  at: number;
  /** The items of a TransactWriteItems (0 for other operations). */
  items: number;
  /** The fault answered, or null when forwarded. */
  fault: Fault | null;
}

const PREFIX = 'com.amazonaws.dynamodb.v20120810#';

function faultAnswer(fault: Fault, items: number): { status: number; body: object } {
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
  const upstream = new URL(target);
  const queue: Array<{ op: string; fault: Fault }> = [];
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const op =
        String(req.headers['x-amz-target'] ?? '')
          .split('.')
          .pop() ?? '';
      let items = 0;
      if (op === 'TransactWriteItems') {
        try {
          items = (JSON.parse(body.toString('utf8')) as { TransactItems?: unknown[] }).TransactItems?.length ?? 0;
        } catch {
          items = 0;
        }
      }
      const i = queue.findIndex((q) => q.op === op);
      const fault = i >= 0 ? queue.splice(i, 1)[0]!.fault : null;
      seen.push({ op, at: Date.now(), items, fault });
      if (fault) {
        const a = faultAnswer(fault, items);
        res.writeHead(a.status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'fault' });
        res.end(JSON.stringify(a.body));
        return;
      }
      const headers: IncomingHttpHeaders = { ...req.headers, host: upstream.host };
      const up = request(
        { hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      up.on('error', (e) => {
        res.writeHead(502);
        res.end(String(e));
      });
      up.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    inject(op, fault, times = 1) {
      for (let n = 0; n < times; n++) queue.push({ op, fault });
    },
    clear() {
      queue.length = 0;
    },
    seen,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
