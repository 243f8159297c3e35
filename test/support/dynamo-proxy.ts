/**
 * A loopback proxy in front of DynamoDB Local that lets a test answer some requests itself, the way
 * DynamoDB does and the emulator never does: a fault instead of the emulator's answer (`before`), or after
 * the request went through (`after`: the write landed, the answer says otherwise). Every other request
 * goes through untouched, so the use cases run on the real store and the real client. Loopback only;
 * stopped by the test that started it. The fault proxies (dynamo-faults.ts, item-write-faults.ts) decide.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const DYNAMO_ERROR_PREFIX = 'com.amazonaws.dynamodb.v20120810#';

export interface DynamoAnswer {
  status: number;
  body: object;
}

/** A request going by: the operation (`PutItem`, `TransactWriteItems`, …) and its JSON body. */
interface DynamoCall {
  op: string;
  body: unknown;
}

export type Decide = (call: DynamoCall) => { before: DynamoAnswer } | { after: DynamoAnswer } | null;

export interface DynamoProxy {
  /** The endpoint to give the client (DYNAMODB_ENDPOINT). */
  url: string;
  stop(): Promise<void>;
}

const send = (res: import('node:http').ServerResponse, a: DynamoAnswer) => {
  res.writeHead(a.status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'fault' });
  res.end(JSON.stringify(a.body));
};

export async function startDynamoProxy(target: string, decide: Decide): Promise<DynamoProxy> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const op =
        String(req.headers['x-amz-target'] ?? '')
          .split('.')
          .pop() ?? '';
      let body: unknown = {};
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = {};
      }
      const decision = decide({ op, body });
      if (decision && 'before' in decision) {
        send(res, decision.before);
        return;
      }
      const headers: IncomingHttpHeaders = { ...req.headers, host: upstream.host };
      const up = request(
        { hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers },
        (r) => {
          if (!decision) {
            res.writeHead(r.statusCode ?? 502, r.headers);
            r.pipe(res);
            return;
          }
          r.resume();
          r.on('end', () => send(res, decision.after));
        },
      );
      up.on('error', (e) => {
        res.writeHead(502);
        res.end(String(e));
      });
      up.end(raw);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
