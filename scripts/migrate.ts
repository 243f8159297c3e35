/**
 * The one-off migration of stored records to the current versions of their shapes
 * (shared/store/records.ts; docs/OPERATIONS.md: run once after deploying this version).
 *
 *   npm run migrate                         the local stack (as `npm run admin` finds it)
 *   npm run migrate -- --stage prod         the deployed stage's table (AWS credentials, BUCKET_NAME)
 *   npm run migrate -- --dry-run            say what would change, write nothing
 *   npm run migrate -- --start <cursor>     go on from where an interrupted run said it was
 *
 * It scans the table once and upgrades, record by record, each with a conditional write (so it is
 * idempotent, safe beside live traffic, and an interrupted run is resumed by running it again, or from
 * the cursor it printed last):
 *   - a report record without `v`: its items stored one record per item are rewritten as chunks first
 *     (item-chunks.ts; a manual value stays as the item's correction record), then the record gets
 *     `v`, `items_gen`, `version` and `status` (`ready` when it had none);
 *   - a report still `building` (an upload made before the worker existed, whose process died: no
 *     upload runs longer than 29 s) older than ABANDONED_UPLOAD_AFTER_MS is undone: claimed, its charge
 *     refunded (once ever), its items, source and identity deleted, the record deleted last, the seller
 *     it created removed when nothing else refers to it; a younger one is left for the next run;
 *   - a product without `v`: `cost_prices` from the single `cost_price` of before dated prices (a
 *     positive one from the beginning, 0 = never set), `cost_price_set`, `updated_at`;
 *   - a seller or user without `v`: `tax_periods` from the single `tax` profile (from the beginning),
 *     `allocation` (a seller's null, a user's the default), `updated_at` of a seller;
 *   - a product still under the one catalog key of before (`USER#<id>` / `PRODUCT#<article>`): moved
 *     to its shard (keys.ts productKey, `USER#<id>#PRODUCTS#<n>`) — put there unless a product the
 *     seller priced since the deploy is there already (one a report added unpriced gives way to the
 *     stored prices), then the old record deleted on the condition that it did not change meanwhile.
 * Every upgraded record is read back through its schema; one that still does not parse is named (key
 * and problem) and counted, and the run ends with exit code 1.
 */
import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { DEFAULT_ALLOCATION } from '../shared/engine/allocation';
import { sortPeriods, type CostPricePeriod } from '../shared/engine/periods';
import { DEFAULT_TAX_PROFILE, type ComputedItem, type ItemValues, type ManualValues } from '../shared/engine/types';
import { deleteObject } from '../shared/files/objects';
import { undo } from '../shared/reports/worker/recover-deps';
import { ddb, queryAll, tableName } from '../shared/store/client';
import { conditionHeld } from '../shared/store/dynamo-errors';
import { deleteIdentity } from '../shared/store/report-identities.repo';
import { deleteItems, GEN_SPAN, writeItems } from '../shared/store/items.repo';
import {
  ITEM_CHUNK_PREFIX,
  ITEM_PREFIX,
  itemsPartition,
  PRODUCT_PREFIX,
  productKey,
  reportKey,
} from '../shared/store/keys';
import { refundLimits } from '../shared/store/limits.repo';
import {
  parseStored,
  RECORD_VERSIONS,
  storedProduct,
  storedReport,
  storedSeller,
  storedUser,
  storedPeriodCost,
  storedPurchase,
  storedOwnCosts,
  type RecordKind,
} from '../shared/store/records';
import { applyLocalDefaults, assertTargetAnswers } from './admin';

// Locally Node 20 runs what Lambda runs on 22: the AWS SDK's notice about that is noise for an operator.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** A `building` record older than this is an upload whose process died: far beyond the 29 s any upload may run. */
export const ABANDONED_UPLOAD_AFTER_MS = 10 * 60 * 1000;

export interface MigrateOptions {
  dryRun?: boolean;
  /** Where to start (a cursor printed by an earlier run). */
  start?: string | null;
  /** The clock that decides which `building` uploads are abandoned. */
  now?: number;
  out?: (line: string) => void;
}

export interface MigrateResult {
  scanned: number;
  /** Records upgraded (or, in a dry run, that would be), by kind. */
  upgraded: Record<RecordKind, number>;
  /** Reports whose items were rewritten from one record per item into chunks. */
  items_rewritten: number;
  /** `building` uploads undone, and the rows given back. */
  building_undone: number;
  refunded_rows: number;
  /** `building` uploads too young to be called abandoned, or whose undo did not finish: run again later. */
  building_left: number;
  /** Products moved from the one catalog key of before to their shard. */
  products_moved: number;
  /** Records that changed meanwhile (the conditional write refused): run again. */
  changed_meanwhile: number;
  /** Records that still do not parse, by key. */
  errors: string[];
  /** Where the scan ended (null: the whole table was read). */
  next: string | null;
}

