/**
 * The catalog side of building an uploaded report. While its file is read, each article the reader
 * meets is queued and every full batch is looked up at once (reads only), so the store's round trips
 * overlap the CPU-bound read: `done()` answers the dated cost prices the report is priced with and the
 * articles the catalog knew. Nothing is written before the report is ready: the report never waits for
 * the catalog. Then `write()` adds the articles the catalog did not know (cost price 0, not set:
 * docs/METRICS.md) — the worker's catalog follow-up (lifecycle.ts), retried by recovery when it fails,
 * which looks the articles up again (`complete()`) since the catalog may have changed meanwhile.
 * The writes keep ensureProducts' rule: an existing product is never touched, whatever runs at the same
 * time (products.repo.ts addProducts: conditional puts).
 */
import { costPricesOn } from '../../engine/periods';
import type { ProductRecord } from '../../store/products.repo';

/** The catalog reads and writes of a sync (shared/store/products.repo.ts in production; a fake in unit tests). */
export interface CatalogProducts {
  /** The catalog's records of these articles (those it has). */
  getProducts(userId: string, articles: readonly string[]): Promise<Map<string, ProductRecord>>;
  /** Adds the articles the catalog does not have yet; answers those it created. */
  addProducts(userId: string, articles: readonly string[]): Promise<{ created: string[]; at: string }>;
}

/** Articles per look-up (DynamoDB's BatchGet takes 100). */
const BATCH = 100;
/** Batches in flight at once; the rest wait (a read queues thousands of articles in a second). */
const IN_FLIGHT = 8;

export class CatalogSync {
  private queue: string[] = [];
  private readonly found = new Map<string, ProductRecord>();
  private readonly articles = new Set<string>();
  private readonly pending: string[][] = [];
  private running = 0;
  private failure: unknown = null;
  private idle: Array<() => void> = [];

  /** `products`: the catalog store (the composition, deps.ts, gives the DynamoDB one; unit tests a fake). */
  constructor(
    private readonly userId: string,
    private readonly products: CatalogProducts,
  ) {}

  /** Queues an article (duplicates and the empty article are ignored). Never throws: errors come from done(). */
  add(article: string): void {
    if (article === '' || this.articles.has(article)) return;
    this.articles.add(article);
    this.queue.push(article);
    if (this.queue.length >= BATCH) this.flush();
  }

  private flush(): void {
    if (this.queue.length === 0) return;
    this.pending.push(this.queue);
    this.queue = [];
    this.pump();
  }

  private pump(): void {
    while (this.running < IN_FLIGHT && this.pending.length > 0 && this.failure === null) {
      const batch = this.pending.shift()!;
      this.running++;
      this.products
        .getProducts(this.userId, batch)
        .then((found) => {
          for (const [article, p] of found) this.found.set(article, p);
        })
        .catch((e: unknown) => {
          this.failure ??= e;
        })
        .finally(() => {
          this.running--;
          this.pump();
          if (this.running === 0 && (this.pending.length === 0 || this.failure !== null)) {
            for (const wake of this.idle.splice(0)) wake();
          }
        });
    }
  }

  /**
   * Adds the given articles too (the report's full list, in case a reader skipped the hook), waits for
   * every look-up, and answers the cost prices in force on `date` and the articles the catalog knew.
   */
  async done(
    articles: readonly string[],
    date: string | null,
  ): Promise<{ prices: Record<string, number>; known: Set<string> }> {
    for (const a of articles) this.add(a);
    this.flush();
    if (this.running > 0 || this.pending.length > 0) await new Promise<void>((wake) => this.idle.push(wake));
    if (this.failure !== null) throw this.failure;
    return { prices: costPricesOn(this.found.values(), date), known: new Set(this.found.keys()) };
  }

  /** The articles looked up that the catalog did not have (after done()). */
  missing(): string[] {
    return [...this.articles].filter((a) => !this.found.has(a));
  }

  /** Adds the articles the look-ups did not find (after done()); answers how many it added. */
  async write(): Promise<number> {
    return (await this.products.addProducts(this.userId, this.missing())).created.length;
  }

  /** Looks `articles` up now and adds those missing (a follow-up's later attempt); answers how many it added. */
  async complete(articles: readonly string[]): Promise<number> {
    await this.done(articles, null);
    return this.write();
  }
}
