/**
 * A loopback proxy in front of DynamoDB Local that fails the report worker's item writes, for the e2e
 * suite: serverless-offline runs the production worker, which cannot be handed a failing store, so the
 * failure comes from the store's side, as a real one would. The proxy reads the requests going by: a
 * report record put (the charge's transaction) tells it the report's source name; a BatchWriteItem that
 * puts item chunks of a report whose source name contains a rule's `match` is forwarded (the items land)
 * and then answered with an error the client does not retry, `times` times per report (every time
 * without `times`). The worker's attempt fails after writing items; a later attempt overwrites them.
 * Every other request goes through untouched. Loopback only; stopped by the test that started it.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ItemWriteFault {
  /** Text the report's source name (its file name) contains. */
  match: string;
  /** Failed writes per report; every write when unset. */
  times?: number;
}

export interface ItemWriteFaultProxy {
  /** The endpoint to give the functions (DYNAMODB_ENDPOINT). */
  url: string;
  /** Item writes failed so far, by report id. */
  failed: Map<string, number>;
  stop(): Promise<void>;
}

type AttributeMap = Record<string, { S?: string } | undefined>;

interface Body {
  TransactItems?: Array<{ Put?: { Item?: AttributeMap } }>;
  Item?: AttributeMap;
  RequestItems?: Record<string, Array<{ PutRequest?: { Item?: AttributeMap } }>>;
}

export async function startItemWriteFaults(target: string, rules: ItemWriteFault[]): Promise<ItemWriteFaultProxy> {
  const upstream = new URL(target);
  /** Report id → its source name, from the report records put. */
  const names = new Map<string, string>();
  const failed = new Map<string, number>();

  /** The report whose item chunks this batch puts, when a rule says to fail it. */
  function faultyReport(op: string, body: Body): string | null {
    if (op === 'TransactWriteItems' || op === 'PutItem') {
      const items = op === 'PutItem' ? [body.Item] : (body.TransactItems ?? []).map((t) => t.Put?.Item);
      for (const item of items) {
        const id = item?.id?.S;
        const name = item?.source_name?.S;
        if (id && name) names.set(id, name);
      }
      return null;
    }
    if (op !== 'BatchWriteItem') return null;
    for (const writes of Object.values(body.RequestItems ?? {})) {
      for (const w of writes) {
        const item = w.PutRequest?.Item;
        if (item?.type?.S !== 'item_chunk' || !item.report_id?.S) continue;
        const id = item.report_id.S;
        const rule = rules.find((r) => (names.get(id) ?? '').includes(r.match));
        if (rule && (failed.get(id) ?? 0) < (rule.times ?? Infinity)) return id;
      }
    }
    return null;
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const op =
        String(req.headers['x-amz-target'] ?? '')
          .split('.')
          .pop() ?? '';
      let body: Body = {};
      try {
        body = JSON.parse(raw.toString('utf8')) as Body;
      } catch {
        body = {};
      }
      const fail = faultyReport(op, body);
      const headers: IncomingHttpHeaders = { ...req.headers, host: upstream.host };
      const up = request(
        { hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers },
        (r) => {
          if (!fail) {
            res.writeHead(r.statusCode ?? 502, r.headers);
            r.pipe(res);
            return;
          }
          // The items landed; the answer says otherwise (a 400 the SDK does not retry).
          r.resume();
          r.on('end', () => {
            failed.set(fail, (failed.get(fail) ?? 0) + 1);
            res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'fault' });
            res.end(
              JSON.stringify({
                __type: 'com.amazonaws.dynamodb.v20120810#ValidationException',
                message: `injected item write fault (report ${fail})`,
              }),
            );
          });
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
    failed,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