const PAGE = 200;

const encodeStart = (key: Record<string, unknown>): string => Buffer.from(JSON.stringify(key)).toString('base64url');
const decodeStart = (s: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as Record<string, unknown>;

const SCHEMAS: Record<RecordKind, z.ZodType> = {
  report: storedReport,
  product: storedProduct,
  seller: storedSeller,
  user: storedUser,
  period_cost: storedPeriodCost,
  own_costs: storedOwnCosts,
  purchase: storedPurchase,
};

/** The kind of a scanned record that has a versioned shape (the `type` attribute), or null. */
function kindOf(item: Record<string, unknown>): RecordKind | null {
  const t = item.type;
  return t === 'report' || t === 'product' || t === 'seller' || t === 'user' ? t : null;
}

const seqOf = (sk: unknown): number => Number(String(sk).slice(ITEM_PREFIX.length));

/**
 * Rewrites the report's items stored one record per item (`ITEM#<seq>` with `computed`) as chunks:
 * per generation, the chunks are written first (writeItems: the same items put the same chunks), then
 * each whole record becomes the item's correction record when it has a manual value or a revision,
 * and is deleted otherwise. Returns whether there was anything to rewrite.
 */
async function rewriteWholeItems(userId: string, reportId: string, dryRun: boolean): Promise<boolean> {
  const pk = itemsPartition(userId, reportId);
  const rows = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': pk, ':prefix': ITEM_PREFIX },
    ConsistentRead: true,
  });
  const whole = rows.filter((r) => r.computed !== undefined);
  if (whole.length === 0) return false;
  if (dryRun) return true;
  const byGen = new Map<number, Array<Record<string, unknown>>>();
  for (const r of whole) {
    const gen = Math.floor(seqOf(r.sk) / GEN_SPAN);
    byGen.set(gen, [...(byGen.get(gen) ?? []), r]);
  }
  for (const [gen, list] of byGen) {
    const chunks = await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': ITEM_CHUNK_PREFIX },
      ProjectionExpression: 'sk',
      ConsistentRead: true,
    });
    const genChunks = chunks.filter(
      (c) => Math.floor(Number(String(c.sk).slice(ITEM_CHUNK_PREFIX.length)) / GEN_SPAN) === gen,
    );
    if (genChunks.length === 0) {
      // The generation's items in order; their indexes must be 1…n for their ids to stay what they were.
      const sorted = [...list].sort((a, b) => seqOf(a.sk) - seqOf(b.sk));
      sorted.forEach((r, i) => {
        if (seqOf(r.sk) - gen * GEN_SPAN !== i + 1)
          throw new Error(`Items of report ${reportId} (generation ${gen}) are not numbered 1…n: ${String(r.sk)}`);
      });
      const items: ComputedItem[] = sorted.map((r) => ({
        article: String(r.article ?? ''),
        category: String(r.category ?? ''),
        nm_id: String(r.nm_id ?? ''),
        brand: String(r.brand ?? ''),
        computed: r.computed as ItemValues,
        manual_values: (r.manual_values ?? {}) as ManualValues,
        effective: (r.effective ?? r.computed) as ItemValues,
      }));
      await writeItems(userId, reportId, gen, items);
    }
    // The chunks hold every item now: each whole record becomes a correction, or goes.
    for (const r of list) {
      const key = { pk: String(r.pk), sk: String(r.sk) };
      const corrected = Number(r.rev ?? 0) > 0 || Object.keys((r.manual_values ?? {}) as object).length > 0;
      if (corrected)
        await conditionHeld(
          ddb().send(
            new UpdateCommand({
              TableName: tableName(),
              Key: key,
              UpdateExpression:
                'SET #type = :type, report_id = :r REMOVE computed, article, category, nm_id, brand, item_id',
              ConditionExpression: 'attribute_exists(computed)',
              ExpressionAttributeNames: { '#type': 'type' },
              ExpressionAttributeValues: { ':type': 'item_correction', ':r': reportId },
            }),
          ),
        );
      else
        await ddb().send(new BatchWriteCommand({ RequestItems: { [tableName()]: [{ DeleteRequest: { Key: key } }] } }));
    }
  }
  return true;
}

/**
 * Undoes an abandoned `building` upload (see the file comment). Returns the rows given back, or null
 * when a step failed (the record stays: the next run finishes the job).
 */
