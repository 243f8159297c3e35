/**
 * A loopback proxy in front of DynamoDB Local that fails the report worker's item writes, for the e2e
 * suite: serverless-offline runs the production worker, which cannot be handed a failing store, so the
 * failure comes from the store's side, as a real one would. The proxy reads the requests going by: a
 * report record put (the charge's transaction) tells it the report's source name; a BatchWriteItem that
 * puts item chunks of a report whose source name contains a rule's `match` is forwarded (the items land)
 * and then answered with an error the client does not retry, `times` times per report (every time
 * without `times`). The worker's attempt fails after writing items; a later attempt overwrites them.
 * Every other request goes through untouched (dynamo-proxy.ts).
 */
import { DYNAMO_ERROR_PREFIX, startDynamoProxy } from './dynamo-proxy';

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

  const proxy = await startDynamoProxy(target, ({ op, body }) => {
    const fail = faultyReport(op, body as Body);
    if (!fail) return null;
    failed.set(fail, (failed.get(fail) ?? 0) + 1);
    // The items landed; the answer says otherwise (a 400 the SDK does not retry).
    return {
      after: {
        status: 400,
        body: {
          __type: `${DYNAMO_ERROR_PREFIX}ValidationException`,
          message: `injected item write fault (report ${fail})`,
        },
      },
    };
  });
  return { url: proxy.url, failed, stop: proxy.stop };
}
