/** One call waiting in a {@link PostgresBatcher}. */
interface Waiting<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/** Options of {@link PostgresBatcher}. */
export interface PostgresBatcherOptions<Item, Result> {
  /**
   * Runs calls together, in one statement: one outcome per item, in order (an `Error` fails
   * that call alone). When it throws, each call is run again alone, so that the failure goes
   * to the call that caused it.
   */
  run: (items: readonly Item[]) => Promise<ReadonlyArray<Result | Error>>;
  /** Calls with the same key never share a batch (a statement may change a row once). */
  key: (item: Item) => string;
  /** Calls of different groups never share a batch (e.g. saves of two runs). @default one group */
  group?: (item: Item) => string;
  /**
   * Whether a failure of a whole batch is no one call's fault (the server stayed away past the
   * retries): every call then fails with it, rather than each being run again alone, which
   * would only wait as long again. @default none
   */
  failsAll?: (error: unknown) => boolean;
  /** Batches at once. @default 2 */
  maxInFlight?: number;
  /** Calls in one batch at most. @default 100 */
  maxBatch?: number;
}

/**
 * Batches calls that wait at the same time ("natural" batching): a call runs at once when
 * fewer than `maxInFlight` batches are running, alone (no added wait when the store is idle);
 * calls made while they run wait, and the next batch takes them together. Under load, many
 * calls then cost one round trip and one statement instead of one each.
 */
export class PostgresBatcher<Item, Result> {
  private readonly options: PostgresBatcherOptions<Item, Result>;
  private readonly queue: Array<Waiting<Item, Result>> = [];
  private inFlight = 0;

  constructor(options: PostgresBatcherOptions<Item, Result>) {
    this.options = options;
  }

  /** Runs `item` with the calls waiting alongside it; resolves with its own outcome. */
  submit(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    const maxInFlight = this.options.maxInFlight ?? 2;
    while (this.inFlight < maxInFlight && this.queue.length > 0) {
      const batch = this.takeBatch();
      this.inFlight += 1;
      // runBatch settles every call of the batch itself and never rejects.
      void this.runBatch(batch).finally(() => {
        this.inFlight -= 1;
        this.pump();
      });
    }
  }

  /** The oldest waiting calls of the first call's group, one per key, in waiting order. */
  private takeBatch(): Array<Waiting<Item, Result>> {
    const { key, group } = this.options;
    const maxBatch = this.options.maxBatch ?? 100;
    const first = this.queue[0] as Waiting<Item, Result>;
    const batchGroup = group?.(first.item);
    const keys = new Set<string>();
    const batch: Array<Waiting<Item, Result>> = [];
    const left: Array<Waiting<Item, Result>> = [];
    for (const waiting of this.queue) {
      const itemKey = key(waiting.item);
      const fits =
        batch.length < maxBatch &&
        !keys.has(itemKey) &&
        (group === undefined || group(waiting.item) === batchGroup);
      if (fits) {
        keys.add(itemKey);
        batch.push(waiting);
      } else {
        left.push(waiting);
      }
    }
    this.queue.splice(0, this.queue.length, ...left);
    return batch;
  }

  private async runBatch(batch: ReadonlyArray<Waiting<Item, Result>>): Promise<void> {
    let outcomes: ReadonlyArray<Result | Error>;
    try {
      outcomes = await this.options.run(batch.map((waiting) => waiting.item));
    } catch (error) {
      if (batch.length === 1 || this.options.failsAll?.(error)) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      // One call's failure must not fail the others: each runs alone.
      await Promise.all(batch.map((waiting) => this.runBatch([waiting])));
      return;
    }
    batch.forEach((waiting, position) => {
      const outcome = outcomes[position];
      if (outcome instanceof Error) waiting.reject(outcome);
      else waiting.resolve(outcome as Result);
    });
  }
}