async function undoBuilding(item: Record<string, unknown>, out: (line: string) => void): Promise<number | null> {
  const userId = String(item.user_id);
  const reportId = String(item.id);
  const key = reportKey(userId, reportId);
  const claimed = await ddb()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET recovering_at = if_not_exists(recovering_at, :now)',
        ConditionExpression: 'attribute_exists(pk) AND #s = :building',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':now': new Date().toISOString(), ':building': 'building' },
        ReturnValues: 'ALL_NEW',
      }),
    )
    .then((r) => r.Attributes ?? null)
    .catch((e: unknown) => {
      if ((e as { name?: string }).name === 'ConditionalCheckFailedException') return null;
      throw e;
    });
  if (!claimed) return 0;
  const rows = Number(claimed.rows);
  let refunded = 0;
  const source = typeof claimed.source_path === 'string' ? claimed.source_path : null;
  const identity = typeof claimed.identity === 'string' ? claimed.identity : null;
  const steps: Array<[string, () => Promise<unknown>]> = [
    ['refund', async () => ((await refundLimits({ userId, rows, reportId })) ? (refunded = rows) : 0)],
    ['items', () => deleteItems(userId, reportId)],
    ['source', () => (source ? deleteObject(source) : Promise.resolve())],
    ['identity', () => (identity ? deleteIdentity(userId, identity, reportId) : Promise.resolve())],
  ];
  let complete = true;
  for (const [step, run] of steps) {
    try {
      await run();
    } catch (e) {
      complete = false;
      out(`report ${key.pk} / ${key.sk}: undo step ${step} failed: ${String(e)}`);
    }
  }
  if (!complete) return null;
  await conditionHeld(
    ddb().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: key,
        ConditionExpression: '#s = :building',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':building': 'building' },
      }),
    ),
  );
  await undo.dropUnusedSeller(userId, typeof claimed.seller_id === 'string' ? claimed.seller_id : null);
  return refunded;
}

/** The periods of a product stored before dated prices: a positive price from the beginning, 0 = never set. */
function legacyPeriods(item: Record<string, unknown>): CostPricePeriod[] {
  if (Array.isArray(item.cost_prices))
    return sortPeriods(
      (item.cost_prices as Array<Record<string, unknown>>).map((p) => ({
        valid_from: typeof p.valid_from === 'string' ? p.valid_from : null,
        cost_price: Number(p.cost_price ?? 0),
      })),
    );
  const price = Number(item.cost_price ?? 0);
  return price > 0 ? [{ valid_from: null, cost_price: price }] : [];
}

/** A tax period as stored now, from a stored profile (from the beginning when it has no date). */
function taxPeriod(p: Record<string, unknown>) {
  return {
    valid_from: typeof p.valid_from === 'string' ? p.valid_from : null,
    tax_system: p.tax_system,
    usn_rate: Number(p.usn_rate),
    vat_rate: Number(p.vat_rate),
  };
}

/** The SET clauses that bring a record of `kind` without `v` to the current shape. */
function upgradeOf(kind: RecordKind, item: Record<string, unknown>): Record<string, unknown> {
  const created = String(item.created_at ?? new Date().toISOString());
  switch (kind) {
    case 'report':
      return {
        items_gen: Number(item.items_gen ?? 1),
        version: Number(item.version ?? 1),
        status: item.status ?? 'ready',
      };
    case 'product': {
      const periods = legacyPeriods(item);
      return { cost_prices: periods, cost_price_set: periods.length > 0, updated_at: item.updated_at ?? created };
    }
    case 'seller': {
      const stored = Array.isArray(item.tax_periods) ? (item.tax_periods as Array<Record<string, unknown>>) : [];
      const tax = item.tax as Record<string, unknown> | null | undefined;
      const periods = stored.length > 0 ? stored.map(taxPeriod) : tax ? [taxPeriod(tax)] : null;
      return { tax_periods: periods, allocation: item.allocation ?? null, updated_at: item.updated_at ?? created };
    }
    case 'user': {
      const stored = Array.isArray(item.tax_periods) ? (item.tax_periods as Array<Record<string, unknown>>) : [];
      const tax = (item.tax as Record<string, unknown> | undefined) ?? { ...DEFAULT_TAX_PROFILE };
      const periods = stored.length > 0 ? stored.map(taxPeriod) : [taxPeriod(tax)];
      return { tax_periods: periods, allocation: item.allocation ?? DEFAULT_ALLOCATION };
    }
    case 'period_cost':
    case 'own_costs':
    case 'purchase':
      // Born versioned: no shape before version 1 (kindOf never picks it for an upgrade).
      return {};
  }
}

