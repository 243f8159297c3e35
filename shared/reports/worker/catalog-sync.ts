/**
 * The catalog side of building an uploaded report, done while its file is read: each article the reader
 * meets is queued, and every full batch is looked up and, when new, added to the catalog (cost price 0,
 * not set: docs/METRICS.md) at once — so the store's round trips overlap the CPU-bound read instead of
 * following it. For a 5,000-article week that is 50 look-ups and up to 50 conditional transactions that
 * used to run after the read (docs/ARCHITECTURE.md, "Upload and worker").
 *
 * `done()` answers the products found before anything was written (their dated cost prices price the
 * report), and the set of articles the catalog knew. The writes keep ensureProducts' rule: an existing
 * product is never touched, whatever runs at the same time.
 */
import type * as productsRepo from '../../store/products.repo';
import { costPricesOn } from '../../engine/periods';
import type { ProductRecord } from '../../store/products.repo';

/** The catalog writes a sync makes (shared/store/products.repo.ts in production; a fake in unit tests). */
export type CatalogProducts = Pick<typeof productsRepo, 'ensureProductsFound' | 'removeUntouchedProducts'>;

/** Articles per look-up (DynamoDB's BatchGet and TransactWriteItems both take 100). */
const BATCH = 100;
/** Batches in flight at once; the rest wait (a read queues thousands of articles in a second). */
const IN_FLIGHT = 8;

export class CatalogSync {
  private queue: string[] = [];
  private readonly found = new Map<string, ProductRecord>();
  /** What this sync added, by the time stamp each batch wrote them with. */
  private readonly created: Array<{ articles: string[]; at: string }> = [];
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
        .ensureProductsFound(this.userId, batch)
        .then(({ found, created, at }) => {
          for (const [article, p] of found) this.found.set(article, p);
          if (created.length > 0) this.created.push({ articles: created, at });
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
   * every batch, and answers the cost prices in force on `date` and the articles the catalog knew.
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

  /**
   * The report failed: waits for the batches in flight, then removes the products this sync added that
   * nobody changed since. Never throws (a product left behind is harmless: cost price 0, not set).
   */
  async undo(): Promise<number> {
    this.failure ??= new Error('undone');
    if (this.running > 0) await new Promise<void>((wake) => this.idle.push(wake));
    let removed = 0;
    for (const c of this.created) {
      try {
        await this.products.removeUntouchedProducts(this.userId, c.articles, c.at);
        removed += c.articles.length;
      } catch {
        // Best effort: see the method comment.
      }
    }
    return removed;
  }
}