/**
 * Upgrades one record without `v` (conditional on it still having none), and parses what was written.
 * 'changed' when the record changed meanwhile.
 */
async function upgrade(kind: RecordKind, item: Record<string, unknown>): Promise<'ok' | 'changed'> {
  const set = { ...upgradeOf(kind, item), v: RECORD_VERSIONS[kind] };
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const clauses = Object.entries(set).map(([k, value], i) => {
    names[`#a${i}`] = k;
    values[`:a${i}`] = value;
    return `#a${i} = :a${i}`;
  });
  try {
    const r = await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: item.pk, sk: item.sk },
        UpdateExpression: `SET ${clauses.join(', ')}`,
        // Unchanged since it was read: no version yet, and the same updated_at (when it has one).
        ConditionExpression:
          item.updated_at === undefined
            ? 'attribute_exists(pk) AND attribute_not_exists(#v) AND attribute_not_exists(#u)'
            : 'attribute_exists(pk) AND attribute_not_exists(#v) AND #u = :u',
        ExpressionAttributeNames: { ...names, '#v': 'v', '#u': 'updated_at' },
        ExpressionAttributeValues: { ...values, ...(item.updated_at === undefined ? {} : { ':u': item.updated_at }) },
        ReturnValues: 'ALL_NEW',
      }),
    );
    parseStored(kind, SCHEMAS[kind], r.Attributes ?? {});
    return 'ok';
  } catch (e) {
    if ((e as { name?: string }).name === 'ConditionalCheckFailedException') return 'changed';
    throw e;
  }
}

/** Whether a product record is still under the one catalog key of before (`USER#<id>`). */
const underLegacyKey = (item: Record<string, unknown>): boolean => item.pk === `USER#${String(item.user_id)}`;

/**
 * Moves a product from the one catalog key of before to its shard (see the file comment): reads it
 * again (it may have been upgraded a moment ago), puts it at its shard's key unless a product priced
 * since is there, deletes the old record if unchanged. 'changed' when it changed meanwhile.
 */
async function moveProduct(key: { pk: unknown; sk: unknown }): Promise<'ok' | 'changed'> {
  const r = await ddb().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  const item = r.Item;
  if (!item) return 'changed';
  const article = String(item.article);
  const target = productKey(String(item.user_id), article, String(item.sk).slice(PRODUCT_PREFIX.length));
  try {
    await ddb().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...item, ...target },
        ConditionExpression: 'attribute_not_exists(pk) OR cost_price_set = :no',
        ExpressionAttributeValues: { ':no': false },
      }),
    );
  } catch (e) {
    // A product the seller priced since the deploy is newer than the stored one: it stays.
    if ((e as { name?: string }).name !== 'ConditionalCheckFailedException') throw e;
  }
  const deleted = await conditionHeld(
    ddb().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: { pk: item.pk, sk: item.sk },
        ConditionExpression: 'updated_at = :u',
        ExpressionAttributeValues: { ':u': item.updated_at },
      }),
    ),
  );
  return deleted ? 'ok' : 'changed';
}

/** Runs the migration over the table (see the file comment). Never throws for one record: it is named in `errors`. */
export async function migrate(opts: MigrateOptions = {}): Promise<MigrateResult> {
  const out = opts.out ?? (() => undefined);
  const dryRun = opts.dryRun === true;
  const now = opts.now ?? Date.now();
  const abandonedBefore = new Date(now - ABANDONED_UPLOAD_AFTER_MS).toISOString();
  const result: MigrateResult = {
    scanned: 0,
    upgraded: { report: 0, product: 0, seller: 0, user: 0, period_cost: 0, own_costs: 0, purchase: 0 },
    items_rewritten: 0,
    building_undone: 0,
    refunded_rows: 0,
    building_left: 0,
    products_moved: 0,
    changed_meanwhile: 0,
    errors: [],
    next: null,
  };
  const moveOne = async (item: Record<string, unknown>, name: string): Promise<void> => {
    if (dryRun) result.products_moved += 1;
    else if ((await moveProduct({ pk: item.pk, sk: item.sk })) === 'ok') result.products_moved += 1;
    else {
      result.changed_meanwhile += 1;
      out(`${name}: changed while it was moved to its shard: run again`);
    }
  };
  let start: Record<string, unknown> | undefined = opts.start ? decodeStart(opts.start) : undefined;
  do {
    const page = await ddb().send(
      new ScanCommand({
        TableName: tableName(),
        Limit: PAGE,
        ExclusiveStartKey: start,
        FilterExpression: '#t IN (:report, :product, :seller, :user)',
        ExpressionAttributeNames: { '#t': 'type' },
        ExpressionAttributeValues: { ':report': 'report', ':product': 'product', ':seller': 'seller', ':user': 'user' },
        ConsistentRead: true,
      }),
    );
    for (const item of page.Items ?? []) {
      const kind = kindOf(item);
      if (!kind) continue;
      result.scanned += 1;
      const name = `${kind} ${String(item.pk)} / ${String(item.sk)}`;
      try {
        if (kind === 'report' && item.status === 'building') {
          if (String(item.created_at) >= abandonedBefore) {
            result.building_left += 1;
            out(`${name}: an upload still building (created ${String(item.created_at)}): run again later`);
            continue;
          }
          if (dryRun) {
            result.building_undone += 1;
            continue;
          }
          const refunded = await undoBuilding(item, out);
          if (refunded === null) result.building_left += 1;
          else {
            result.building_undone += 1;
            result.refunded_rows += refunded;
          }
          continue;
        }
        const move = kind === 'product' && underLegacyKey(item);
        if (item.v === RECORD_VERSIONS[kind]) {
          // Current already: it must parse as such.
          parseStored(kind, SCHEMAS[kind], item);
          if (move) await moveOne(item, name);
          continue;
        }
        if (kind === 'report' && (await rewriteWholeItems(String(item.user_id), String(item.id), dryRun)))
          result.items_rewritten += 1;
        if (dryRun) {
          result.upgraded[kind] += 1;
          continue;
        }
        if ((await upgrade(kind, item)) === 'ok') {
          result.upgraded[kind] += 1;
          if (move) await moveOne(item, name);
        } else {
          result.changed_meanwhile += 1;
          out(`${name}: changed while it was read: run again`);
        }
      } catch (e) {
        const message = `${name}: ${e instanceof Error ? e.message : String(e)}`;
        result.errors.push(message);
        out(message);
      }
    }
    start = page.LastEvaluatedKey;
    result.next = start ? encodeStart(start) : null;
    if (result.next) out(`… ${result.scanned} records so far; to resume from here: --start ${result.next}`);
  } while (start);
  return result;
}

const USAGE = [
  'usage: npm run migrate -- [--stage <stage>] [--dry-run] [--start <cursor>]',
  '',
  'Upgrades stored records to the current versions of their shapes (docs/OPERATIONS.md). Idempotent:',
  'run it again to finish an interrupted run, or from the cursor it printed last.',
  'Without --stage it talks to the local stack as `npm run admin` does. With --stage it talks to the',
  "stage's table report-profitability-<stage> on AWS (the usual credential chain; AWS_REGION, default",
  "eu-central-1); BUCKET_NAME must name the stage's files bucket (the stack's FilesBucket).",
].join('\n');

interface Args {
  stage: string | null;
  dryRun: boolean;
  start: string | null;
  help: boolean;
}

export function parseArgs(argv: string[]): Args | string {
  const args: Args = { stage: null, dryRun: false, start: null, help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--help' || a === '-h') args.help = true;
    else if (a === '--dry-run') args.dryRun = true;
    else if (a === '--stage' && argv[i + 1]) args.stage = argv[++i]!;
    else if (a === '--start' && argv[i + 1]) args.start = argv[++i]!;
    else return `unknown argument: ${a}`;
  }
  return args;
}

if (require.main === module) {
  const main = async (): Promise<number> => {
    const args = parseArgs(process.argv.slice(2));
    if (typeof args === 'string' || args.help) {
      console.log(typeof args === 'string' ? `${args}\n\n${USAGE}` : USAGE);
      return typeof args === 'string' ? 2 : 0;
    }
    if (args.stage && args.stage !== 'local') {
      process.env.DYNAMODB_ENDPOINT = '';
      process.env.TABLE_NAME = `report-profitability-${args.stage}`;
      process.env.AWS_REGION ??= 'eu-central-1';
      if (!process.env.BUCKET_NAME) {
        console.error("BUCKET_NAME must name the stage's files bucket (the stack's FilesBucket resource).");
        return 2;
      }
    }
    const target = applyLocalDefaults(process.env);
    console.error(
      `DynamoDB: ${target.endpoint ?? 'AWS'} (${target.reason}), table ${process.env.TABLE_NAME}` +
        (args.dryRun ? ' — dry run, nothing is written' : ''),
    );
    await assertTargetAnswers(target);
    const r = await migrate({ dryRun: args.dryRun, start: args.start, out: (l) => console.error(l) });
    console.log(JSON.stringify({ ...r, errors: r.errors.length }, null, 2));
    return r.errors.length > 0 ? 1 : 0;
  };
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : String(e));
      process.exit(1);
    },
  );
}
